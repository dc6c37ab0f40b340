#pragma once
// A model stepped over K MPI ranks in turns with the one-rank model on rank 0 alone (the others
// waiting), as the rank benchmarks time them (partcl_bench_pic_ranks, partcl_bench_mps_ranks),
// and what the K-rank model's exchanges cost over those steps (dist::RankTraffic).
#include <algorithm>
#include <chrono>
#include <cstddef>

#include <partcl/dist/communicator.hpp>
#include <partcl/dist/rank_traffic.hpp>
#include <partcl/runtime/context.hpp>

#include "common.hpp"

namespace partcl_bench {

struct RankTurns {
    Turns turns;             // device: a K-rank step (the slowest rank's); reference: one rank's
    std::size_t steps = 0;   // K-rank steps taken (warm-ups included)
    double stepping = 0;     // their wall time on this rank
};

// `all()` steps the K-rank model, `alone()` the one-rank one; --steps steps a turn, three rounds.
template <class All, class Alone>
RankTurns rank_turns(const partcl::dist::Communicator& world, partcl::Context& context, int steps,
                     All&& all, Alone&& alone) {
    RankTurns r;
    r.turns = take_turns(
        [&] {
            world.barrier();
            const double t = median_seconds(steps, [&] {
                const auto start = std::chrono::steady_clock::now();
                all();
                context.finish();
                r.stepping += std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
                                  .count();
                ++r.steps;
            });
            return world.max(t);
        },
        [&] {
            world.barrier();
            double t = 0;
            if (world.root())
                t = median_seconds(steps, [&] {
                    alone();
                    context.finish();
                });
            return world.max(t);
        });
    return r;
}

// Over the turns' K-rank steps: the slowest rank's share of its time in exchanges, the most
// bytes a rank sent a step, and the particles that changed rank a step over every rank.
struct TrafficFigures {
    double share = 0, bytes_per_step = 0, moved_per_step = 0;
};
inline TrafficFigures traffic_figures(const partcl::dist::Communicator& world,
                                      const partcl::dist::RankTraffic& before,
                                      const partcl::dist::RankTraffic& after, const RankTurns& r) {
    const double per = 1.0 / double(std::max<std::size_t>(r.steps, 1));
    TrafficFigures f;
    f.share = world.max((after.seconds - before.seconds) / std::max(1e-30, r.stepping));
    f.bytes_per_step = world.max((after.bytes_sent - before.bytes_sent) * per);
    for (double m : world.allgather(double(after.particles_sent - before.particles_sent) * per))
        f.moved_per_step += m;
    return f;
}

} // namespace partcl_bench
