#pragma once
// Checkpoints: everything a run needs to continue bit for bit where it stopped.
//
// File format (all integers little-endian, doubles as their IEEE-754 bits, little-endian):
//   offset 0   8 bytes   magic "PARTCLCK"
//          8   u32       format version (1)
//         12   u32       reserved, 0
//         16   u64       payload size P in bytes
//         24   P bytes   payload
//     24 + P   20 bytes  SHA-1 of the payload
// Payload, in order (string = u64 length + bytes; vector = u64 count + that many f64):
//   string scenario_toml, u64 step, f64 time, f64 dt, string precision, string device,
//   vector state, vector mass,
//   u64 count of integrator vectors, each a vector; vector integrator scalars,
//   vector scheduler_weights, vector initial_diagnostics,
//   (version 2 on) vector particle_types, string output_text, vector run_state
// Version 1 files (N-body only, without the last three) are read as well.
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
    std::vector<double> state;  // 6N: x | y | z | vx | vy | vz, exact values of the device state
    std::vector<double> mass;   // N
    IntegratorState integrator;
    std::vector<double> scheduler_weights;
    std::vector<double> initial_diagnostics;  // e.g. the initial energy, for the drift
    // MPS fluid runs (run/mps_run.hpp; empty for N-body runs): `state` holds d N positions then
    // d N velocities (component k of particle i at k N + i, in the device's particle order),
    // `mass` is empty, `particle_types` the N types (MpsType: 0 fluid, 1 wall, 2 dummy).
    std::vector<double> particle_types;
    std::string output_text;     // the run's CSV as written up to the checkpoint
    std::vector<double> run_state;  // the run's own counters and sums (mps_run.cpp says which)
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
