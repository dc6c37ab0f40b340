#pragma once
// Errors partcl throws. Every one derives from partcl::Error, so a program can catch that alone;
// the subclasses exist where a caller reacts differently (a bad filter is a usage error, a
// failed driver call is a run failure). They live at the bottom of the layers because the
// backends throw them too.
#include <string>

#include <partcl/support/error.hpp>

namespace partcl {

// A failed call into a backend's API: the call, the backend's numeric status and its name for it
// (OpenCL's CL_... names, include/partcl/backend/opencl/error.hpp; CUDA's cudaError...). what()
// reads e.g. "clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES (-5)", or with the backend's
// own words for the status in place of the number where it has them ("cudaMalloc failed:
// cudaErrorInvalidValue (invalid argument)").
class BackendError : public Error {
public:
    BackendError(std::string call, int status, std::string status_name,
                 const std::string& detail = {});
    BackendError(std::string call, int status, std::string status_name,
                 const std::string& explanation, const std::string& detail);
    int status() const noexcept { return status_; }
    const std::string& status_name() const noexcept { return status_name_; }
    const std::string& call() const noexcept { return call_; }

private:
    int status_;
    std::string status_name_;
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

// A kernel that does not compile. what() carries the device name and the compiler log, whose
// locations name the user's files (`my_kernel.cl:12:5: error: ...`).
class BuildError : public Error {
public:
    BuildError(std::string program, std::string device, std::string log);
    const std::string& program() const noexcept { return program_; }
    const std::string& device() const noexcept { return device_; }
    const std::string& log() const noexcept { return log_; }

private:
    std::string program_, device_, log_;
};

} // namespace partcl
