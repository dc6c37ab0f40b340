// Devices, device filters, contexts and the library's errors as Python sees them.
#include "bindings.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <partcl/backend/error.hpp>
#include <partcl/jit/source.hpp>
#include <partcl/runtime/device.hpp>
#include <partcl/runtime/filter.hpp>

namespace partcl::python {

namespace {

Backend backend_from(const std::optional<std::string>& backend) {
    return backend ? parse_backend(*backend) : backend_from_environment();
}

MemoryModel memory_model_from(const std::string& text) {
    if (text == "automatic") return MemoryModel::automatic;
    if (text == "shared") return MemoryModel::shared;
    if (text == "separate") return MemoryModel::separate;
    throw UsageError("memory must be 'automatic', 'shared' or 'separate', not '" + text + "'");
}

const char* memory_model_name(MemoryModel model) {
    switch (model) {
    case MemoryModel::automatic: return "automatic";
    case MemoryModel::shared: return "shared";
    case MemoryModel::separate: return "separate";
    }
    return "?";
}

} // namespace

void bind_errors(nb::module_& m) {
    // Translators run newest first, so each class is registered after its base.
    static nb::exception<Error> error(m, "Error", PyExc_RuntimeError);
    static nb::exception<BackendError> backend(m, "BackendError", error);
    static nb::exception<UsageError> usage(m, "UsageError", error);
    static nb::exception<Unsupported> unsupported(m, "Unsupported", error);
    static nb::exception<BuildError> build(m, "BuildError", error);
    static nb::exception<SourceError> source(m, "SourceError", error);
}

void bind_runtime(nb::module_& m) {
    nb::class_<DeviceInfo>(m, "Device", "A device as partcl found it (a plain description).")
        .def_ro("index", &DeviceInfo::index, "Position in partcl.devices(), as filters count.")
        .def_ro("name", &DeviceInfo::name)
        .def_ro("vendor", &DeviceInfo::vendor)
        .def_ro("platform", &DeviceInfo::platform)
        .def_ro("driver_version", &DeviceInfo::driver_version)
        .def_prop_ro("type", [](const DeviceInfo& d) { return std::string(to_string(d.type)); },
                     "'cpu', 'gpu', 'accelerator' or 'other'.")
        .def_prop_ro("backend", [](const DeviceInfo& d) { return std::string(to_string(d.backend)); },
                     "'opencl' or 'cuda'.")
        .def_ro("compute_units", &DeviceInfo::compute_units)
        .def_ro("clock_mhz", &DeviceInfo::clock_mhz)
        .def_ro("global_memory", &DeviceInfo::global_memory, "Bytes.")
        .def_ro("local_memory", &DeviceInfo::local_memory, "Bytes.")
        .def_ro("max_allocation", &DeviceInfo::max_allocation, "Bytes of the largest buffer.")
        .def_ro("max_work_group_size", &DeviceInfo::max_work_group_size)
        .def_ro("fp64", &DeviceInfo::fp64, "Whether the device runs double precision.")
        .def("__repr__", [](const DeviceInfo& d) { return "<partcl.Device " + describe(d) + ">"; });

    m.def(
        "devices",
        [](const std::optional<std::string>& filter, const std::optional<std::string>& backend) {
            const Backend chosen = backend_from(backend);
            std::vector<DeviceInfo> all;
            for (const Device& d : enumerate_devices(chosen)) all.push_back(d.info());
            return filter ? DeviceFilter(*filter, chosen).match(all) : all;
        },
        nb::arg("filter") = nb::none(), nb::arg("backend") = nb::none(),
        "The devices partcl can use, or those a filter selects (the syntax of partcl's --device:\n"
        "'gpu', 'cpu', 'fp64', an index, part of a name, '&' and '|'). backend: 'auto', 'opencl'\n"
        "or 'cuda' (default: PARTCL_BACKEND, else 'auto').");

    m.def("kernel_tree", &kernel_tree_location,
          "Where partcl reads its kernels from: embedded, or PARTCL_KERNEL_PATH.");

    nb::class_<Context>(m, "Context",
                        "The devices a computation runs on, with one queue each. Everything made\n"
                        "in a context keeps it alive.")
        .def(
            "__init__",
            [](Context* self, const std::optional<std::string>& filter,
               const std::optional<std::string>& backend, const std::string& memory) {
                // No filter: PARTCL_DEVICE, else partcl's default ('gpu|cpu'), as the CLI does.
                const DeviceFilter chosen =
                    filter ? DeviceFilter(*filter, backend_from(backend))
                           : DeviceFilter::from_environment({}, backend.value_or(""));
                new (self) Context(Context::devices_for(chosen), memory_model_from(memory));
            },
            nb::arg("filter") = nb::none(), nb::arg("backend") = nb::none(),
            nb::arg("memory") = "automatic",
            "A context over the devices `filter` selects on one platform (default: PARTCL_DEVICE,\n"
            "else 'gpu|cpu'). memory: 'automatic', 'shared' or 'separate'. Raises Unsupported\n"
            "when no device matches, naming those that exist.")
        .def_prop_ro("devices",
                     [](const Context& c) {
                         std::vector<DeviceInfo> infos;
                         for (const Device& d : c.devices()) infos.push_back(d.info());
                         return infos;
                     })
        .def_prop_ro("backend", [](const Context& c) { return std::string(to_string(c.backend())); })
        .def_prop_ro("memory", [](const Context& c) {
            return std::string(memory_model_name(c.memory_model()));
        })
        .def("__len__", &Context::size)
        .def("finish", &Context::finish, nb::call_guard<nb::gil_scoped_release>(),
             "Waits until every command of every device's queue has completed.")
        .def("__repr__", [](const Context& c) {
            std::string text = "<partcl.Context " + std::string(to_string(c.backend())) + ":";
            for (const Device& d : c.devices()) text += " [" + d.info().name + "]";
            return text + ">";
        });
}

} // namespace partcl::python
