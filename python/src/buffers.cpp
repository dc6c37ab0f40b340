// partcl.Buffer: numpy arrays on the device, and numpy arrays made from device memory.
#include "bindings.hpp"

#include <cstring>
#include <numeric>

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <partcl/backend/error.hpp>
#include <partcl/backend/opencl/error.hpp>
#include <partcl/backend/native.hpp>
#include <partcl/backend/opencl/interop.hpp>

namespace partcl::python {

namespace {

void check_dtype(nb::dlpack::dtype dtype) { dtype_name(dtype); }

nb::dlpack::dtype dtype_from(nb::handle any) {
    // numpy reads every spelling of a dtype ("float32", numpy.float32, "f4", ...).
    const std::string name =
        nb::cast<std::string>(nb::module_::import_("numpy").attr("dtype")(any).attr("name"));
    for (const auto code : {nb::dlpack::dtype_code::Int, nb::dlpack::dtype_code::UInt,
                            nb::dlpack::dtype_code::Float})
        for (std::uint8_t bits : {8, 16, 32, 64}) {
            const nb::dlpack::dtype candidate{std::uint8_t(code), bits, 1};
            if (code == nb::dlpack::dtype_code::Float && bits < 32) continue;
            if (dtype_name(candidate) == name) return candidate;
        }
    throw UsageError("partcl buffers hold float32, float64 and integers of 8 to 64 bits, not " +
                     name);
}

// A buffer's memory mapped into the host for as long as a DLPack consumer holds it: on a CPU
// device the mapping is the buffer's storage itself, so both sides see each other's writes
// (after the launch that wrote them has finished, as every partcl launch from Python has).
class HostMapping {
public:
    explicit HostMapping(const DeviceArray& array) : array_(array) {
        Queue& queue = array_.context()->queue(0);
        queue_ = opencl::native(queue);
        buffer_ = opencl::native(array_.bytes());
        cl_int status = CL_SUCCESS;
        pointer_ = queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                           array_.bytes().size(), nullptr, nullptr, &status);
        opencl::check(status, "clEnqueueMapBuffer");
    }
    ~HostMapping() {
        queue_.enqueueUnmapMemObject(buffer_, pointer_);
        queue_.finish();
    }
    HostMapping(const HostMapping&) = delete;
    HostMapping& operator=(const HostMapping&) = delete;
    void* pointer() const { return pointer_; }

private:
    DeviceArray array_;  // keeps the memory and its context
    cl::CommandQueue queue_;
    cl::Buffer buffer_;
    void* pointer_ = nullptr;
};

// DLPack's device of a buffer, where a consumer can reach its memory itself: the host's on CPU
// devices (through an OpenCL map), the GPU's under the CUDA backend. Unsupported elsewhere.
struct DlpackDevice {
    int type;  // nb::device::cpu::value or cuda::value (DLPack's kDLCPU, kDLCUDA)
    int id;
};

DlpackDevice dlpack_device(const DeviceArray& array) {
    const Context& context = *array.context();
    const DeviceInfo& device = context.device(0).info();
    if (context.backend() == Backend::opencl && device.type == DeviceType::cpu) return {nb::device::cpu::value, 0};
    if (context.backend() == Backend::cuda) {
        // Over several GPUs a buffer may be managed memory (without peer access), which DLPack
        // calls another device; one GPU's buffers are plain device memory.
        for (std::size_t d = 1; d < context.size(); ++d)
            if (context.device(d).ordinal() != context.device(0).ordinal())
                throw Unsupported("Buffer.__dlpack__: a buffer of a context over several GPUs; "
                                  "export from a context of one (to_numpy() copies from any)");
        return {nb::device::cuda::value, context.device(0).ordinal()};
    }
    throw Unsupported("Buffer.__dlpack__: " + device.name + " (" + to_string(device.backend) +
                      ") memory is neither the host's nor a CUDA device's; DLPack export is for "
                      "buffers of CPU devices and of the CUDA backend (to_numpy() copies from "
                      "any device)");
}

nb::object dlpack_view(const DeviceArray& array) {
    const DlpackDevice device = dlpack_device(array);
    if (device.type == nb::device::cuda::value) {
        // Every partcl command done first, so the consumer's stream, whichever it is, reads
        // the buffer complete.
        {
            nb::gil_scoped_release release;
            array.context()->finish();
        }
        void* data = detail::native_memory(array.bytes().memory(), Backend::cuda,
                                           "Buffer.__dlpack__");
        auto* kept = new DeviceArray(array);  // the memory lives while the consumer holds it
        nb::capsule owner(kept, [](void* p) noexcept { delete static_cast<DeviceArray*>(p); });
        // nanobind's own array object, whose __dlpack__ speaks every version of the protocol.
        return nb::ndarray<nb::array_api>(data, array.shape().size(), array.shape().data(), owner,
                                          nullptr, array.dtype(), nb::device::cuda::value,
                                          device.id)
            .cast();
    }
    if (array.bytes().empty()) {
        void* data = nullptr;
        return new_numpy(array.shape(), array.dtype(), &data);
    }
    auto* mapping = new HostMapping(array);
    nb::capsule owner(mapping, [](void* p) noexcept { delete static_cast<HostMapping*>(p); });
    // A numpy view of it, whose own __dlpack__ speaks every version of the protocol.
    return nb::ndarray<nb::numpy>(mapping->pointer(), array.shape().size(), array.shape().data(),
                                  owner, nullptr, array.dtype())
        .cast();
}

} // namespace

std::string dtype_name(nb::dlpack::dtype dtype) {
    const bool one = dtype.lanes == 1;
    const std::string bits = std::to_string(dtype.bits);
    if (one && dtype.code == std::uint8_t(nb::dlpack::dtype_code::Float) &&
        (dtype.bits == 32 || dtype.bits == 64))
        return "float" + bits;
    if (one && (dtype.bits == 8 || dtype.bits == 16 || dtype.bits == 32 || dtype.bits == 64)) {
        if (dtype.code == std::uint8_t(nb::dlpack::dtype_code::Int)) return "int" + bits;
        if (dtype.code == std::uint8_t(nb::dlpack::dtype_code::UInt)) return "uint" + bits;
    }
    throw UsageError("partcl buffers hold float32, float64 and integers of 8 to 64 bits, not "
                     "this array's (DLPack type code " + std::to_string(dtype.code) + ", " + bits +
                     " bits, " + std::to_string(dtype.lanes) + " lanes)");
}

nb::object new_numpy(const std::vector<std::size_t>& shape, nb::dlpack::dtype dtype,
                     void** data) {
    const std::size_t count =
        std::accumulate(shape.begin(), shape.end(), std::size_t(1), std::multiplies<>());
    auto* memory = new std::uint8_t[std::max<std::size_t>(1, count * ((dtype.bits + 7) / 8))];
    nb::capsule owner(memory, [](void* p) noexcept { delete[] static_cast<std::uint8_t*>(p); });
    *data = memory;
    return nb::ndarray<nb::numpy>(memory, shape.size(), shape.data(), owner, nullptr, dtype)
        .cast();
}

DeviceArray::DeviceArray(ContextPtr context, std::vector<std::size_t> shape,
                         nb::dlpack::dtype dtype)
    : context_(std::move(context)), shape_(std::move(shape)), dtype_(dtype) {
    check_dtype(dtype);
    bytes_ = Buffer<std::uint8_t>(*context_, size() * itemsize());
}

DeviceArray DeviceArray::from_numpy(ContextPtr context, const HostArray& array) {
    std::vector<std::size_t> shape(array.ndim());
    for (std::size_t a = 0; a < shape.size(); ++a) shape[a] = array.shape(a);
    DeviceArray result(std::move(context), std::move(shape), array.dtype());
    result.write(array.data());
    return result;
}

std::size_t DeviceArray::size() const noexcept {
    return std::accumulate(shape_.begin(), shape_.end(), std::size_t(1), std::multiplies<>());
}

void DeviceArray::write(const void* host) {
    if (bytes_.empty()) return;
    bytes_.write(context_->queue(0), static_cast<const std::uint8_t*>(host), bytes_.size())
        .wait();
}

void DeviceArray::read(void* host) const {
    if (bytes_.empty()) return;
    // Every queue first, so a launch on any device is in what comes back.
    context_->finish();
    bytes_.read(context_->queue(0), static_cast<std::uint8_t*>(host), bytes_.size());
}

nb::object DeviceArray::to_numpy() const {
    void* data = nullptr;
    nb::object array = new_numpy(shape_, dtype_, &data);
    {
        nb::gil_scoped_release release;
        read(data);
    }
    return array;
}

void bind_buffers(nb::module_& m) {
    nb::class_<DeviceArray>(m, "Buffer",
                            "An array in device memory, of one numpy dtype and shape. It stays on\n"
                            "the device between kernel launches; to_numpy() copies it back.")
        .def(
            "__init__",
            [](DeviceArray* self, ContextPtr context, nb::handle shape, nb::handle dtype) {
                std::vector<std::size_t> dims;
                if (nb::isinstance<nb::int_>(shape))
                    dims.push_back(nb::cast<std::size_t>(shape));
                else
                    dims = nb::cast<std::vector<std::size_t>>(shape);
                new (self) DeviceArray(std::move(context), std::move(dims), dtype_from(dtype));
            },
            nb::arg("context"), nb::arg("shape"), nb::arg("dtype") = "float32",
            "An uninitialised buffer of `shape` (an int or a sequence) and `dtype`.")
        .def_static("from_numpy", &DeviceArray::from_numpy, nb::arg("context"), nb::arg("array"),
                    "A buffer holding a copy of a C-contiguous numpy array.")
        .def("to_numpy", &DeviceArray::to_numpy,
             "A new numpy array with the buffer's contents (after every queued command).")
        .def(
            "write",
            [](DeviceArray& self, const HostArray& array) {
                if (array.nbytes() != self.size() * self.itemsize() ||
                    dtype_name(array.dtype()) != dtype_name(self.dtype()))
                    throw UsageError("Buffer.write: an array of " + std::to_string(array.size()) +
                                     " " + dtype_name(array.dtype()) + " into a buffer of " +
                                     std::to_string(self.size()) + " " +
                                     dtype_name(self.dtype()));
                self.write(array.data());
            },
            nb::arg("array"), "Copies a numpy array of the buffer's size and dtype in.")
        .def(
            "__dlpack__",
            [](const DeviceArray& self, nb::kwargs kwargs) {
                return dlpack_view(self).attr("__dlpack__")(**kwargs);
            },
            "The buffer's memory, without a copy, for numpy.from_dlpack, torch.from_dlpack,\n"
            "cupy.from_dlpack and the like: on CPU devices (OpenCL) the host memory of the\n"
            "buffer, mapped while the consumer holds it; under the CUDA backend the GPU memory\n"
            "itself, after every partcl command has finished (a consumer's later writes must be\n"
            "finished, e.g. torch.cuda.synchronize(), before a partcl launch reads them).\n"
            "Unsupported on other devices (to_numpy() copies).")
        .def("__dlpack_device__", [](const DeviceArray& self) {
            const DlpackDevice device = dlpack_device(self);
            return nb::make_tuple(device.type, device.id);  // kDLCPU or kDLCUDA, and its number
        })
        .def_prop_ro("shape", [](const DeviceArray& b) { return nb::tuple(nb::cast(b.shape())); })
        .def_prop_ro("dtype", [](const DeviceArray& b) {
            return nb::module_::import_("numpy").attr("dtype")(dtype_name(b.dtype()));
        })
        .def_prop_ro("size", &DeviceArray::size)
        .def_prop_ro("nbytes", [](const DeviceArray& b) { return b.size() * b.itemsize(); })
        .def_prop_ro("context", &DeviceArray::context)
        .def("__repr__", [](const DeviceArray& b) {
            std::string shape;
            for (std::size_t d : b.shape()) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
            return "<partcl.Buffer (" + shape + ") " + dtype_name(b.dtype()) + ">";
        });
}

} // namespace partcl::python
