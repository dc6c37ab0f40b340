#include <partcl/run/run_length.hpp>

#include <partcl/backend/error.hpp>

#include <cmath>
#include <cstdio>
#include <string>

namespace partcl {

void apply_run_length(Scenario& s, const RunLength& length) {
    if (length.steps != 0 && length.end_time != 0)
        throw UsageError("give a number of steps or an end time, not both");
    if (!(std::isfinite(length.end_time) && length.end_time >= 0)) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", length.end_time);
        throw UsageError(std::string("the end time must be positive (got ") + text + ")");
    }
    if (!length.given()) return;
    if (s.model == "mps") {
        s.fluid.steps = length.steps;
        if (length.end_time != 0) s.fluid.end_time = length.end_time;
    } else if (s.model == "pic") {
        // Every step is dt: end_time / dt rounds back to the steps asked for.
        s.plasma.end_time = length.steps != 0 ? double(length.steps) * s.plasma.dt : length.end_time;
    } else if (s.model == "cosmology") {
        if (length.end_time != 0)
            throw UsageError("a cosmological run ends at its last output redshift ([cosmology] "
                             "output_redshifts), not at an end time");
        s.cosmology.steps = length.steps;
    } else {
        s.end_time = length.end_time;
        if (length.steps != 0) s.steps = length.steps;
    }
}

} // namespace partcl
