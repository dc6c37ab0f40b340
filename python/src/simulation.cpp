// partcl._Simulation: a scenario's run (run/run_loop.hpp) driven from Python a step at a time
// or to a time, with its state as numpy arrays; partcl.Simulation (simulation.py) adds the
// progress display and the diagnostics table.
#include "bindings.hpp"

#include <cmath>
#include <filesystem>

#include <nanobind/stl/filesystem.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <partcl/backend/error.hpp>
#include <partcl/io/checkpoint.hpp>
#include <partcl/run/run_length.hpp>
#include <partcl/run/run_loop.hpp>
#include <partcl/run/scenario.hpp>

namespace partcl::python {

namespace {

Scenario scenario_from(nb::handle scenario) {
    if (nb::isinstance<nb::str>(scenario)) return find_scenario(nb::cast<std::string>(scenario));
    if (nb::isinstance<nb::dict>(scenario)) {
        const nb::object text = nb::module_::import_("partcl._toml").attr("dumps")(scenario);
        return parse_scenario(nb::cast<std::string>(text), "scenario dict");
    }
    if (nb::hasattr(scenario, "__fspath__"))
        return load_scenario(nb::cast<std::filesystem::path>(scenario));
    throw UsageError("a scenario is a built-in name, a TOML file's path or a dict, not a " +
                     nb::cast<std::string>(nb::type_name(scenario.type())));
}

nb::dict progress_dict(const RunProgress& p) {
    nb::dict d;
    d["step"] = p.step;
    d["steps"] = p.steps;
    d["time"] = p.time;
    d["end_time"] = p.end_time;
    d["wall_seconds"] = p.wall_seconds;
    d["steps_per_second"] = p.steps_per_second;
    d["eta_seconds"] = p.eta_seconds;
    d["fraction"] = p.fraction;
    d["done"] = p.done;
    d["text"] = p.text;
    return d;
}

class Simulation {
public:
    Simulation(ContextPtr context, const Scenario& scenario, std::filesystem::path out)
        : context_(std::move(context)), loop_(*context_, scenario, std::move(out)) {}
    // The run a checkpoint holds, continued into `out`.
    Simulation(ContextPtr context, const std::filesystem::path& checkpoint,
               std::filesystem::path out, RunLength length)
        : context_(std::move(context)),
          loop_(RunLoop::resume(*context_, read_checkpoint(checkpoint), checkpoint, std::move(out),
                                length)) {}

    RunLoop& loop() { return loop_; }
    const ContextPtr& context() const { return context_; }

    // Steps until the run ends, `steps` more steps were taken, or the time reached `until`;
    // `progress` (when not None) gets each of the loop's reports as a dict.
    bool advance(std::optional<std::uint64_t> steps, std::optional<double> until,
                 nb::object progress) {
        if (steps && until) throw UsageError("run: give steps or until, not both");
        if (until && !std::isfinite(*until)) throw UsageError("run: until must be finite");
        loop_.on_progress([&progress](const RunProgress& p) {
            nb::gil_scoped_acquire acquire;
            if (PyErr_CheckSignals() != 0) throw nb::python_error();  // Ctrl-C
            if (!progress.is_none()) progress(progress_dict(p));
        });
        // The callback refers to `progress`: it goes when this call does, by return or throw.
        struct Forget {
            RunLoop& loop;
            ~Forget() { loop.on_progress({}); }
        } forget{loop_};
        const std::uint64_t first = loop_.model().step();
        bool stepped = false;
        {
            nb::gil_scoped_release release;
            loop_.start();
            while (!(steps && loop_.model().step() - first >= *steps) &&
                   !(until && loop_.model().time() >= *until) && loop_.step())
                stepped = true;
        }
        return stepped;
    }

    nb::dict state() {
        std::vector<StateArray> arrays;
        {
            nb::gil_scoped_release release;
            arrays = loop_.model().state();
        }
        nb::dict result;
        for (const StateArray& a : arrays) {
            void* data = nullptr;
            nb::object array = new_numpy(a.shape, nb::dtype<double>(), &data);
            std::copy(a.values.begin(), a.values.end(), static_cast<double*>(data));
            result[a.name.c_str()] = array;
        }
        return result;
    }

    nb::dict summary() const {
        const RunSummary s = loop_.summary();
        nb::dict d;
        d["first_step"] = s.first_step;
        d["last_step"] = s.last_step;
        d["time"] = s.time;
        d["wall_seconds"] = s.wall_seconds;
        d["steps_per_second"] = s.steps_per_second;
        d["frames"] = s.frames;
        d["snapshots"] = s.snapshots;
        nb::list files;
        for (const auto& f : s.files) files.append(f.string());
        d["files"] = files;
        d["lines"] = s.lines;
        return d;
    }

private:
    ContextPtr context_;  // first, so the loop goes before its context
    RunLoop loop_;
};

} // namespace

void bind_simulation(nb::module_& m) {
    nb::class_<Simulation>(m, "_Simulation")
        .def(
            "__init__",
            [](Simulation* self, ContextPtr context, nb::handle scenario,
               const std::filesystem::path& out) {
                const Scenario s = scenario_from(scenario);
                nb::gil_scoped_release release;
                new (self) Simulation(std::move(context), s, out);
            },
            nb::arg("context"), nb::arg("scenario"), nb::arg("out") = "out")
        .def_static(
            "_resume",
            [](nb::handle cls, ContextPtr context, const std::filesystem::path& checkpoint,
               const std::filesystem::path& out, std::optional<std::uint64_t> steps,
               std::optional<double> end_time) {
                RunLength length;
                if (steps) length.steps = *steps;
                if (end_time) length.end_time = *end_time;
                // An instance of `cls` (partcl.Simulation), made without its __init__.
                nb::object self = nb::inst_alloc(cls);
                {
                    nb::gil_scoped_release release;
                    new (nb::inst_ptr<Simulation>(self))
                        Simulation(std::move(context), checkpoint, out, length);
                }
                nb::inst_mark_ready(self);
                return self;
            },
            nb::arg("cls"), nb::arg("context"), nb::arg("checkpoint"), nb::arg("out"),
            nb::arg("steps").none(), nb::arg("end_time").none())
        .def("_advance", &Simulation::advance, nb::arg("steps").none(), nb::arg("until").none(),
             nb::arg("progress").none())
        .def("state", &Simulation::state,
             "The state now, as float64 numpy arrays by name: N-body 'position' and 'velocity'\n"
             "(N, 3), 'mass' (N,); MPS 'position', 'velocity' (N, dimensions), 'type', 'pressure';\n"
             "PIC 'position', 'velocity' (N, dimensions), 'species'.")
        .def("summary", &Simulation::summary,
             "What the run has done so far: steps, time, wall time, files written, and the\n"
             "summary's lines as partcl run prints them.")
        .def_prop_ro("step_count", [](Simulation& s) { return s.loop().model().step(); })
        .def_prop_ro("time", [](Simulation& s) { return s.loop().model().time(); })
        .def_prop_ro("finished", [](Simulation& s) { return s.loop().finished(); })
        .def_prop_ro("title", [](Simulation& s) { return s.loop().title(); })
        .def_prop_ro("scenario_toml", [](Simulation& s) { return to_toml(s.loop().scenario()); })
        .def_prop_ro("csv_text", [](Simulation& s) { return s.loop().csv_text(); })
        .def_prop_ro("context", &Simulation::context);
}

} // namespace partcl::python
