#pragma once
// The models a RunLoop can drive, each set up fresh from a scenario or restored from a checkpoint
// (nbody_run.cpp, mps_run.cpp, pic_run.cpp, cosmology_run.cpp). Private to the library.
#include <filesystem>
#include <string>

#include <partcl/backend/error.hpp>

#include <partcl/run/run_loop.hpp>

namespace partcl::detail {

// The ranks a run spreads over: the options', or this process alone.
inline const dist::Communicator& ranks_of(const RunOptions& options) {
    return options.ranks ? *options.ranks : dist::Communicator::self();
}

RunLoop nbody_run(Context& context, Scenario scenario, std::filesystem::path out, const RunOptions& options);
RunLoop resumed_nbody_run(Context& context, const Checkpoint& checkpoint, const std::filesystem::path& source,
                          std::filesystem::path out, RunLength length, const RunOptions& options);

RunLoop mps_run(Context& context, Scenario scenario, std::filesystem::path out, const RunOptions& options);
RunLoop resumed_mps_run(Context& context, const Checkpoint& checkpoint, const std::filesystem::path& source,
                        std::filesystem::path out, RunLength length, const RunOptions& options);

RunLoop pic_run(Context& context, Scenario scenario, std::filesystem::path out, const RunOptions& options);
RunLoop resumed_pic_run(Context& context, const Checkpoint& checkpoint, const std::filesystem::path& source,
                        std::filesystem::path out, RunLength length, const RunOptions& options);

RunLoop cosmology_run(Context& context, Scenario scenario, std::filesystem::path out, const RunOptions& options);
RunLoop resumed_cosmology_run(Context& context, const Checkpoint& checkpoint, const std::filesystem::path& source,
                              std::filesystem::path out, RunLength length, const RunOptions& options);

} // namespace partcl::detail
