#pragma once
// Bodies moving between MPI ranks with what travels with them: each body's fields, its global
// index and its values in any number of state-shaped vectors (6 components, as an integrator's
// stages), sent in one Distributor plan. A run moves its bodies to the ranks that walked them
// (run/nbody_run.cpp), the gravity benchmark likewise.
//
//   TravellingBodies mine{bodies, ids, {stage}};
//   TravellingBodies arrived = move_bodies(world, destinations, mine);
#include <cstdint>
#include <vector>

#include <partcl/dist/communicator.hpp>
#include <partcl/models/nbody/bodies.hpp>

namespace partcl {

struct TravellingBodies {
    Bodies bodies;
    std::vector<std::uint32_t> ids;
    std::vector<std::vector<double>> vectors;  // each 6 n: component c of body i at c n + i
};

// Each of this rank's bodies to the rank `destinations` names (a collective). What arrives comes
// in rank order of the senders, each sender's in its order. UsageError for destinations,
// indices or vectors of another count than the bodies, or a rank outside the communicator.
TravellingBodies move_bodies(const dist::Communicator& ranks, const std::vector<int>& destinations,
                             const TravellingBodies& mine);

} // namespace partcl
