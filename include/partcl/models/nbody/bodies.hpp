#pragma once
// Bodies: an N-body system on the host, as structure of arrays, always in double (what files
// and initial conditions speak). No device code here, so io can read and write bodies without
// reaching the runtime (device_bodies.hpp holds their device copy).
#include <cstddef>
#include <vector>

namespace partcl {

struct Bodies {
    std::vector<double> x, y, z;
    std::vector<double> vx, vy, vz;
    std::vector<double> m;

    std::size_t size() const noexcept { return m.size(); }
    void resize(std::size_t n);
    // Throws UsageError naming the first problem: N = 0, arrays of different lengths, a NaN or
    // infinite value (with its array and index), a negative mass.
    void validate() const;
};

} // namespace partcl
