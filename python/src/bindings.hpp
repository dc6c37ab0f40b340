#pragma once
// What the module's files give each other. Everything made in a context (buffers, programs,
// kernels, models) holds it through a std::shared_ptr, which nanobind ties to the Python
// Context object: a Python object that outlives the name of its context keeps the context,
// never a dangling one.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <partcl/backend/precision.hpp>
#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/context.hpp>

namespace partcl::python {

namespace nb = nanobind;

using ContextPtr = std::shared_ptr<Context>;

// Any C-contiguous numpy array on the host, read only.
using HostArray = nb::ndarray<nb::numpy, nb::ro, nb::c_contig, nb::device::cpu>;
using WritableHostArray = nb::ndarray<nb::numpy, nb::c_contig, nb::device::cpu>;

// partcl.Buffer: device memory holding an array of one numpy dtype and shape, kept on the
// device between launches; to_numpy() copies it back.
class DeviceArray {
public:
    DeviceArray(ContextPtr context, std::vector<std::size_t> shape, nb::dlpack::dtype dtype);
    static DeviceArray from_numpy(ContextPtr context, const HostArray& array);

    const ContextPtr& context() const noexcept { return context_; }
    const Buffer<std::uint8_t>& bytes() const noexcept { return bytes_; }
    Buffer<std::uint8_t>& bytes() noexcept { return bytes_; }
    const std::vector<std::size_t>& shape() const noexcept { return shape_; }
    nb::dlpack::dtype dtype() const noexcept { return dtype_; }
    std::size_t size() const noexcept;  // elements
    std::size_t itemsize() const noexcept { return (dtype_.bits + 7) / 8; }

    void write(const void* host);       // size() elements
    void read(void* host) const;        // size() elements
    nb::object to_numpy() const;

private:
    ContextPtr context_;
    std::vector<std::size_t> shape_;
    nb::dlpack::dtype dtype_;
    Buffer<std::uint8_t> bytes_;
};

// numpy's name of a dtype ("float32"); ValueError for those partcl buffers do not hold.
std::string dtype_name(nb::dlpack::dtype dtype);
// A new numpy array of `shape` and `dtype` that owns its memory.
nb::object new_numpy(const std::vector<std::size_t>& shape, nb::dlpack::dtype dtype,
                     void** data);

void bind_errors(nb::module_& m);
void bind_runtime(nb::module_& m);
void bind_buffers(nb::module_& m);
void bind_kernels(nb::module_& m);
void bind_gravity(nb::module_& m);
void bind_simulation(nb::module_& m);

} // namespace partcl::python
