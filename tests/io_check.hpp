#pragma once
// Helpers of the io tests (test_io.cpp, test_snapshot.cpp, test_scenario.cpp).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <partcl/partcl.hpp>

namespace partcl_test {

inline std::uint64_t bits(double value) {
    std::uint64_t b;
    std::memcpy(&b, &value, sizeof b);
    return b;
}

// Bit for bit (so -0.0 != 0.0 and a NaN equals only the same NaN).
inline bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
    return a.size() == b.size() &&
           (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

inline bool same_bodies(const partcl::Bodies& a, const partcl::Bodies& b) {
    return same_bits(a.x, b.x) && same_bits(a.y, b.y) && same_bits(a.z, b.z) &&
           same_bits(a.vx, b.vx) && same_bits(a.vy, b.vy) && same_bits(a.vz, b.vz) &&
           same_bits(a.m, b.m);
}

// Files in `directory` that is_atomic_temporary() recognises.
inline std::vector<std::string> temporaries(const std::filesystem::path& directory) {
    std::vector<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(directory))
        if (partcl::is_atomic_temporary(entry.path()))
            found.push_back(entry.path().filename().string());
    return found;
}

inline std::size_t entries(const std::filesystem::path& directory) {
    return std::size_t(std::distance(std::filesystem::directory_iterator(directory),
                                     std::filesystem::directory_iterator()));
}

// Bodies with awkward but valid values: signed zeros, subnormals, huge and tiny magnitudes.
inline partcl::Bodies awkward_bodies(std::size_t n, std::uint32_t seed) {
    std::mt19937_64 engine(seed);
    std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
    std::uniform_int_distribution<int> exponent(-300, 300);
    const auto value = [&] { return mantissa(engine) * std::pow(10.0, exponent(engine)); };
    partcl::Bodies b;
    b.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        b.x[i] = value();
        b.y[i] = value();
        b.z[i] = value();
        b.vx[i] = value();
        b.vy[i] = value();
        b.vz[i] = value();
        b.m[i] = std::abs(value());
    }
    b.x[0] = -0.0;
    b.y[0] = 1e-300;
    b.z[0] = std::numeric_limits<double>::denorm_min();
    b.vx[0] = std::numeric_limits<double>::max();
    b.vy[0] = -std::numeric_limits<double>::min();
    b.vz[0] = 0.1;
    b.m[0] = 0.0;
    return b;
}

} // namespace partcl_test
