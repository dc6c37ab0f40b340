#pragma once
// Kernel: one entry point of a built Program, with typed argument setting and a launch that
// rounds the global size up to whole work-groups (same on every backend) (every partcl kernel takes its real length and
// bounds-checks, so any N works).
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <partcl/jit/compiler.hpp>
#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/event.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

// A scalar of the program's `real` type: float or double as the program was built.
struct Real {
    double value;
};

// Work-group local memory of `count` elements of T.
template <class T>
struct Local {
    std::size_t count;
};

namespace detail {
class KernelImpl;
}

class Kernel {
public:
    Kernel(const Program& program, const std::string& name);

    const std::string& name() const noexcept { return name_; }
    Backend backend() const noexcept { return backend_; }

    template <class T>
    Kernel& arg(std::uint32_t index, const Buffer<T>& buffer) {
        return set_memory(index, buffer.memory());
    }
    // Dynamic local memory exists on OpenCL only (CUDA: Unsupported); partcl's kernels size
    // their local arrays with macros instead.
    template <class T>
    Kernel& arg(std::uint32_t index, Local<T> local) {
        return set_local(index, local.count * sizeof(T));
    }
    // Throws UsageError when the buffer's precision is not the program's.
    Kernel& arg(std::uint32_t index, const RealBuffer& buffer);
    Kernel& arg(std::uint32_t index, Real real);
    // An integer goes in as the kernel's parameter declares it (a std::size_t for a `uint`
    // converts), when its value fits; UsageError naming the argument when it does not. Other
    // scalars must match the parameter's size (UsageError otherwise).
    template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
    Kernel& arg(std::uint32_t index, T value) {
        if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
            if constexpr (std::is_signed_v<T>)
                return set_integer(index, static_cast<long long>(value), true, sizeof(T));
            else
                return set_integer(index, static_cast<long long>(static_cast<unsigned long long>(value)),
                                   false, sizeof(T));
        } else {
            return set(index, sizeof(T), &value);
        }
    }

    // Sets arguments 0, 1, ... in order.
    template <class... Args>
    Kernel& args(const Args&... values) {
        std::uint32_t index = 0;
        (arg(index++, values), ...);
        return *this;
    }

    // Runs work-items [offset, offset + count) in groups of `local` (0: exactly count items, in
    // whole groups of up to 256 and the rest in smaller groups, on every backend; a kernel
    // launched so must not depend on its group size). With a group size, count is rounded up to
    // whole groups, so the items up to the next multiple of `local` run too: a kernel stops them
    // with its bound check on the total length. So launches that share a range must begin on
    // multiples of `local`, or the one before would run into the next one's items: an offset
    // that is not a multiple of `local` is a UsageError (MultiDeviceLaunch::split cuts on
    // multiples of the group size).
    // count == 0 enqueues nothing and returns an empty Event. Kernels see the offset in
    // global_id(0) on every backend (CUDA: through cl/common/portable.h).
    Event launch(Queue& queue, std::size_t count, std::size_t local = 0, std::size_t offset = 0);

    // Largest work-group this kernel can use on `device`, and the size groups should be a
    // multiple of.
    std::size_t max_work_group_size(const Device& device) const;
    std::size_t preferred_multiple(const Device& device) const;

private:
    Kernel& set(std::uint32_t index, std::size_t size, const void* value);
    // `bits` is the value's two's-complement pattern, `is_signed` its type's signedness.
    Kernel& set_integer(std::uint32_t index, long long bits, bool is_signed, std::size_t size);
    Kernel& set_memory(std::uint32_t index, const Memory& memory);
    Kernel& set_local(std::uint32_t index, std::size_t bytes);

    std::string name_;
    Precision precision_;
    Backend backend_;
    std::shared_ptr<detail::KernelImpl> kernel_;
    std::vector<std::uint8_t> integer_sizes_;  // learnt per argument (0: not yet)
};

} // namespace partcl
