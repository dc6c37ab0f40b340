#include <partcl/dist/distributor.hpp>

#include <cstring>
#include <string>

#include <partcl/backend/error.hpp>

namespace partcl::dist {

Distributor::Distributor(const Communicator& communicator, const std::vector<int>& destinations)
    : communicator_(&communicator), send_counts_(std::size_t(communicator.size()), 0) {
    const std::size_t ranks = send_counts_.size();
    for (const int r : destinations) {
        if (r < 0 || std::size_t(r) >= ranks)
            throw UsageError("dist::Distributor: an item for rank " + std::to_string(r) + " of " +
                             std::to_string(ranks));
        ++send_counts_[std::size_t(r)];
    }
    // A counting sort: stable, so each destination's items keep their order.
    std::vector<std::size_t> next(ranks, 0);
    for (std::size_t r = 1; r < ranks; ++r) next[r] = next[r - 1] + send_counts_[r - 1];
    order_.resize(destinations.size());
    for (std::size_t i = 0; i < destinations.size(); ++i) order_[next[std::size_t(destinations[i])]++] = i;
    std::vector<std::size_t> offsets{0};
    for (const std::size_t count : communicator.alltoall(send_counts_)) offsets.push_back(offsets.back() + count);
    sources_ = Partition(std::move(offsets));
}

void Distributor::check(std::size_t items) const {
    if (items != sent())
        throw UsageError("dist::Distributor: " + std::to_string(items) + " items for a plan of " +
                         std::to_string(sent()));
}

namespace {
// Items of `size` bytes (a compile-time size where it is a common one, so the copies inline)
// gathered in `order` into `packed`.
template <std::size_t Size>
void pack_items(const char* from, const std::vector<std::size_t>& order, char* packed) {
    for (std::size_t j = 0; j < order.size(); ++j) std::memcpy(packed + j * Size, from + order[j] * Size, Size);
}
void pack(const char* from, const std::vector<std::size_t>& order, std::size_t size, char* packed) {
    switch (size) {
    case 4: return pack_items<4>(from, order, packed);
    case 8: return pack_items<8>(from, order, packed);
    case 20: return pack_items<20>(from, order, packed);
    case 40: return pack_items<40>(from, order, packed);
    default:
        for (std::size_t j = 0; j < order.size(); ++j) std::memcpy(packed + j * size, from + order[j] * size, size);
    }
}
} // namespace

void Distributor::distribute(const void* items, std::size_t size, void* received) const {
    // Kept between calls: a plan is made per evaluation, its messages are the same size.
    thread_local std::vector<char> packed;
    packed.resize(order_.size() * size);
    pack(static_cast<const char*>(items), order_, size, packed.data());
    std::vector<std::size_t> send_bytes, recv_bytes;
    for (std::size_t r = 0; r < send_counts_.size(); ++r) {
        send_bytes.push_back(send_counts_[r] * size);
        recv_bytes.push_back(sources_[r].size() * size);
    }
    communicator_->alltoallv(packed.data(), send_bytes, received, recv_bytes);
}

} // namespace partcl::dist
