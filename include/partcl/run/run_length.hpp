#pragma once
// How long a run goes, as its user says it: a number of steps or a simulated end time. Each
// model has the length it runs by natively (N-body: [run] steps; MPS fluid and PIC plasma:
// their end_time) and takes the other where it makes sense: an N-body run to an end time
// ([run] end_time), an MPS run of a number of steps ([fluid] steps), a PIC run of steps of its
// fixed dt (end_time = steps dt).
#include <cstdint>

#include <partcl/io/scenario.hpp>

namespace partcl {

struct RunLength {
    std::uint64_t steps = 0;  // 0: not given
    double end_time = 0;      // 0: not given
    bool given() const noexcept { return steps != 0 || end_time != 0; }
};

// Sets the scenario's length from `length` (nothing when it gives none): N-body [run] steps
// (end_time 0) or [run] end_time; MPS [fluid] steps or [fluid] end_time (steps 0); PIC
// [plasma] end_time, steps x dt for steps; cosmology [cosmology] steps (an end time is refused:
// the run ends at its last output redshift). Throws UsageError when it gives both, or a negative
// or non-finite end time; the scenario's own checks (validate) judge the rest.
void apply_run_length(Scenario& scenario, const RunLength& length);

} // namespace partcl
