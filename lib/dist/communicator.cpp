#include <partcl/dist/communicator.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>

#include <partcl/backend/error.hpp>

#if PARTCL_WITH_MPI
#include "dist/mpi.hpp"
#endif

namespace partcl::dist {

namespace {
const Communicator* running_world = nullptr;
} // namespace

#if PARTCL_WITH_MPI
namespace detail {
void check_mpi(int status, const char* call) {
    if (status == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING] = {};
    int length = 0, error_class = status;
    MPI_Error_class(status, &error_class);
    MPI_Error_string(status, text, &length);
    throw BackendError(call, status, "MPI error class " + std::to_string(error_class),
                       std::string(text, std::size_t(length)), {});
}
void set_world(const Communicator* world) { running_world = world; }
} // namespace detail
#endif

Communicator::Communicator(std::shared_ptr<const Impl> impl, int rank, int size, int node_rank,
                           int node_size)
    : impl_(std::move(impl)), rank_(rank), size_(size), node_rank_(node_rank),
      node_size_(node_size) {}

const Communicator& Communicator::self() {
    static const Communicator alone(nullptr, 0, 1, 0, 1);
    return alone;
}

const Communicator& Communicator::world() { return running_world ? *running_world : self(); }

double Communicator::max(double value) const {
    if (size_ == 1) return value;
    double largest = -std::numeric_limits<double>::infinity();
    for (const double v : allgather(value)) {
        if (std::isnan(v)) return v;
        largest = std::max(largest, v);
    }
    return largest;
}

void Communicator::barrier() const {
#if PARTCL_WITH_MPI
    if (impl_) detail::check_mpi(MPI_Barrier(impl_->comm), "MPI_Barrier");
#endif
}

void Communicator::allgatherv(const void* mine, const std::vector<std::size_t>& counts,
                              void* received) const {
    if (counts.size() != std::size_t(size_))
        throw UsageError("Communicator::allgatherv: " + std::to_string(counts.size()) +
                         " counts for " + std::to_string(size_) + " ranks");
    if (!impl_) {
        if (counts[0] > 0) std::memcpy(received, mine, counts[0]);
        return;
    }
#if PARTCL_WITH_MPI
    std::vector<std::size_t> starts(counts.size(), 0);
    for (std::size_t r = 1; r < counts.size(); ++r) starts[r] = starts[r - 1] + counts[r - 1];
    if (starts.back() + counts.back() <= std::size_t(INT_MAX)) {
        std::vector<int> sizes(counts.begin(), counts.end()), offsets(starts.begin(), starts.end());
        detail::check_mpi(MPI_Allgatherv(mine, sizes[std::size_t(rank_)], MPI_BYTE, received,
                                         sizes.data(), offsets.data(), MPI_BYTE, impl_->comm),
                          "MPI_Allgatherv");
        return;
    }
    // Past MPI's int counts and displacements: each rank's bytes broadcast from it into place
    // (broadcast() goes in rounds).
    for (std::size_t r = 0; r < counts.size(); ++r) {
        char* into = static_cast<char*>(received) + starts[r];
        if (int(r) == rank_ && counts[r] > 0) std::memcpy(into, mine, counts[r]);
        broadcast(into, counts[r], int(r));
    }
#endif
}

void Communicator::broadcast(void* data, std::size_t bytes, int root) const {
    if (root < 0 || root >= size_)
        throw UsageError("Communicator::broadcast: root " + std::to_string(root) + " of " +
                         std::to_string(size_) + " ranks");
    if (!impl_) return;
#if PARTCL_WITH_MPI
    constexpr std::size_t round = std::size_t(1) << 30;
    for (std::size_t done = 0; done < bytes; done += round)
        detail::check_mpi(MPI_Bcast(static_cast<char*>(data) + done,
                                    int(std::min(round, bytes - done)), MPI_BYTE, root,
                                    impl_->comm),
                          "MPI_Bcast");
#else
    (void)data;
    (void)bytes;
#endif
}

std::string Communicator::broadcast(const std::string& text, int root) const {
    std::size_t length = text.size();
    broadcast(&length, sizeof length, root);
    std::string out = rank_ == root ? text : std::string(length, '\0');
    broadcast(out.data(), length, root);
    return out;
}

} // namespace partcl::dist
