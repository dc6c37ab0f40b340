// The PIC plasma's scenario table beside its run (pic_run.cpp): [plasma] and its
// [[plasma.species]].
#include <partcl/run/scenario.hpp>

#include <algorithm>
#include <cmath>

#include "run/model_tables.hpp"

namespace partcl {

const std::vector<std::string>& plasma_setup_names() {
    static const std::vector<std::string> names = names_of(plasma_setups);
    return names;
}

const std::vector<std::string>& pic_deposit_names() {
    static const std::vector<std::string> names = names_of(pic_deposits);
    return names;
}

namespace detail {

namespace {

// [plasma]: the grid's dimensions, clamped to 1..3 for the checks of other keys (dimensions
// reports its own problem).
int plasma_dimensions(const S& s) { return std::min(3, std::max(1, s.plasma.dimensions)); }

// |k| of the seeded wave, 2 pi |mode| / L.
double wave_number(const S& s) {
    double sum = 0;
    for (std::uint64_t m : s.plasma.mode) sum += double(m) * double(m);
    return 2 * 3.141592653589793 * std::sqrt(sum) / s.plasma.length;
}

// A displacement a sin(k . x0) along k keeps the particles in order only while a |k| < 1.
std::string displacement(const S& s, double amplitude) {
    if (auto p = non_negative(amplitude); !p.empty()) return p;
    const double k = wave_number(s);
    return !(amplitude * k >= 1) ? ok()
               : "must be below L / (2 pi |mode|) = " + format_number(1 / k) +
                     ": larger displacements cross particles (got " + format_number(amplitude) + ")";
}

const char* const species_keys[] = {"name", "charge", "mass", "density", "particles_per_cell",
                                    "drift", "thermal_speed", "amplitude"};

std::string check_species(const S& s) {
    const auto& p = s.plasma;
    if (p.setup != PlasmaSetup::species)
        return p.species.empty() ? ok()
                                 : "([[plasma.species]]) is for setup = \"species\" (this one is " +
                                       quote(to_string(p.setup)) + ")";
    if (p.species.empty()) return "([[plasma.species]]) must list at least one species for setup = \"species\"";
    if (p.species.size() > 64)
        return "([[plasma.species]]) lists " + std::to_string(p.species.size()) + " species, at most 64";
    const int d = plasma_dimensions(s);
    const double points = std::pow(double(p.cells), d);
    double total = 0;
    for (std::size_t i = 0; i < p.species.size(); ++i) {
        const PlasmaSpecies& sp = p.species[i];
        const std::string who = std::to_string(i + 1) + " (" + quote(sp.name) + ") ";
        // The model's ranges (PicSpecies), each message the scenario's.
        if (!PicSpecies::valid_charge(sp.charge)) return who + "charge " + finite(sp.charge);
        if (!PicSpecies::valid_mass(sp.mass)) return who + "mass " + positive(sp.mass);
        if (auto e = positive(sp.density); !e.empty()) return who + "density " + e;
        if (sp.particles_per_cell > 1000000 || !lattice_side(sp.particles_per_cell, d))
            return who + "particles_per_cell must be m^" + std::to_string(d) +
                   " (a lattice of m per axis in each cell; 1.." + std::to_string(d == 1 ? 1000000 : d == 2 ? 1000 : 100) +
                   " per axis) (got " + std::to_string(sp.particles_per_cell) + ")";
        for (int a = 0; a < 3; ++a) {
            if (auto e = finite(sp.drift[a]); !e.empty()) return who + "drift " + e;
            if (a >= d && sp.drift[a] != 0)
                return who + "drift must be 0 beyond the grid's " + std::to_string(d) +
                       " dimension(s) (got " + format_number(sp.drift[a]) + " on axis " + std::to_string(a) + ")";
        }
        if (auto e = non_negative(sp.thermal_speed); !e.empty()) return who + "thermal_speed " + e;
        if (auto e = displacement(s, sp.amplitude); !e.empty()) return who + "amplitude " + e;
        total += double(sp.particles_per_cell) * points;
    }
    if (total > double(1u << 26))
        return "([[plasma.species]]) give " + format_number(total) + " particles on " +
               std::to_string(p.cells) + "^" + std::to_string(d) + " cells, more than 2^26";
    return ok();
}

// One [[plasma.species]] table (the i-th, from 0); its values are checked with the scenario.
PlasmaSpecies read_species(const toml::table& table, std::size_t i, const Location& at) {
    PlasmaSpecies sp;
    const std::string where = "[[plasma.species]] " + std::to_string(i + 1) + " ";
    for (auto&& [key, node] : table) {
        const std::string name(key.str());
        const auto line = node.source().begin.line;
        const auto type_error = [&](const char* wanted) {
            at.fail(line, where + name + " must be " + wanted + " (got " + describe(node) + ")");
        };
        const auto real = [&](const toml::node& n) -> double {
            if (auto v = n.as_floating_point()) return v->get();
            if (auto v = n.as_integer()) return double(v->get());
            type_error("a number");
            return 0.0;  // not reached
        };
        if (name == "name") {
            if (!node.as_string()) type_error("a string");
            sp.name = node.as_string()->get();
        } else if (name == "charge") sp.charge = real(node);
        else if (name == "mass") sp.mass = real(node);
        else if (name == "density") sp.density = real(node);
        else if (name == "thermal_speed") sp.thermal_speed = real(node);
        else if (name == "amplitude") sp.amplitude = real(node);
        else if (name == "particles_per_cell") {
            const auto* v = node.as_integer();
            if (!v || v->get() < 1) type_error("a positive integer");
            sp.particles_per_cell = std::uint64_t(v->get());
        } else if (name == "drift") {
            const auto* array = node.as_array();
            if (!array || array->empty() || array->size() > 3) type_error("an array of 1 to 3 numbers");
            for (std::size_t a = 0; a < array->size(); ++a) {
                if (!array->get(a)->is_number()) type_error("an array of 1 to 3 numbers");
                sp.drift[a] = real(*array->get(a));
            }
        } else {
            std::vector<std::string> known(std::begin(species_keys), std::end(species_keys));
            at.fail(key.source().begin.line,
                    "unknown key '" + name + "' in " + where + "(known: " + join(known) + ")");
        }
    }
    return sp;
}

void read_species_list(S& s, const toml::node& node, const Location& at) {
    const auto* array = node.as_array();
    if (!array || !array->is_array_of_tables())
        at.fail(node.source().begin.line,
                "[plasma] species must be an array of tables, written [[plasma.species]] (got " +
                    describe(node) + ")");
    std::vector<PlasmaSpecies> list;
    for (std::size_t i = 0; i < array->size(); ++i)
        list.push_back(read_species(*array->get(i)->as_table(), i, at));
    s.plasma.species = std::move(list);
}

void write_species_list(const S& s, std::ostream& out) {
    for (const PlasmaSpecies& sp : s.plasma.species) {
        const auto& v = sp.drift;
        out << "\n[[plasma.species]]\nname = " << quote(sp.name)
            << "\ncharge = " << format_double(sp.charge) << "\nmass = " << format_double(sp.mass)
            << "\ndensity = " << format_double(sp.density)
            << "\nparticles_per_cell = " << sp.particles_per_cell << "\ndrift = ["
            << format_double(v[0]) << ", " << format_double(v[1]) << ", " << format_double(v[2])
            << "]\nthermal_speed = " << format_double(sp.thermal_speed)
            << "\namplitude = " << format_double(sp.amplitude) << "\n";
    }
}

} // namespace

const std::vector<Field>& plasma_table() {
    static const std::vector<Field> fields = of_model("pic", {
        {"plasma", "setup",
         EnumRef{[](const S& s) { return to_string(s.plasma.setup); },
                 [](S& s, const std::string& name) { return from_name(plasma_setups, name, s.plasma.setup); },
                 [] { return names_of(plasma_setups); }, "a plasma set-up"},
         any_value,
         "langmuir | two-stream | species"},
        {"plasma", "dimensions", IntRef([](S& s) -> int& { return s.plasma.dimensions; }),
         [](const S& s) {
             const int d = s.plasma.dimensions;
             if (!PicGrid::valid_dimensions(d)) return "must be 1, 2 or 3 (got " + std::to_string(d) + ")";
             return d == 1 || s.plasma.setup == PlasmaSetup::species
                        ? ok()
                        : "must be 1 for setup = " + quote(to_string(s.plasma.setup)) +
                              " (setup = \"species\" runs 2-D and 3-D; got " + std::to_string(d) + ")";
         },
         "1, 2 or 3 (species); langmuir, two-stream: 1"},
        {"plasma", "cells", CountRef([](S& s) -> std::uint64_t& { return s.plasma.cells; }),
         [](const S& s) {
             const std::uint64_t c = s.plasma.cells;
             if (c < 4 || c > (1u << 22)) return "must be in 4..4194304 (got " + std::to_string(c) + ")";
             return std::pow(double(c), plasma_dimensions(s)) <= double(1u << 24)
                        ? ok()
                        : "gives more than 2^24 grid points in " + std::to_string(plasma_dimensions(s)) +
                              "-D (got " + std::to_string(c) + " per axis)";
         },
         "grid nodes per axis, the FFT's size"},
        {"plasma", "length", RealRef([](S& s) -> double& { return s.plasma.length; }),
         [](const S& s) { return positive(s.plasma.length); }, "box length L per axis"},
        {"plasma", "particles_per_cell",
         CountRef([](S& s) -> std::uint64_t& { return s.plasma.particles_per_cell; }),
         [](const S& s) {
             const std::uint64_t p = s.plasma.particles_per_cell;
             if (p < 1 || p > 1000000) return "must be in 1..1000000 (got " + std::to_string(p) + ")";
             if (s.plasma.cells <= (1u << 22) && s.plasma.cells * p > (1u << 26))
                 return "gives more than 2^26 particles with [plasma] cells " +
                        std::to_string(s.plasma.cells) + " (got " + std::to_string(p) + ")";
             if (s.plasma.setup == PlasmaSetup::two_stream && (s.plasma.cells * p) % 2)
                 return "must give an even number of particles for setup = \"two-stream\" (got " +
                        std::to_string(p) + " with " + std::to_string(s.plasma.cells) + " cells)";
             return ok();
         },
         "langmuir, two-stream (an even total)"},
        {"plasma", "amplitude", RealRef([](S& s) -> double& { return s.plasma.amplitude; }),
         [](const S& s) { return displacement(s, s.plasma.amplitude); },
         "langmuir, two-stream: displacement"},
        {"plasma", "mode", ModeRef([](S& s) -> std::array<std::uint64_t, 3>& { return s.plasma.mode; }),
         [](const S& s) {
             const auto& m = s.plasma.mode;
             const int d = plasma_dimensions(s);
             const std::string got = " (got " + format_mode(m) + " with " +
                                     std::to_string(s.plasma.cells) + " cells)";
             for (int a = 0; a < 3; ++a) {
                 if (a >= d && m[a] != 0)
                     return "must be 0 beyond the grid's " + std::to_string(d) + " dimension(s)" + got;
                 if (2 * m[a] >= s.plasma.cells)
                     return "must be below cells / 2 on every axis" + got;
             }
             return m[0] || m[1] || m[2] ? ok() : "must not be 0 on every axis" + got;
         },
         "the seeded wave: k = 2 pi mode / L per axis"},
        {"plasma", "beam_speed", RealRef([](S& s) -> double& { return s.plasma.beam_speed; }),
         [](const S& s) {
             return s.plasma.setup == PlasmaSetup::two_stream ? positive(s.plasma.beam_speed)
                                                   : non_negative(s.plasma.beam_speed);
         },
         "two-stream: v0 of each beam"},
        {"plasma", "seed", CountRef([](S& s) -> std::uint64_t& { return s.plasma.seed; }),
         [](const S& s) { return count_limit(s.plasma.seed); }, "species: thermal velocities"},
        {"plasma", "dt", RealRef([](S& s) -> double& { return s.plasma.dt; }),
         [](const S& s) {
             if (auto p = positive(s.plasma.dt); !p.empty()) return p;
             // Leapfrog is unstable for omega_p dt >= 2.
             const double omega = s.plasma.setup == PlasmaSetup::species ? cold_plasma_frequency(s.plasma.species) : 1.0;
             return !(omega * s.plasma.dt >= 2)
                        ? ok()
                        : "must be below 2 / omega_p = " + format_number(2 / omega) +
                              ": leapfrog is unstable (got " + format_number(s.plasma.dt) + ")";
         },
         "[1/omega_p]"},
        {"plasma", "end_time", RealRef([](S& s) -> double& { return s.plasma.end_time; }),
         [](const S& s) {
             if (auto p = positive(s.plasma.end_time); !p.empty()) return p;
             return !(s.plasma.end_time / s.plasma.dt > 1e7)
                        ? ok()
                        : "must be at most 10^7 steps of dt (got " + format_number(s.plasma.end_time) + ")";
         },
         "[1/omega_p]"},
        {"plasma", "deposit",
         EnumRef{[](const S& s) { return to_string(s.plasma.deposit); },
                 [](S& s, const std::string& name) { return from_name(pic_deposits, name, s.plasma.deposit); },
                 [] { return names_of(pic_deposits); }, "a deposit strategy"},
         any_value, "gather | atomic"},
        {"plasma", "sample_every", CountRef([](S& s) -> std::uint64_t& { return s.plasma.sample_every; }),
         [](const S& s) {
             return s.plasma.sample_every >= 1 && s.plasma.sample_every <= 10000000
                        ? ok()
                        : "must be in 1..10^7 (got " + std::to_string(s.plasma.sample_every) + ")";
         },
         "steps between diagnostics rows"},
        {"plasma", "frame_every", CountRef([](S& s) -> std::uint64_t& { return s.plasma.frame_every; }),
         [](const S& s) { return count_limit(s.plasma.frame_every); },
         "steps between frames, 0 = none"},
        {"plasma", "checkpoint_every",
         CountRef([](S& s) -> std::uint64_t& { return s.plasma.checkpoint_every; }),
         [](const S& s) { return count_limit(s.plasma.checkpoint_every); },
         "steps between checkpoints, 0 = at the end"},
        // Last of [plasma]: to_toml writes it as [[plasma.species]] tables after the keys.
        {"plasma", "species", CustomRef{read_species_list, write_species_list}, check_species, ""},
    });
    return fields;
}

} // namespace detail

} // namespace partcl
