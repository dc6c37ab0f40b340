// The CUDA backend's programs and kernels: a program is a CUDA library per architecture (one
// handle that serves every device of it; a device the context names again has its own), its
// kernels launched on a stream.
#include <mutex>

#include "backend/cuda/cuda.hpp"

namespace partcl::detail::cuda {

namespace {

class CudaProgram final : public ProgramImpl, public std::enable_shared_from_this<CudaProgram> {
public:
    CudaProgram(std::map<std::string, cudaLibrary_t> libraries, std::vector<std::string> device_arch,
                std::vector<std::string> names)
        : libraries_(std::move(libraries)), device_arch_(std::move(device_arch)),
          names_(std::move(names)) {}
    ~CudaProgram() override {
        for (auto& [arch, library] : libraries_) cudaLibraryUnload(library);
    }
    CudaProgram(const CudaProgram&) = delete;
    CudaProgram& operator=(const CudaProgram&) = delete;

    void* native() const override { return nullptr; }
    std::vector<std::string> kernel_names() const override { return names_; }
    std::unique_ptr<KernelImpl> kernel(const std::string& name) const override;

    // Whether the program's kernels read a global offset (they include cl/common/portable.h).
    bool reads_global_offset(std::size_t device, int ordinal) const {
        std::lock_guard<std::mutex> lock(offsets_mutex_);
        return find_global_offset(device, ordinal).address != nullptr;
    }

    // Writes a launch's global offset for the kernels of this program on `device` (the
    // `partcl_global_offset` of cl/common/portable.h), in stream order before the launch that
    // reads it; nothing when the device already has that offset. The program is its context's,
    // whose one stream per device orders every launch that reads it.
    void set_global_offset(std::size_t device, int ordinal, cudaStream_t stream,
                           std::uint32_t offset, const std::string& kernel) const {
        std::lock_guard<std::mutex> lock(offsets_mutex_);
        GlobalOffset& slot = find_global_offset(device, ordinal);
        if (slot.value == offset) return;  // a module's globals start at zero
        if (!slot.address)
            throw Unsupported("kernel '" + kernel + "' launched at an offset: its program has "
                              "no partcl_global_offset (cl/common/portable.h's global_id reads "
                              "it)");
        use_device(ordinal);
        // From pageable memory, the copy takes the value before it returns.
        check(cudaMemcpyAsync(slot.address, &offset, sizeof offset, cudaMemcpyHostToDevice, stream),
              "cudaMemcpyAsync", "the global offset of kernel '" + kernel + "'");
        slot.value = offset;
    }

    // The kernel for each device of the context, in its order.
    std::vector<cudaKernel_t> kernels(const std::string& name) const {
        std::vector<cudaKernel_t> list;
        for (const auto& arch : device_arch_) {
            cudaKernel_t k = nullptr;
            check(cudaLibraryGetKernel(&k, libraries_.at(arch), name.c_str()), "cudaLibraryGetKernel",
                  "kernel '" + name + "'");
            list.push_back(k);
        }
        return list;
    }

private:
    struct GlobalOffset {
        void* address = nullptr;  // on its device; null when the program has none
        bool looked_up = false;
        std::uint32_t value = 0;
    };

    // The device's slot, its address looked up once (offsets_mutex_ held).
    GlobalOffset& find_global_offset(std::size_t device, int ordinal) const {
        if (offsets_.size() < device_arch_.size()) offsets_.resize(device_arch_.size());
        GlobalOffset& slot = offsets_.at(device);
        if (!slot.looked_up) {
            use_device(ordinal);
            std::size_t bytes = 0;
            if (cudaLibraryGetGlobal(&slot.address, &bytes, libraries_.at(device_arch_.at(device)),
                                     "partcl_global_offset") != cudaSuccess) {
                cudaGetLastError();
                slot.address = nullptr;
            }
            slot.looked_up = true;
        }
        return slot;
    }

    std::map<std::string, cudaLibrary_t> libraries_;  // by architecture ("sm_90", "sm_90#1")
    std::vector<std::string> device_arch_;
    std::vector<std::string> names_;
    mutable std::mutex offsets_mutex_;
    mutable std::vector<GlobalOffset> offsets_;  // per device of the context
};

class CudaKernel final : public KernelImpl {
public:
    CudaKernel(std::string name, std::shared_ptr<const CudaProgram> program)
        : name_(std::move(name)), program_(std::move(program)), kernels_(program_->kernels(name_)) {
        // Asked once here, not at every argument of every launch.
        for (std::size_t index = 0;; ++index) {
            std::size_t offset = 0, size = 0;
            if (cudaFuncGetParamInfo(reinterpret_cast<const void*>(kernels_.front()), index,
                                     &offset, &size) != cudaSuccess) {
                cudaGetLastError();  // the index past the last parameter: cleared, not sticky
                break;
            }
            parameter_sizes_.push_back(size);
        }
    }

    void set(unsigned index, std::size_t size, const void* value) override {
        if (args_.size() <= index) args_.resize(index + 1);
        args_[index].assign(static_cast<const char*>(value), static_cast<const char*>(value) + size);
    }

    // CUDA takes any bytes; the parameter's size, where known, says what fits.
    bool set_if_size(unsigned index, std::size_t size, const void* value) override {
        if (const auto want = parameter_size(index); want && *want != size) return false;
        set(index, size, value);
        return true;
    }

    void set_memory(unsigned index, const MemoryImpl* memory) override {
        void* address = memory ? pointer(*memory) : nullptr;
        set(index, sizeof address, &address);
    }

    void set_local(unsigned index, std::size_t) override {
        throw Unsupported("argument " + std::to_string(index) + " of kernel '" + name_ +
                          "': dynamic local memory is not supported by the CUDA backend; size "
                          "the kernel's LOCAL arrays with a macro");
    }

    std::shared_ptr<EventImpl> launch(QueueImpl& queue, std::size_t device, std::size_t global,
                                      std::size_t local, std::size_t offset) override {
        if (offset + global > 0xffffffffull)
            throw Unsupported("kernel '" + name_ + "': work-items up to " +
                              std::to_string(offset + global) +
                              ", past the 2^32 that global_id counts on CUDA");
        const cudaKernel_t kernel = kernels_.at(device);
        // Without a group size exactly `global` items run, as on OpenCL (a kernel may bound-check
        // against more than this launch's items): whole blocks, then one block of the rest at the
        // offset where they end. A program that reads no offset runs whole blocks, the last
        // stopped by its kernels' bound checks.
        const bool exact = local == 0;
        if (exact) local = std::min<std::size_t>(256, max_threads(kernel, ordinal(queue)));
        const bool split =
            exact && global % local && program_->reads_global_offset(device, ordinal(queue));
        const std::size_t rest = split ? global % local : 0;
        const std::size_t blocks = split ? global / local : (global + local - 1) / local;
        if (blocks > 0x7fffffffull)
            throw Unsupported("kernel '" + name_ + "': " + std::to_string(blocks) + " blocks");
        std::vector<void*> pointers;
        for (auto& a : args_) pointers.push_back(a.data());
        const cudaStream_t stream_handle = stream(queue);
        const auto run = [&](std::size_t at, std::size_t grid, std::size_t block) {
            program_->set_global_offset(device, ordinal(queue), stream_handle, std::uint32_t(at),
                                        name_);
            check(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(unsigned(grid)),
                                   dim3(unsigned(block)), pointers.data(), 0, stream_handle),
                  "cudaLaunchKernel",
                  "kernel '" + name_ + "', " + std::to_string(grid) + " blocks of " +
                      std::to_string(block));
        };
        return timed(ordinal(queue), stream_handle, [&] {
            if (blocks) run(offset, blocks, local);
            if (rest) run(offset + blocks * local, 1, rest);
        });
    }

    // Kernels are per device of the context; all share a library per architecture, so any of
    // them answers for a device of the same architecture.
    std::size_t max_work_group_size(const BackendDevice& device) const override {
        return max_threads(kernels_.front(), device.ordinal);
    }

    std::size_t preferred_multiple(const BackendDevice&) const override { return 32; }  // a warp

    std::optional<std::size_t> parameter_size(unsigned index) const override {
        if (index >= parameter_sizes_.size()) return std::nullopt;
        return parameter_sizes_[index];
    }

private:

    static std::size_t max_threads(cudaKernel_t kernel, int device_ordinal) {
        cudaFuncAttributes attributes{};
        use_device(device_ordinal);
        check(cudaFuncGetAttributes(&attributes, reinterpret_cast<const void*>(kernel)),
              "cudaFuncGetAttributes");
        return std::size_t(attributes.maxThreadsPerBlock);
    }

    std::string name_;
    std::shared_ptr<const CudaProgram> program_;  // the library must outlive its kernels
    std::vector<cudaKernel_t> kernels_;
    std::vector<std::size_t> parameter_sizes_;
    std::vector<std::vector<char>> args_;
};

std::unique_ptr<KernelImpl> CudaProgram::kernel(const std::string& name) const {
    return std::make_unique<CudaKernel>(name, shared_from_this());
}

} // namespace

std::shared_ptr<ProgramImpl> make_program(std::map<std::string, cudaLibrary_t> libraries,
                                          std::vector<std::string> device_arch,
                                          std::vector<std::string> names) {
    return std::make_shared<CudaProgram>(std::move(libraries), std::move(device_arch),
                                         std::move(names));
}

} // namespace partcl::detail::cuda
