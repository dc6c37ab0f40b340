#pragma once
// What a backend implements. The public classes (Context, Queue, Memory, Event, Program,
// Kernel) are handles over these; each backend folder (opencl/, cuda/) implements them all, in
// the same files, so a backend is read, and a new one added, by this shape. Objects of one
// backend only ever meet objects of the same backend (the public classes check), so
// implementations downcast freely. Everything here is of the backend layer (the bottom one):
// plain values (DeviceInfo, BuildOptions, Precision) and these interfaces, never the runtime's
// or jit's classes, so the layers above use the backends and not the other way round.
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <partcl/backend/backend.hpp>
#include <partcl/backend/build.hpp>
#include <partcl/backend/device_info.hpp>
#include <partcl/backend/precision.hpp>

namespace partcl::detail {

class EventImpl {
public:
    virtual ~EventImpl() = default;
    virtual void wait() = 0;
    virtual double seconds() = 0;  // device time of the command; waits first
    // Device time from the end of `earlier`, an event of the same backend and queue, to the
    // end of this one; waits first.
    virtual double seconds_since(EventImpl& earlier) = 0;
};

class MemoryImpl : public std::enable_shared_from_this<MemoryImpl> {
public:
    virtual ~MemoryImpl() = default;
    virtual void* native() const = 0;  // cl_mem, or the device address
    // Bytes [offset, offset + bytes) (bytes > 0, inside this memory) as memory of their own,
    // keeping this one alive: an OpenCL sub-buffer, whose writes may run on one device while
    // another writes a disjoint sub-buffer of the same buffer; a CUDA address plus offset.
    // Null where the backend refuses the offset (OpenCL: not a multiple of every device's
    // CL_DEVICE_MEM_BASE_ADDR_ALIGN).
    virtual std::shared_ptr<MemoryImpl> region(std::size_t offset, std::size_t bytes) = 0;
};

// `rows` rows of `row_bytes` bytes: row r from from_offset + r * from_pitch to to_offset + r *
// to_pitch (a structure of arrays' components in one command). Pitches are at least row_bytes.
struct RowsCopy {
    std::size_t from_offset = 0, from_pitch = 0, to_offset = 0, to_pitch = 0, row_bytes = 0, rows = 0;
};

class QueueImpl {
public:
    virtual ~QueueImpl() = default;
    virtual void* native() const = 0;  // cl_command_queue, or cudaStream_t
    virtual void finish() = 0;
    virtual std::shared_ptr<EventImpl> write(MemoryImpl& memory, std::size_t offset,
                                             std::size_t bytes, const void* host, bool blocking) = 0;
    virtual void read(const MemoryImpl& memory, std::size_t offset, std::size_t bytes,
                      void* host) = 0;
    virtual std::shared_ptr<EventImpl> copy(const MemoryImpl& from, std::size_t from_offset,
                                            MemoryImpl& to, std::size_t to_offset,
                                            std::size_t bytes) = 0;
    // Rows of two distinct memories (rows > 1, each > 0 bytes, inside both).
    virtual std::shared_ptr<EventImpl> copy_rows(const MemoryImpl& from, MemoryImpl& to,
                                                 const RowsCopy& rows) = 0;
    // Repeats `pattern` (1, 2, 4 or 8 bytes) over [offset, offset + bytes).
    virtual std::shared_ptr<EventImpl> fill(MemoryImpl& memory, const void* pattern,
                                            std::size_t pattern_size, std::size_t offset,
                                            std::size_t bytes) = 0;
    // An event that completes once every command enqueued so far on this queue has (OpenCL:
    // clEnqueueMarkerWithWaitList; CUDA: cudaEventRecord).
    virtual std::shared_ptr<EventImpl> marker() = 0;
    // Commands enqueued on this queue from now on start only after `event`, an event of any
    // queue of the same context, has completed; the host does not wait (OpenCL:
    // clEnqueueBarrierWithWaitList; CUDA: cudaStreamWaitEvent).
    virtual void wait_for(EventImpl& event) = 0;
};

class ProgramImpl;

class ContextImpl {
public:
    virtual ~ContextImpl() = default;
    virtual void* native() const = 0;  // cl_context; CUDA has none (null)
    virtual std::shared_ptr<QueueImpl> queue(std::size_t device) = 0;
    // Refuses more than a device's largest buffer (DeviceInfo::max_allocation), naming both.
    // Without `home` every device of the context uses the memory; with it, only the device of
    // that entry does, and the memory lives where that device works fastest (CUDA: on it).
    virtual std::shared_ptr<MemoryImpl> allocate(std::size_t bytes,
                                                 std::optional<std::size_t> home) = 0;

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
    // As set(), but false, setting nothing, where the backend refuses the size for that
    // parameter (OpenCL's CL_INVALID_ARG_SIZE): how an integer finds its parameter's size.
    virtual bool set_if_size(unsigned index, std::size_t size, const void* value) = 0;
    virtual void set_memory(unsigned index, const MemoryImpl* memory) = 0;  // null: no buffer
    virtual void set_local(unsigned index, std::size_t bytes) = 0;
    virtual std::shared_ptr<EventImpl> launch(QueueImpl& queue, std::size_t device,
                                              std::size_t global, std::size_t local,
                                              std::size_t offset) = 0;
    virtual std::size_t max_work_group_size(const BackendDevice& device) const = 0;
    virtual std::size_t preferred_multiple(const BackendDevice& device) const = 0;
    // Bytes of scalar parameter `index` where the backend can tell (CUDA); OpenCL cannot
    // without kernel argument info, but its clSetKernelArg refuses a size that differs.
    virtual std::optional<std::size_t> parameter_size(unsigned index) const = 0;
};

class ProgramImpl {
public:
    virtual ~ProgramImpl() = default;
    virtual void* native() const = 0;  // cl_program; CUDA's are per architecture (null)
    virtual std::vector<std::string> kernel_names() const = 0;
    virtual std::unique_ptr<KernelImpl> kernel(const std::string& name) const = 0;
};

// A program built for every device of a context, and how each device got it.
struct BuiltProgram {
    std::shared_ptr<ProgramImpl> program;
    std::vector<DeviceBuild> builds;
};

// What a backend compiles: a program's source with its includes inlined (Source::expand, whose
// `#line` markers map_log_locations reads), and the name messages give it.
struct ProgramSource {
    std::string name;
    std::string expanded;
};

// The program cache as a backend's compiler sees it: binaries on disk by key, and the programs
// already built for the context in memory. The jit layer's ProgramCache is behind it
// (lib/jit/binary_cache.hpp).
class BinaryCache {
public:
    virtual ~BinaryCache() = default;
    virtual std::string key(const std::string& expanded, const std::string& options,
                            const DeviceInfo& device) const = 0;
    virtual std::optional<std::vector<unsigned char>> load(const std::string& key) const = 0;
    // `program`, `device` and `options` describe the entry for `partcl cache list`.
    virtual void store(const std::string& key, const std::string& program,
                       const std::string& device, const std::string& options,
                       const std::vector<unsigned char>& binary) const = 0;
    virtual void remove(const std::string& key) const = 0;
    virtual std::shared_ptr<ProgramImpl> find(const std::string& key) const = 0;
    virtual void remember(const std::string& key, std::shared_ptr<ProgramImpl> program) const = 0;
};

// A grid's FFT plan, made by a backend with its FFT library (VkFFT, cuFFT).
class FftPlan {
public:
    virtual ~FftPlan() = default;
    // direction -1: forward, +1: inverse; in place on the interleaved complex grid.
    virtual void run(QueueImpl& queue, MemoryImpl& data, int direction) = 0;
};

// The keys sort_by_key sorts: 32-bit unsigned, float or double.
enum class SortKey { u32, f32, f64 };

// What reduce combines values[0, n) with.
enum class Reduction { sum, min, max };

// One backend: its devices, contexts and compiler, and the device algorithms (lib/algorithm)
// done with its own libraries (Boost.Compute and VkFFT for OpenCL, CUB and cuFFT for CUDA).
// OpenCL's is part of libpartcl; CUDA's lives in libpartcl-cuda, loaded on first use, so a
// program that never asks for CUDA needs none of the CUDA libraries (backend/loader.cpp).
class BackendImpl {
public:
    virtual ~BackendImpl() = default;
    // Devices numbered from first_index, platforms from platform_index. Empty when the
    // driver has none (not an error).
    virtual std::vector<BackendDevice> enumerate_devices(std::size_t first_index,
                                                         std::size_t platform_index) = 0;
    // `separate_memories`: the runtime keeps the devices' memories apart (MemoryModel::separate),
    // so copies between memories of different homes are between devices, the backend's to make
    // fast.
    virtual std::shared_ptr<ContextImpl> make_context(const std::vector<BackendDevice>& devices,
                                                      bool separate_memories) = 0;
    // For every device of `context` (`devices`, in its order).
    virtual BuiltProgram build(ContextImpl& context, const std::vector<BackendDevice>& devices,
                               const ProgramSource& source, const BuildOptions& options,
                               const BinaryCache& cache) = 0;

    // Stable ascending sort of keys[0, n) carrying values (u32); u32 keys: the low key_bits.
    virtual void sort_by_key(QueueImpl& queue, const MemoryImpl& keys, SortKey key_type,
                             const MemoryImpl& values, std::size_t n, unsigned key_bits) = 0;
    // out[i] = in[0] + ... + in[i - 1] of u32; in == out allowed.
    virtual void exclusive_scan(QueueImpl& queue, const MemoryImpl& in, const MemoryImpl& out,
                                std::size_t n) = 0;
    // values[0, n) (n > 0) of `precision` combined by `op`, in that precision, in the
    // library's order.
    virtual double reduce(QueueImpl& queue, const MemoryImpl& values, Precision precision,
                          std::size_t n, Reduction op) = 0;
    // For device `index` of `context` (`device`): the transforms along the axes where
    // `axes` is true, one for each index of the others (at least one axis of size > 1 is
    // transformed).
    virtual std::unique_ptr<FftPlan> fft_plan(ContextImpl& context, const BackendDevice& device,
                                              std::size_t index, Precision precision,
                                              const std::array<std::size_t, 3>& shape,
                                              const std::array<bool, 3>& axes) = 0;
};

// The backend of that name (not `automatic`); throws Unsupported naming why when it is not
// there (CUDA: not built, or its library or the CUDA libraries it needs cannot be loaded).
BackendImpl& backend(Backend which);
// CUDA's backend, or null (with the reason in `why` when given).
BackendImpl* cuda_backend(std::string* why = nullptr);

namespace opencl {
BackendImpl& backend();
} // namespace opencl

} // namespace partcl::detail
