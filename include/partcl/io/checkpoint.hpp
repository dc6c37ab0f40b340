#pragma once
// Checkpoints: everything a run needs to continue bit for bit where it stopped.
//
// File format (all integers little-endian, doubles as their IEEE-754 bits, little-endian):
//   offset 0   8 bytes   magic "PARTCLCK"
//          8   u32       format version (3; versions 1 and 2 are read too)
//         12   u32       reserved, 0
//         16   u64       payload size P in bytes
//         24   P bytes   payload
//     24 + P   20 bytes  SHA-1 of the payload
// Payload, in order (string = u64 length + bytes; vector = u64 count + that many f64):
//   string scenario_toml, u64 step, f64 time, f64 dt, string precision, string device,
//   vector state, vector mass,
//   u64 count of integrator vectors, each a vector; vector integrator scalars,
//   vector scheduler_weights, vector initial_diagnostics,
//   (version 2 on) u64 count + that many u32 particle_types, u64 count of series, each a
//   vector, string output_text, vector run_state, (version 3 on) u64 count + that many u32
//   tree_order
// Version 1 files (N-body only, without the last five) and version 2 files (without the tree
// order) are read as well.
//
// One format serves every run that resumes: N-body (run/nbody_run.hpp: state 6N, mass N,
// output_text energy.csv, a tree that refits or opens by the relative criterion its run_state
// and tree_order as cosmology's, the other version 2 items empty), PIC (run/pic_run.hpp: state D N positions | D N velocities, mass
// empty, particle_types the species, series, output_text) and MPS (run/mps_run.hpp: state d N positions |
// d N velocities in the device's particle order, mass empty, particle_types the MpsType of
// each, output_text, run_state) and cosmology (run/cosmology_run.hpp: state 6N comoving
// positions and canonical velocities, mass N, run_state and tree_order).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <partcl/integrate/integrator.hpp>

namespace partcl {

struct Checkpoint {
    std::string scenario_toml;  // to_toml(scenario) of the run
    std::uint64_t step = 0;     // steps completed
    double time = 0;
    double dt = 0;              // the step size to use next (adaptive methods change it)
    std::string precision;      // "float" | "double"
    std::string device;         // description of the device(s) that ran it (informative)
    std::vector<double> state;  // N-body 6N: x | y | z | vx | vy | vz; PIC 2 D N: positions |
                                // velocities, structure of arrays; exact values of the device state
    std::vector<double> mass;   // N-body: N; PIC: empty
    IntegratorState integrator;
    std::vector<double> scheduler_weights;
    std::vector<double> initial_diagnostics;  // e.g. the initial energy, for the drift
    // PIC and MPS runs (empty for N-body runs): each particle's species (PIC) or MpsType (MPS:
    // 0 fluid, 1 wall, 2 dummy).
    std::vector<std::uint32_t> particle_types;
    std::vector<std::vector<double>> series;  // PIC: the measurements made every step so far
    std::string output_text;                  // the run's CSV as written up to the checkpoint
    std::vector<double> run_state;            // MPS: the loop's counters (run_loop.cpp), its sums;
                                              // cosmology: {the tree order's age, its leaf radii,
                                              // then each body's |a| the walk's relative criterion
                                              // read last, where it did}; N-body: the same of
                                              // the tree's continuation()
    // Cosmology runs: the short-range tree's order (TreeGravity::Order, tree position -> body)
    // that the last evaluation used, so that a resumed run refits the tree as it was; N-body
    // runs: the order the next evaluation refits (TreeGravity::continuation).
    std::vector<std::uint32_t> tree_order;
};

// Writes atomically (temporary file, fsync, rename); throws partcl::Error on failure, with
// the old checkpoint left untouched.
void write_checkpoint(const std::filesystem::path& file, const Checkpoint& checkpoint);

// Throws UsageError naming the file when it is missing, not a partcl checkpoint (magic), of
// another format version, truncated, or damaged (checksum or inconsistent contents).
Checkpoint read_checkpoint(const std::filesystem::path& file);

// The encoding itself, for tests and for checkpoints kept in memory.
std::string encode_checkpoint(const Checkpoint& checkpoint);
Checkpoint decode_checkpoint(const std::string& bytes, const std::string& source_name);

} // namespace partcl
