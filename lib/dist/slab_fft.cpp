#include <partcl/dist/slab_fft.hpp>

#include <cstring>
#include <string>

#include <partcl/backend/error.hpp>

namespace partcl::dist {

namespace {

std::string shape_text(const std::array<std::size_t, 3>& shape) {
    return std::to_string(shape[0]) + " x " + std::to_string(shape[1]) + " x " +
           std::to_string(shape[2]);
}

} // namespace

SlabFft::SlabFft(const Communicator& communicator, Context& context, Precision precision,
                 std::array<std::size_t, 3> shape, const Partition& planes, std::size_t device)
    : communicator_(&communicator), context_(&context), precision_(precision), shape_(shape),
      device_(device), planes_(planes) {
    for (int a = 0; a < 3; ++a)
        if (shape[std::size_t(a)] > 1) axis_ = a;
    for (int a = 0; a < axis_; ++a) plane_points_ *= shape[std::size_t(a)];
    const std::size_t ranks = std::size_t(communicator.size());
    if (planes.parts() != ranks || planes.total() != shape[std::size_t(axis_)])
        throw UsageError("dist::SlabFft: the planes of a " + shape_text(shape) + " grid cut in " +
                         std::to_string(planes.parts()) + " parts of " +
                         std::to_string(planes.total()) + " planes, for " + std::to_string(ranks) +
                         " ranks and " + std::to_string(shape[std::size_t(axis_)]) + " planes");
    if (ranks == 1) {
        columns_ = Partition({0, plane_points_});
        whole_ = std::make_unique<Fft>(context, precision, shape, device);
        return;
    }
    columns_ = Partition::by_weight(plane_points_, std::vector<double>(ranks, 1.0));
    const Range mine = planes_[std::size_t(communicator.rank())];
    const Range columns = columns_[std::size_t(communicator.rank())];
    if (plane_points_ > 1 && !mine.empty()) {
        std::array<std::size_t, 3> stack{1, 1, 1};
        FftAxes along{{false, false, false}};
        for (int a = 0; a < axis_; ++a) {
            stack[std::size_t(a)] = shape[std::size_t(a)];
            along.along[std::size_t(a)] = true;
        }
        stack[std::size_t(axis_)] = mine.size();
        planes_fft_ = std::make_unique<Fft>(context, precision, stack, device, along);
    }
    if (!columns.empty())
        columns_fft_ = std::make_unique<Fft>(
            context, precision, std::array<std::size_t, 3>{columns.size(), shape[std::size_t(axis_)], 1},
            device, FftAxes::only(1));
}

std::size_t SlabFft::to_others(const std::vector<std::size_t>& send_counts) const {
    std::size_t bytes = 0;
    for (std::size_t r = 0; r < send_counts.size(); ++r)
        if (int(r) != communicator_->rank()) bytes += send_counts[r];
    return bytes;
}

std::size_t SlabFft::slab_reals() const noexcept {
    return 2 * planes_[std::size_t(communicator_->rank())].size() * plane_points_;
}

std::size_t SlabFft::spectrum_reals() const noexcept {
    return 2 * shape_[std::size_t(axis_)] * columns_[std::size_t(communicator_->rank())].size();
}

void SlabFft::check(const RealBuffer& slab, const RealBuffer& spectrum) const {
    if (slab.precision() != precision_ || spectrum.precision() != precision_)
        throw UsageError("dist::SlabFft: a " + std::string(to_string(precision_)) +
                         " transform given " + to_string(slab.precision()) + " and " +
                         to_string(spectrum.precision()) + " buffers");
    if (slab.size() < slab_reals() || spectrum.size() < spectrum_reals())
        throw UsageError("dist::SlabFft: buffers of " + std::to_string(slab.size()) + " and " +
                         std::to_string(spectrum.size()) + " reals, this rank's slab needs " +
                         std::to_string(slab_reals()) + " and its spectrum " +
                         std::to_string(spectrum_reals()));
    if (slab.memory().impl() == spectrum.memory().impl())
        throw UsageError("dist::SlabFft: the slab and the spectrum share a buffer");
}

void SlabFft::forward(RealBuffer& slab, RealBuffer& spectrum) {
    check(slab, spectrum);
    if (whole_) {
        whole_->forward(slab);
        slab.copy_to(context_->queue(device_), spectrum, slab_reals(), 0, 0);
        return;
    }
    if (planes_fft_) planes_fft_->forward(slab);
    to_columns(slab, spectrum);
    if (columns_fft_) columns_fft_->forward(spectrum);
}

void SlabFft::inverse(RealBuffer& spectrum, RealBuffer& slab) {
    check(slab, spectrum);
    if (whole_) {
        whole_->inverse(spectrum);
        spectrum.copy_to(context_->queue(device_), slab, slab_reals(), 0, 0);
        return;
    }
    if (columns_fft_) columns_fft_->inverse(spectrum);
    to_planes(spectrum, slab);
    if (planes_fft_) planes_fft_->inverse(slab);
}

void SlabFft::to_columns(const RealBuffer& slab, RealBuffer& spectrum) {
    Queue& queue = context_->queue(device_);
    TrafficTimer transposition(queue, traffic_);
    // Rank t gets columns t of each of this rank's planes: a run of each plane, plane after
    // plane; what arrives, in rank order, is then the spectrum's layout already.
    const std::size_t value = 2 * size_of(precision_), ranks = columns_.parts();
    const std::size_t rank = std::size_t(communicator_->rank());
    const Range mine = planes_[rank], my_columns = columns_[rank];
    received_.resize(spectrum_reals() / 2 * value);
    sent_.resize(slab_reals() / 2 * value);
    slab_host_.resize(sent_.size());
    if (!mine.empty()) slab.memory().read(queue, 0, slab_host_.size(), slab_host_.data());
    std::vector<std::size_t> send_counts(ranks), recv_counts(ranks);
    char* out = sent_.data();
    for (std::size_t t = 0; t < ranks; ++t) {
        const Range columns = columns_[t];
        for (std::size_t plane = 0; plane < mine.size(); ++plane) {
            std::memcpy(out, slab_host_.data() + (plane * plane_points_ + columns.begin) * value,
                        columns.size() * value);
            out += columns.size() * value;
        }
        send_counts[t] = mine.size() * columns.size() * value;
        recv_counts[t] = planes_[t].size() * my_columns.size() * value;
    }
    communicator_->alltoallv(sent_.data(), send_counts, received_.data(), recv_counts);
    transposition.sent(to_others(send_counts));
    if (my_columns.empty()) return;
    Memory target = spectrum.memory();  // a handle: writes `spectrum`
    target.write(queue, 0, received_.size(), received_.data());
    queue.finish();  // the write reads received_
}

void SlabFft::to_planes(const RealBuffer& spectrum, RealBuffer& slab) {
    Queue& queue = context_->queue(device_);
    TrafficTimer transposition(queue, traffic_);
    const std::size_t value = 2 * size_of(precision_), ranks = columns_.parts();
    const std::size_t rank = std::size_t(communicator_->rank());
    const Range mine = planes_[rank], my_columns = columns_[rank];
    // Rank t's planes of this rank's columns are one run of the spectrum (planes slowest).
    sent_.resize(spectrum_reals() / 2 * value);
    if (!my_columns.empty()) spectrum.memory().read(queue, 0, sent_.size(), sent_.data());
    std::vector<std::size_t> send_counts(ranks), recv_counts(ranks);
    for (std::size_t t = 0; t < ranks; ++t) {
        send_counts[t] = planes_[t].size() * my_columns.size() * value;
        recv_counts[t] = mine.size() * columns_[t].size() * value;
    }
    received_.resize(slab_reals() / 2 * value);
    communicator_->alltoallv(sent_.data(), send_counts, received_.data(), recv_counts);
    transposition.sent(to_others(send_counts));
    if (mine.empty()) return;
    // From rank t: its columns of each of this rank's planes, plane after plane.
    slab_host_.resize(received_.size());
    const char* in = received_.data();
    for (std::size_t t = 0; t < ranks; ++t) {
        const Range columns = columns_[t];
        for (std::size_t plane = 0; plane < mine.size(); ++plane) {
            std::memcpy(slab_host_.data() + (plane * plane_points_ + columns.begin) * value, in,
                        columns.size() * value);
            in += columns.size() * value;
        }
    }
    Memory target = slab.memory();
    target.write(queue, 0, slab_host_.size(), slab_host_.data());
    queue.finish();  // the write reads slab_host_
}

} // namespace partcl::dist
