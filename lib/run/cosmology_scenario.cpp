// The cosmological box's scenario table beside its run (cosmology_run.cpp): [cosmology].
#include <partcl/run/scenario.hpp>

#include <cmath>

#include <partcl/models/nbody/gravity_options.hpp>

#include "run/model_tables.hpp"

namespace partcl {

const std::vector<std::string>& cosmology_start_names() {
    static const std::vector<std::string> names = names_of(cosmology_starts);
    return names;
}

namespace detail {

namespace {

using C = Scenario::Cosmology;

std::string in_range(double v, double low, double high, bool open_low = false) {
    if (!std::isfinite(v)) return finite(v);
    const bool above = open_low ? v > low : v >= low;
    return above && v <= high ? ok()
                              : "must be in " + std::string(open_low ? "(" : "[") + format_number(low) +
                                    ", " + format_number(high) + "] (got " + format_number(v) + ")";
}

bool lattice(const S& s) { return s.cosmology.initial != CosmologyStart::gadget; }

std::string check_outputs(const S& s) {
    const C& c = s.cosmology;
    if (c.output_redshifts.empty()) return "must list at least one redshift";
    if (c.output_redshifts.size() > 1000)
        return "lists " + std::to_string(c.output_redshifts.size()) + " redshifts, at most 1000";
    for (std::size_t i = 0; i < c.output_redshifts.size(); ++i) {
        const double z = c.output_redshifts[i];
        if (!(z >= 0 && std::isfinite(z))) return "must be finite and at least 0 (got " + format_number(z) + ")";
        if (i > 0 && !(z < c.output_redshifts[i - 1]))
            return "must decrease (got " + format_number(c.output_redshifts[i - 1]) + " then " +
                   format_number(z) + ")";
        if (lattice(s) && !(z < c.start_redshift))
            return "must lie below start_redshift " + format_number(c.start_redshift) + " (got " +
                   format_number(z) + ")";
    }
    return ok();
}

void read_outputs(S& s, const toml::node& node, const Location& at) {
    const auto* array = node.as_array();
    if (!array) at.fail(node.source().begin.line, "[cosmology] output_redshifts must be an array of numbers (got " + describe(node) + ")");
    std::vector<double> z;
    for (std::size_t i = 0; i < array->size(); ++i) {
        const toml::node& v = *array->get(i);
        if (auto f = v.as_floating_point()) z.push_back(f->get());
        else if (auto n = v.as_integer()) z.push_back(double(n->get()));
        else at.fail(node.source().begin.line, "[cosmology] output_redshifts must be an array of numbers (got " + describe(node) + ")");
    }
    s.cosmology.output_redshifts = std::move(z);
}

void write_outputs(const S& s, std::ostream& out) {
    out << "output_redshifts = [";
    for (std::size_t i = 0; i < s.cosmology.output_redshifts.size(); ++i)
        out << (i ? ", " : "") << format_double(s.cosmology.output_redshifts[i]);
    out << "]\n";
}

} // namespace

const std::vector<Field>& cosmology_table() {
    static const std::vector<Field> fields = of_model("cosmology", {
        {"cosmology", "initial",
         EnumRef{[](const S& s) { return to_string(s.cosmology.initial); },
                 [](S& s, const std::string& name) { return from_name(cosmology_starts, name, s.cosmology.initial); },
                 [] { return names_of(cosmology_starts); }, "a cosmological start"},
         any_value, "2lpt | zeldovich | gadget"},
        {"cosmology", "initial_file", PathRef([](S& s) -> std::filesystem::path& { return s.cosmology.initial_file; }),
         [](const S& s) {
             if (lattice(s))
                 return s.cosmology.initial_file.empty() ? ok() : "is for initial = \"gadget\" (this one is " + quote(to_string(s.cosmology.initial)) + ")";
             return s.cosmology.initial_file.empty() ? "must name the GADGET HDF5 file for initial = \"gadget\"" : ok();
         },
         "gadget: the HDF5 initial conditions"},
        {"cosmology", "side", CountRef([](S& s) -> std::uint64_t& { return s.cosmology.side; }),
         [](const S& s) {
             const std::uint64_t n = s.cosmology.side;
             return n >= 2 && n <= 1024 ? ok() : "must be in 2..1024 (got " + std::to_string(n) + ")";
         },
         "2lpt, zeldovich: side^3 bodies"},
        {"cosmology", "box", RealRef([](S& s) -> double& { return s.cosmology.box; }),
         [](const S& s) { return in_range(s.cosmology.box, 0, 1e5, true); }, "[Mpc/h]"},
        {"cosmology", "seed", CountRef([](S& s) -> std::uint64_t& { return s.cosmology.seed; }),
         [](const S& s) { return count_limit(s.cosmology.seed); }, "2lpt, zeldovich: the white noise"},
        {"cosmology", "amplitudes",
         EnumRef{[](const S& s) { return s.cosmology.fixed_amplitude ? "fixed" : "gaussian"; },
                 [](S& s, const std::string& name) {
                     if (name != "fixed" && name != "gaussian") return false;
                     s.cosmology.fixed_amplitude = name == "fixed";
                     return true;
                 },
                 [] { return std::vector<std::string>{"gaussian", "fixed"}; }, "a choice of amplitudes"},
         [](const S& s) {
             return lattice(s) || !s.cosmology.fixed_amplitude ? ok() : "is for initial = \"2lpt\" or \"zeldovich\"";
         },
         "2lpt, zeldovich: gaussian | fixed (every mode at its mean amplitude)"},
        {"cosmology", "start_redshift", RealRef([](S& s) -> double& { return s.cosmology.start_redshift; }),
         // The growth factor is tabulated from a = 1e-3.
         [](const S& s) { return in_range(s.cosmology.start_redshift, 0, 999, true); },
         "2lpt, zeldovich (gadget: the file's)"},
        {"cosmology", "steps", CountRef([](S& s) -> std::uint64_t& { return s.cosmology.steps; }),
         [](const S& s) {
             const std::uint64_t n = s.cosmology.steps, outputs = s.cosmology.output_redshifts.size();
             if (n > 10000000) return "must be at most 10^7 (got " + std::to_string(n) + ")";
             return n >= outputs ? ok()
                                 : "must be at least one per output redshift (" + std::to_string(outputs) +
                                       ") (got " + std::to_string(n) + ")";
         },
         "to the last output, uniform in ln a"},
        {"cosmology", "mesh", CountRef([](S& s) -> std::uint64_t& { return s.cosmology.mesh; }),
         [](const S& s) {
             const std::uint64_t m = s.cosmology.mesh;
             return m == 0 || (m >= 8 && m <= 2048) ? ok() : "must be 0 or in 8..2048 (got " + std::to_string(m) + ")";
         },
         "PM nodes per axis; 0: twice the bodies'"},
        {"cosmology", "split_cells", RealRef([](S& s) -> double& { return s.cosmology.split_cells; }),
         [](const S& s) { return in_range(s.cosmology.split_cells, 0, 16, true); }, "r_s in mesh cells"},
        {"cosmology", "cut_splits", RealRef([](S& s) -> double& { return s.cosmology.cut_splits; }),
         [](const S& s) { return in_range(s.cosmology.cut_splits, 1, 16); }, "the short range's reach in r_s"},
        {"cosmology", "theta", RealRef([](S& s) -> double& { return s.cosmology.theta; }),
         [](const S& s) { return in_range(s.cosmology.theta, 0, 1.5); }, "the short-range walk's opening angle"},
        {"cosmology", "rebuild_every", CountRef([](S& s) -> std::uint64_t& { return s.cosmology.rebuild_every; }),
         [](const S& s) { return check_rebuild_every(s.cosmology.rebuild_every); },
         "evaluations per tree build, refitted in between"},
        {"cosmology", "rebuild_growth", RealRef([](S& s) -> double& { return s.cosmology.rebuild_growth; }),
         [](const S& s) { return check_rebuild_growth(s.cosmology.rebuild_growth); },
         "a refit whose leaves' radii grew more than this fraction is a build"},
        {"cosmology", "relative_accuracy", RealRef([](S& s) -> double& { return s.cosmology.relative_accuracy; }),
         [](const S& s) { return check_relative_accuracy(s.cosmology.relative_accuracy); },
         "a node also acts whole where the term its expansion leaves out is below this fraction of the group's |a|; 0: theta alone"},
        {"cosmology", "softening", RealRef([](S& s) -> double& { return s.cosmology.softening; }),
         [](const S& s) { return in_range(s.cosmology.softening, 0, 1); }, "Plummer, in mean interparticle spacings"},
        {"cosmology", "omega_matter", RealRef([](S& s) -> double& { return s.cosmology.omega_matter; }),
         [](const S& s) { return in_range(s.cosmology.omega_matter, 0, 10, true); }, ""},
        {"cosmology", "omega_lambda", RealRef([](S& s) -> double& { return s.cosmology.omega_lambda; }),
         [](const S& s) { return in_range(s.cosmology.omega_lambda, 0, 10); }, ""},
        {"cosmology", "omega_baryon", RealRef([](S& s) -> double& { return s.cosmology.omega_baryon; }),
         [](const S& s) {
             const double b = s.cosmology.omega_baryon;
             if (auto e = in_range(b, 0, 10); !e.empty()) return e;
             return b <= s.cosmology.omega_matter ? ok() : "must not exceed omega_matter (got " + format_number(b) + ")";
         },
         "shapes the transfer function"},
        {"cosmology", "h", RealRef([](S& s) -> double& { return s.cosmology.h; }),
         [](const S& s) { return in_range(s.cosmology.h, 0, 10, true); }, "H0 / (100 km/s/Mpc)"},
        {"cosmology", "sigma8", RealRef([](S& s) -> double& { return s.cosmology.sigma8; }),
         [](const S& s) { return in_range(s.cosmology.sigma8, 0, 10, true); }, ""},
        {"cosmology", "spectral_index", RealRef([](S& s) -> double& { return s.cosmology.spectral_index; }),
         [](const S& s) { return in_range(s.cosmology.spectral_index, 0, 3); }, "n_s"},
        {"cosmology", "temperature_cmb", RealRef([](S& s) -> double& { return s.cosmology.temperature_cmb; }),
         [](const S& s) { return in_range(s.cosmology.temperature_cmb, 0, 100, true); }, "[K]"},
        {"cosmology", "sample_every", CountRef([](S& s) -> std::uint64_t& { return s.cosmology.sample_every; }),
         [](const S& s) {
             const std::uint64_t n = s.cosmology.sample_every;
             return n >= 1 && n <= 10000000 ? ok() : "must be in 1..10^7 (got " + std::to_string(n) + ")";
         },
         "steps between diagnostics rows"},
        {"cosmology", "frame_every", CountRef([](S& s) -> std::uint64_t& { return s.cosmology.frame_every; }),
         [](const S& s) { return count_limit(s.cosmology.frame_every); }, "steps between frames; 0: none"},
        {"cosmology", "checkpoint_every",
         CountRef([](S& s) -> std::uint64_t& { return s.cosmology.checkpoint_every; }),
         [](const S& s) { return count_limit(s.cosmology.checkpoint_every); }, "0: at the end only"},
        // Last of [cosmology]: to_toml writes it after the other keys.
        {"cosmology", "output_redshifts", CustomRef{read_outputs, write_outputs}, check_outputs, ""},
    });
    return fields;
}

} // namespace detail

} // namespace partcl
