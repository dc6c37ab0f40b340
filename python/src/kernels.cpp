// partcl.Program and partcl.Kernel: the user's OpenCL C, built by partcl's JIT for the
// context's devices in float or double, launched with numpy arrays, buffers and scalars.
#include "bindings.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <variant>

#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <partcl/backend/error.hpp>
#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/sched/mirror.hpp>
#include <partcl/sched/multi_device_launch.hpp>

namespace partcl::python {

namespace {

struct UserProgram {
    ContextPtr context;
    Program program;
};

class UserKernel {
public:
    UserKernel(std::shared_ptr<UserProgram> program, std::string name)
        : program_(std::move(program)), name_(std::move(name)),
          kernels_(program_->context->size()) {
        const std::vector<std::string> names = program_->program.kernel_names();
        if (std::find(names.begin(), names.end(), name_) == names.end()) {
            std::string list;
            for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
            throw UsageError("no kernel '" + name_ + "' in " + program_->program.name() +
                             " (it has: " + list + ")");
        }
    }

    const std::string& name() const noexcept { return name_; }
    // Each device's share of the items of the spread launches so far (empty before the first).
    std::vector<double> shares() const {
        if (!spread_) return {};
        std::vector<double> items;
        double total = 0;
        for (const DeviceWork& w : spread_->work()) {
            items.push_back(w.items);
            total += w.items;
        }
        for (double& share : items) share = total > 0 ? share / total : 0.0;
        return items;
    }

    void call(nb::args args, std::size_t global_size, std::size_t local_size, std::size_t device,
              bool spread, std::optional<std::vector<std::size_t>> outputs);

private:
    Kernel& on(std::size_t device) {
        if (device >= kernels_.size())
            throw UsageError("kernel '" + name_ + "': device " + std::to_string(device) +
                             " of a context of " + std::to_string(kernels_.size()));
        if (!kernels_[device]) kernels_[device].emplace(program_->program, name_);
        return *kernels_[device];
    }

    std::shared_ptr<UserProgram> program_;
    std::string name_;
    std::vector<std::optional<Kernel>> kernels_;  // one per device: arguments are per kernel
    std::optional<MultiDeviceLaunch> spread_;     // its weights learn from every spread launch
    // [argument]: the buffer given there, copied to every device of separate memory for a spread
    // launch (kept between launches: copies grow, never shrink).
    std::vector<std::optional<Mirror<Buffer<std::uint8_t>>>> mirrors_;
};

// A buffer argument of one launch: the user's Buffer or one made for a numpy array.
struct BufferArgument {
    std::uint32_t index;
    DeviceArray* array;
};

// numpy's scalars (numpy.float32(1), an element of an array) carry their exact type.
bool is_numpy_scalar(nb::handle h) {
    const nb::object generic = nb::module_::import_("numpy").attr("generic");
    const int result = PyObject_IsInstance(h.ptr(), generic.ptr());
    if (result < 0) throw nb::python_error();
    return result == 1;
}

void UserKernel::call(nb::args args, std::size_t global_size, std::size_t local_size,
                      std::size_t device, bool spread,
                      std::optional<std::vector<std::size_t>> outputs) {
    const ContextPtr& context = program_->context;
    if (spread && device != 0)
        throw UsageError("kernel '" + name_ + "': a spread launch runs on every device, not on "
                         "device " + std::to_string(device));
    if (outputs && !spread)
        throw UsageError("kernel '" + name_ + "': outputs= names what a spread launch brings back "
                         "from each device; this launch runs on one");
    // Devices of separate memories each work on copies of the buffers (Mirror), from which only
    // the outputs come back, each device's items.
    const bool mirrored = spread && context->size() > 1 && !context->shares_memory();
    if (mirrored && !outputs)
        throw UsageError("kernel '" + name_ + "': a spread launch over devices of separate "
                         "memories needs outputs=[...], the arguments it writes (each device's "
                         "items are copied back from its own memory)");
    std::vector<Kernel*> targets;
    for (std::size_t d = spread ? 0 : device; d < (spread ? context->size() : device + 1); ++d)
        targets.push_back(&on(d));
    // numpy arrays go through buffers made for this launch; writable ones come back after it.
    std::vector<std::pair<DeviceArray, WritableHostArray>> returned;
    std::vector<DeviceArray> copied;
    std::vector<BufferArgument> buffers;
    copied.reserve(args.size());
    returned.reserve(args.size());
    std::uint32_t index = 0;
    const auto set = [&](const auto& value) {
        for (Kernel* kernel : targets) kernel->arg(index, value);
    };
    for (nb::handle value : args) {
        const std::string where = "kernel '" + name_ + "' argument " + std::to_string(index);
        if (nb::isinstance<DeviceArray>(value)) {
            DeviceArray& buffer = nb::cast<DeviceArray&>(value);
            if (buffer.context() != context)
                throw UsageError(where + ": a Buffer of another Context");
            set(buffer.bytes());
            buffers.push_back({index, &buffer});
        } else if (nb::isinstance<nb::bool_>(value)) {
            throw UsageError(where + ": a bool; pass 0 or 1 (OpenCL kernels take no bool)");
        } else if (is_numpy_scalar(value)) {
            // A numpy float is a float as Python's are (numpy.float64 is numpy's default, and
            // drivers need not check a scalar's size); integers keep their sign.
            const std::string kind = nb::cast<std::string>(value.attr("dtype").attr("kind"));
            if (kind == "f")
                set(Real{nb::cast<double>(value)});
            else if (kind == "i")
                set(nb::cast<long long>(value));
            else if (kind == "u")
                set(nb::cast<unsigned long long>(value));
            else
                throw UsageError(where + ": a numpy " +
                                 nb::cast<std::string>(nb::str(value.attr("dtype"))) + " scalar");
        } else if (nb::isinstance<nb::int_>(value)) {
            set(nb::cast<long long>(value));
        } else if (nb::isinstance<nb::float_>(value)) {
            set(Real{nb::cast<double>(value)});  // the program's precision
        } else if (WritableHostArray array; nb::try_cast(value, array, false)) {
            returned.emplace_back(DeviceArray::from_numpy(context, HostArray(array)), array);
            set(returned.back().first.bytes());
            buffers.push_back({index, &returned.back().first});
        } else if (HostArray array; nb::try_cast(value, array, false)) {
            copied.push_back(DeviceArray::from_numpy(context, array));
            set(copied.back().bytes());
            buffers.push_back({index, &copied.back()});
        } else if (nb::hasattr(value, "__array_interface__")) {
            throw UsageError(where + ": a numpy array that is not C-contiguous (numpy."
                             "ascontiguousarray makes one) or of a dtype partcl does not take");
        } else {
            throw UsageError(where + ": a " + nb::cast<std::string>(nb::type_name(value.type())) +
                             "; kernels take partcl.Buffer, numpy arrays, int and float");
        }
        ++index;
    }
    // Each output's bytes per work-item: item i owns elements [i k, (i + 1) k).
    std::vector<std::pair<BufferArgument, std::size_t>> written;
    for (std::size_t output : outputs.value_or(std::vector<std::size_t>())) {
        const std::string where = "kernel '" + name_ + "' outputs: argument " +
                                  std::to_string(output);
        const auto found = std::find_if(buffers.begin(), buffers.end(),
                                        [&](const BufferArgument& b) { return b.index == output; });
        if (found == buffers.end())
            throw UsageError(where + (output < args.size() ? " is not a Buffer or numpy array"
                                                           : " of a call with " +
                                                                 std::to_string(args.size())));
        const std::size_t elements = found->array->size();
        if (global_size == 0 || elements % global_size != 0)
            throw UsageError(where + ": " + std::to_string(elements) + " elements for " +
                             std::to_string(global_size) + " work-items; an output holds the "
                             "same number of elements for every item");
        written.emplace_back(*found, elements / global_size * found->array->itemsize());
    }
    if (mirrored) {
        mirrors_.resize(std::max(mirrors_.size(), args.size()));
        for (const BufferArgument& b : buffers) {
            auto& mirror = mirrors_[b.index];
            if (!mirror) mirror.emplace(*context);
            mirror->update(b.array->bytes(), b.array->bytes().size());
            for (std::size_t d = 1; d < context->size(); ++d) on(d).arg(b.index, mirror->on(d));
        }
    }
    {
        nb::gil_scoped_release release;
        if (spread) {
            if (!spread_) spread_.emplace(*context, "kernel " + name_);
            // Each device runs whole groups of its range, at its offset: global_id counts from
            // the launch's first item on every device.
            const Partition parts = spread_->split(global_size, local_size ? local_size : 1);
            spread_->run(parts, [&](std::size_t d, Range r) {
                return on(d).launch(context->queue(d), r.size(), local_size, r.begin);
            });
            if (mirrored)
                for (auto& [output, per_item] : written)
                    mirrors_[output.index]->collect(parts, output.array->bytes(), per_item);
            context->finish();
        } else {
            on(device).launch(context->queue(device), global_size, local_size);
            context->queue(device).finish();
        }
    }
    for (auto& [buffer, array] : returned) buffer.read(array.data());
}

std::string text_of(const BuildOptions& options) {
    std::string text;
    for (const auto& flag : options.macro_options()) text += (text.empty() ? "" : " ") + flag;
    return text;
}

} // namespace

void bind_kernels(nb::module_& m) {
    nb::class_<UserProgram>(m, "Program",
                            "OpenCL C built by partcl's JIT for every device of a context.")
        .def(
            "__init__",
            [](UserProgram* self, ContextPtr context, nb::handle source,
               const std::string& precision, std::optional<nb::dict> defines,
               const std::string& name, const std::vector<std::filesystem::path>& include_dirs) {
                BuildOptions options;
                options.precision = parse_precision(precision);
                options.include_dirs = include_dirs;
                if (defines)
                    for (auto [key, value] : *defines) {
                        const std::string macro = nb::cast<std::string>(nb::str(key));
                        if (value.is_none())
                            options.define(macro);
                        else if (nb::isinstance<nb::bool_>(value))
                            options.define(macro, nb::cast<bool>(value) ? 1 : 0);
                        else
                            options.define(macro, nb::cast<std::string>(nb::str(value)));
                    }
                const Source text =
                    nb::isinstance<nb::str>(source)
                        ? Source::from_string(name, nb::cast<std::string>(source))
                        : Source::from_file(nb::cast<std::filesystem::path>(source));
                Program program = [&] {
                    nb::gil_scoped_release release;
                    return build_program(*context, text, options);
                }();
                new (self) UserProgram{std::move(context), std::move(program)};
            },
            nb::arg("context"), nb::arg("source"), nb::arg("precision") = "float",
            nb::arg("defines") = nb::none(), nb::arg("name") = "program.cl",
            nb::arg("include_dirs") = std::vector<std::filesystem::path>(),
            "source: the program's text (str; messages call it `name`) or a path to a .cl file.\n"
            "precision: 'float' or 'double', what `real` is in kernels that include\n"
            "\"common/real.h\" (partcl's kernel tree is on the include path). defines: macros,\n"
            "{name: value or None}. Raises BuildError with the compiler's log (file:line).")
        .def_prop_ro("kernel_names",
                     [](const UserProgram& p) { return p.program.kernel_names(); })
        .def_prop_ro("precision",
                     [](const UserProgram& p) { return std::string(to_string(p.program.precision())); })
        .def_prop_ro("name", [](const UserProgram& p) { return p.program.name(); })
        .def_prop_ro("options", [](const UserProgram& p) { return text_of(p.program.options()); },
                     "The macros the compiler got (-DPARTCL_DOUBLE=1 for double, the defines).")
        .def_prop_ro("context", [](const UserProgram& p) { return p.context; })
        .def_prop_ro("build_log",
                     [](const UserProgram& p) {
                         std::string log;
                         for (const auto& b : p.program.builds())
                             if (!b.log.empty()) log += b.device + ":\n" + b.log + "\n";
                         return log;
                     },
                     "The compilers' warnings, per device (empty when there were none).")
        .def(
            "kernel",
            [](nb::handle self, const std::string& name) {
                return UserKernel(nb::cast<std::shared_ptr<UserProgram>>(self), name);
            },
            nb::arg("name"), "The kernel `name` (UsageError naming those there are).");

    nb::class_<UserKernel>(m, "Kernel", "One kernel of a Program; call it to launch it.")
        .def_prop_ro("name", &UserKernel::name)
        .def_prop_ro("shares", &UserKernel::shares,
                     "Each device's share of the work-items of this kernel's spread launches.")
        .def("__call__", &UserKernel::call, nb::arg("args"), nb::kw_only(),
             nb::arg("global_size"), nb::arg("local_size") = 0, nb::arg("device") = 0,
             nb::arg("spread") = false, nb::arg("outputs") = nb::none(),
             "Runs global_size work-items (rounded up to whole groups of local_size; 0: the\n"
             "driver's choice) on the context's device `device` and waits for them; spread=True\n"
             "cuts them between every device of the context by measured speed, each device\n"
             "running whole groups at its offset. outputs: the indices of the arguments a spread\n"
             "launch writes, needed where the devices have separate memories (each works on\n"
             "copies of the buffers; item i's elements [i k, (i + 1) k) of each output come back\n"
             "from the device that ran it, k = elements / global_size). Arguments\n"
             "in order: partcl.Buffer (stays on the device), numpy arrays (C-contiguous; copied\n"
             "in, and back out unless read-only), int and numpy integers (any integer parameter\n"
             "the value fits), float and numpy floats (the program's real).");
}

} // namespace partcl::python
