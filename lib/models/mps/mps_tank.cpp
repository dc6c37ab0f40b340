#include <partcl/models/mps/mps_tank.hpp>

#include <algorithm>
#include <cmath>

namespace partcl {

namespace {

long long cells_of(double length, double spacing, const char* what) {
    const double cells = length / spacing;
    if (!(cells >= 1) || std::fabs(cells - std::round(cells)) > 1e-6 * cells || cells > 1e6)
        throw UsageError(std::string("mps tank: the ") + what + " (" + std::to_string(length) +
                         ") is not a positive multiple of the spacing (" +
                         std::to_string(spacing) + ")");
    return std::llround(cells);
}

} // namespace

MpsScene mps_tank(const MpsTank& t) {
    const int d = t.dimensions;
    if (d != 2 && d != 3) throw UsageError("mps tank: 2 or 3 dimensions");
    if (!(t.spacing > 0) || !std::isfinite(t.spacing)) throw UsageError("mps tank: bad spacing");
    if (t.dummy_layers < 0 || t.dummy_layers > 10) throw UsageError("mps tank: 0 to 10 dummy layers");
    const double height = t.water[d - 1];
    if (!MpsTank::valid_hydrostatic_strain(t.hydrostatic_strain, height))
        throw UsageError("mps tank: the hydrostatic strain g / c^2 (" + std::to_string(t.hydrostatic_strain) +
                         ") must be finite, at least 0 and compress the water by at most 10%");
    long long tank[3] = {1, 1, 1}, water[3] = {1, 1, 1};
    for (int k = 0; k < d; ++k) {
        tank[k] = cells_of(t.tank[k], t.spacing, "tank size");
        water[k] = cells_of(t.water[k], t.spacing, "water size");
        if (water[k] > tank[k]) throw UsageError("mps tank: the water does not fit the tank");
    }
    const long long layers = 1 + t.dummy_layers;
    // Per axis, the lattice indices: horizontal axes [-layers, tank + layers), up [-layers, tank).
    long long lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
    for (int k = 0; k < d; ++k) {
        lo[k] = -layers;
        hi[k] = k == d - 1 ? tank[k] : tank[k] + layers;
    }
    std::vector<std::array<double, 3>> position;
    std::vector<MpsType> type;
    long long index[3] = {0, 0, 0};
    for (index[2] = lo[2]; index[2] < hi[2]; ++index[2])
        for (index[1] = lo[1]; index[1] < hi[1]; ++index[1])
            for (index[0] = lo[0]; index[0] < hi[0]; ++index[0]) {
                long long outside = -1;  // how many layers into the wall, -1 inside the tank
                bool in_water = true;
                for (int k = 0; k < d; ++k) {
                    const long long i = index[k];
                    if (i < 0) outside = std::max(outside, -i - 1);
                    if (i >= tank[k]) outside = std::max(outside, i - tank[k]);
                    in_water = in_water && i >= 0 && i < water[k];
                }
                MpsType kind;
                if (outside == 0)
                    kind = MpsType::wall;
                else if (outside > 0)
                    kind = MpsType::dummy;
                else if (in_water)
                    kind = MpsType::fluid;
                else
                    continue;
                std::array<double, 3> p{0, 0, 0};
                for (int k = 0; k < d; ++k) p[k] = (double(index[k]) + 0.5) * t.spacing;
                if (kind == MpsType::fluid) {
                    double& y = p[d - 1];
                    y -= t.hydrostatic_strain * (height * y - y * y / 2);
                }
                position.push_back(p);
                type.push_back(kind);
            }
    MpsScene scene;
    MpsParticles& out = scene.particles;
    out.dimensions = d;
    const std::size_t n = type.size();
    out.type = type;
    out.position.resize(d * n);
    out.velocity.assign(d * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (int k = 0; k < d; ++k) out.position[k * n + i] = position[i][k];
    for (int k = 0; k < d; ++k) {
        scene.lower[k] = -double(layers + 1) * t.spacing;
        scene.upper[k] = k == d - 1 ? 2 * t.tank[k] : t.tank[k] + double(layers + 1) * t.spacing;
    }
    return scene;
}

double mps_front(const MpsParticles& particles, double spacing) {
    std::vector<double> xs;
    for (std::size_t i = 0; i < particles.size(); ++i)
        if (particles.type[i] == MpsType::fluid) xs.push_back(particles.position[i]);
    if (xs.empty()) throw UsageError("mps front: no fluid particles");
    std::sort(xs.begin(), xs.end());
    std::size_t k = 0;
    while (k + 1 < xs.size() && xs[k + 1] - xs[k] < 2 * spacing) ++k;
    return xs[k] + spacing / 2;
}

} // namespace partcl
