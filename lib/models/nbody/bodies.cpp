#include <partcl/models/nbody/device_bodies.hpp>

#include <algorithm>

#include <cmath>

namespace partcl {

void Bodies::resize(std::size_t n) {
    for (auto* v : {&x, &y, &z, &vx, &vy, &vz, &m}) v->resize(n);
}

void Bodies::validate() const {
    const std::size_t n = size();
    if (n == 0) throw UsageError("no bodies: N = 0");
    const std::pair<const char*, const std::vector<double>*> arrays[] = {
        {"x", &x}, {"y", &y}, {"z", &z}, {"vx", &vx}, {"vy", &vy}, {"vz", &vz}, {"mass", &m}};
    for (const auto& [name, values] : arrays) {
        if (values->size() != n)
            throw UsageError(std::string("bodies: ") + name + " has " +
                             std::to_string(values->size()) + " values for " + std::to_string(n) +
                             " bodies");
        for (std::size_t i = 0; i < n; ++i)
            if (!std::isfinite((*values)[i]))
                throw UsageError(std::string("bodies: ") + name + " of body " + std::to_string(i) +
                                 " is " + std::to_string((*values)[i]));
    }
    for (std::size_t i = 0; i < n; ++i)
        if (m[i] < 0)
            throw UsageError("bodies: mass of body " + std::to_string(i) + " is negative (" +
                             std::to_string(m[i]) + ")");
}

DeviceBodies::DeviceBodies(Context& context, Precision precision, const Bodies& bodies)
    : state(context, precision, 6 * bodies.size()), mass(context, precision, bodies.size()),
      n_(bodies.size()) {
    upload(context.queue(0), bodies);
}

void DeviceBodies::upload(Queue& queue, const Bodies& bodies) {
    bodies.validate();
    if (bodies.size() != n_)
        throw UsageError("DeviceBodies::upload: " + std::to_string(bodies.size()) +
                         " bodies into buffers for " + std::to_string(n_));
    const std::vector<double>* fields[] = {&bodies.x, &bodies.y, &bodies.z,
                                           &bodies.vx, &bodies.vy, &bodies.vz};
    for (std::size_t f = 0; f < 6; ++f) state.write(queue, *fields[f], f * n_);
    mass.write(queue, bodies.m);
}

Bodies DeviceBodies::download(Queue& queue) const {
    Bodies bodies;
    bodies.resize(n_);
    download_motion(queue, bodies);
    mass.read(queue, bodies.m.data(), n_);
    return bodies;
}

void DeviceBodies::download_motion(Queue& queue, Bodies& bodies) const {
    if (bodies.size() != n_)
        throw UsageError("download_motion: " + std::to_string(bodies.size()) +
                         " host bodies for " + std::to_string(n_) + " on the device");
    std::vector<double>* fields[] = {&bodies.x, &bodies.y, &bodies.z,
                                     &bodies.vx, &bodies.vy, &bodies.vz};
    // One read of the whole state: each read waits for the device, which at small N costs
    // more than the copy.
    std::vector<double> all(6 * n_);
    state.read(queue, all.data(), 6 * n_, 0);
    for (std::size_t f = 0; f < 6; ++f)
        std::copy(all.begin() + f * n_, all.begin() + (f + 1) * n_, fields[f]->begin());
}

} // namespace partcl
