// The OpenCL backend's memory: a cl::Buffer of the context, which counts its own references.
#include <algorithm>

#include "backend/opencl/opencl.hpp"

namespace partcl::detail::opencl {

namespace {

class OpenclMemory final : public MemoryImpl {
public:
    OpenclMemory(cl::Buffer buffer, std::optional<std::size_t> home)
        : buffer(std::move(buffer)), home(home) {}
    void* native() const override { return buffer(); }
    std::shared_ptr<MemoryImpl> region(std::size_t offset, std::size_t bytes) override;
    cl::Buffer buffer;
    std::optional<std::size_t> home;
};

// A sub-buffer holds its buffer (OpenCL frees a buffer's store only after its sub-buffers).
std::shared_ptr<MemoryImpl> OpenclMemory::region(std::size_t offset, std::size_t bytes) {
    cl_buffer_region range{offset, bytes};
    cl_int status = CL_SUCCESS;
    cl::Buffer sub = buffer.createSubBuffer(CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                            &range, &status);
    if (status == CL_MISALIGNED_SUB_BUFFER_OFFSET) return nullptr;
    if (status != CL_SUCCESS)
        throw error(status, "clCreateSubBuffer",
                    "bytes [" + std::to_string(offset) + ", " + std::to_string(offset + bytes) + ")");
    return std::make_shared<OpenclMemory>(std::move(sub), home);
}

} // namespace

std::shared_ptr<MemoryImpl> allocate(const cl::Context& context,
                                     const std::vector<BackendDevice>& devices, std::size_t bytes,
                                     std::optional<std::size_t> home) {
    for (const auto& d : devices) {
        if (bytes <= d.info.max_allocation) continue;
        throw error(CL_INVALID_BUFFER_SIZE, "clCreateBuffer",
                    std::to_string(bytes) + " bytes asked, but " + d.info.name +
                        " allows at most " + std::to_string(d.info.max_allocation) +
                        " bytes in one buffer");
    }
    cl_int status = CL_SUCCESS;
    cl::Buffer buffer(context, CL_MEM_READ_WRITE, bytes, nullptr, &status);
    if (status != CL_SUCCESS)
        throw error(status, "clCreateBuffer", "allocating " + std::to_string(bytes) + " bytes");
    return std::make_shared<OpenclMemory>(std::move(buffer), home);
}

const cl::Buffer& cl_buffer(const MemoryImpl& memory) {
    return static_cast<const OpenclMemory&>(memory).buffer;
}

std::optional<std::size_t> home_of(const MemoryImpl& memory) {
    return static_cast<const OpenclMemory&>(memory).home;
}

std::size_t rectangle_rows(const cl::Buffer& from, const cl::Buffer& to, const RowsCopy& rows) {
    auto fitting = [&](const cl::Buffer& buffer, std::size_t offset, std::size_t pitch) {
        const std::size_t size = buffer.getInfo<CL_MEM_SIZE>();
        return offset >= size ? 0 : std::min(rows.rows, (size - offset) / pitch);
    };
    return std::min(fitting(from, rows.from_offset, rows.from_pitch),
                    fitting(to, rows.to_offset, rows.to_pitch));
}

} // namespace partcl::detail::opencl
