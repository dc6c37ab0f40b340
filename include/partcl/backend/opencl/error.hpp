#pragma once
// OpenCL's status codes as partcl reports them: a failed call is a BackendError carrying the
// status and its CL_... name.
#include <string>

#include <partcl/backend/error.hpp>
#include <partcl/backend/opencl/cl.hpp>

namespace partcl::opencl {

// Symbolic name of an OpenCL status code ("CL_INVALID_KERNEL_ARGS"), or "CL_UNKNOWN_ERROR".
const char* status_name(cl_int status) noexcept;

// The BackendError of a failed call: "call failed: CL_NAME (status)[: detail]".
BackendError error(cl_int status, std::string call, const std::string& detail = {});

// Throws error(status, call) when status is not CL_SUCCESS.
inline void check(cl_int status, const char* call) {
    if (status != CL_SUCCESS) throw error(status, call);
}

} // namespace partcl::opencl
