#pragma once
// What a backend implements. The public classes (Context, Queue, Memory, Event, Program,
// Kernel) are handles over these; each backend folder (opencl/, cuda/) implements them all, so a
// backend is read, and a new one added, by this shape. Objects of one backend only ever meet
// objects of the same backend (the public classes check), so implementations downcast freely.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <partcl/jit/compiler.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/runtime/device.hpp>

namespace partcl::detail {

class EventImpl {
public:
    virtual ~EventImpl() = default;
    virtual void wait() = 0;
    virtual double seconds() = 0;  // device time of the command; waits first
};

class MemoryImpl {
public:
    virtual ~MemoryImpl() = default;
};

class QueueImpl {
public:
    virtual ~QueueImpl() = default;
    virtual void finish() = 0;
    virtual std::shared_ptr<EventImpl> write(MemoryImpl& memory, std::size_t offset,
                                             std::size_t bytes, const void* host, bool blocking) = 0;
    virtual void read(const MemoryImpl& memory, std::size_t offset, std::size_t bytes,
                      void* host) = 0;
    virtual std::shared_ptr<EventImpl> copy(const MemoryImpl& from, std::size_t from_offset,
                                            MemoryImpl& to, std::size_t to_offset,
                                            std::size_t bytes) = 0;
    // Repeats `pattern` (1, 2, 4 or 8 bytes) over [offset, offset + bytes).
    virtual std::shared_ptr<EventImpl> fill(MemoryImpl& memory, const void* pattern,
                                            std::size_t pattern_size, std::size_t offset,
                                            std::size_t bytes) = 0;
};

class ProgramImpl;

class ContextImpl {
public:
    virtual ~ContextImpl() = default;
    virtual std::shared_ptr<QueueImpl> queue(std::size_t device) = 0;
    virtual std::shared_ptr<MemoryImpl> allocate(std::size_t bytes) = 0;

    // The memory tier of the program caches: programs built for this context, by cache and
    // key. They live and die with the context, so no program (and through it no driver context)
    // outlives its Context into the process's exit, where drivers are tearing themselves down.
    std::shared_ptr<ProgramImpl> find_program(std::uint64_t cache, const std::string& key) {
        std::lock_guard<std::mutex> lock(programs_mutex_);
        const auto it = programs_.find({cache, key});
        return it == programs_.end() ? nullptr : it->second;
    }
    void remember_program(std::uint64_t cache, const std::string& key,
                          std::shared_ptr<ProgramImpl> program) {
        std::lock_guard<std::mutex> lock(programs_mutex_);
        programs_[{cache, key}] = std::move(program);
    }

protected:
    // For a backend's destructor, once its queues are idle: programs go before the context.
    void release_programs() noexcept {
        std::lock_guard<std::mutex> lock(programs_mutex_);
        programs_.clear();
    }

private:
    std::mutex programs_mutex_;
    std::map<std::pair<std::uint64_t, std::string>, std::shared_ptr<ProgramImpl>> programs_;
};

class KernelImpl {
public:
    virtual ~KernelImpl() = default;
    virtual void set(unsigned index, std::size_t size, const void* value) = 0;
    virtual void set_memory(unsigned index, const MemoryImpl* memory) = 0;  // null: no buffer
    virtual void set_local(unsigned index, std::size_t bytes) = 0;
    virtual std::shared_ptr<EventImpl> launch(QueueImpl& queue, std::size_t device,
                                              std::size_t global, std::size_t local,
                                              std::size_t offset) = 0;
    virtual std::size_t max_work_group_size(const Device& device) const = 0;
    virtual std::size_t preferred_multiple(const Device& device) const = 0;
    // Bytes of scalar parameter `index` where the backend can tell (CUDA); OpenCL cannot
    // without kernel argument info, but its clSetKernelArg refuses a size that differs.
    virtual std::optional<std::size_t> parameter_size(unsigned index) const = 0;
};

class ProgramImpl {
public:
    virtual ~ProgramImpl() = default;
    virtual std::vector<std::string> kernel_names() const = 0;
    virtual std::unique_ptr<KernelImpl> kernel(const std::string& name) const = 0;
};

// A program built for every device of a context, and how each device got it.
struct BuiltProgram {
    std::shared_ptr<ProgramImpl> program;
    std::vector<DeviceBuild> builds;
};

namespace opencl {
std::vector<Device> enumerate_devices();
std::shared_ptr<ContextImpl> make_context(const std::vector<Device>& devices);
BuiltProgram build(const Context& context, const Source& source, const BuildOptions& options,
                   ProgramCache& cache);
// The OpenCL objects behind handles of the OpenCL backend (UsageError for other backends).
const cl::Context& cl_context(const ContextImpl& context);
cl::CommandQueue& cl_queue(QueueImpl& queue);
const cl::Buffer& cl_buffer(const MemoryImpl& memory);
const cl::Program& cl_program(const ProgramImpl& program);
std::shared_ptr<EventImpl> make_event(cl::Event event);
} // namespace opencl

#ifdef PARTCL_WITH_CUDA
namespace cuda {
// Empty when there is no driver or no device (not an error: the machine has no NVIDIA GPU).
std::vector<Device> enumerate_devices(std::size_t first_index, std::size_t platform_index);
std::shared_ptr<ContextImpl> make_context(const std::vector<Device>& devices);
BuiltProgram build(const Context& context, const Source& source, const BuildOptions& options,
                   ProgramCache& cache);
void* stream(QueueImpl& queue);       // cudaStream_t
void* pointer(const MemoryImpl& memory);  // device address
int ordinal(QueueImpl& queue);
} // namespace cuda
#endif

} // namespace partcl::detail
