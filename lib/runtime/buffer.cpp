#include <partcl/runtime/buffer.hpp>

namespace partcl::detail {

cl::Buffer allocate(const Context& context, cl_mem_flags flags, std::size_t bytes) {
    for (const auto& d : context.devices()) {
        if (bytes > d.info().max_allocation)
            throw ClError(CL_INVALID_BUFFER_SIZE, "clCreateBuffer",
                          std::to_string(bytes) + " bytes asked, but " + d.info().name +
                              " allows at most " + std::to_string(d.info().max_allocation) +
                              " bytes in one buffer");
    }
    cl_int status = CL_SUCCESS;
    cl::Buffer buffer(context.cl_context(), flags, bytes, nullptr, &status);
    if (status != CL_SUCCESS)
        throw ClError(status, "clCreateBuffer", "allocating " + std::to_string(bytes) + " bytes");
    return buffer;
}

} // namespace partcl::detail
