#pragma once
// Errors partcl throws. Every one derives from partcl::Error, so a program can catch that alone;
// the subclasses exist where a caller reacts differently (a bad filter is a usage error, an
// OpenCL failure is a run failure).
#include <string>

#include <partcl/runtime/cl.hpp>
#include <partcl/support/error.hpp>

namespace partcl {

// A failed OpenCL call: keeps the numeric status, its symbolic name and the call.
// what() reads e.g. "clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES (-5)".
class ClError : public Error {
public:
    ClError(cl_int status, std::string call, const std::string& detail = {});
    cl_int status() const noexcept { return status_; }
    const std::string& call() const noexcept { return call_; }
    const char* status_name() const noexcept;

private:
    cl_int status_;
    std::string call_;
};

// Input the user gave that cannot be honoured (malformed filter, unknown option value).
class UsageError : public Error {
public:
    using Error::Error;
};

// The request is valid but the selected hardware cannot do it (double on a device without
// fp64, no device matching a filter).
class Unsupported : public Error {
public:
    using Error::Error;
};

// Symbolic name of an OpenCL status code ("CL_INVALID_KERNEL_ARGS"), or "CL_UNKNOWN_ERROR".
const char* cl_status_name(cl_int status) noexcept;

// Throws ClError when status is not CL_SUCCESS.
inline void check(cl_int status, const char* call) {
    if (status != CL_SUCCESS) throw ClError(status, call);
}

} // namespace partcl
