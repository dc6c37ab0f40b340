#include <partcl/dist/communicator.hpp>

#include <algorithm>
#include <climits>
#include <cstring>
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

#if PARTCL_WITH_MPI
namespace {
std::vector<std::size_t> starts_of(const std::vector<std::size_t>& counts) {
    std::vector<std::size_t> starts(counts.size(), 0);
    for (std::size_t r = 1; r < counts.size(); ++r) starts[r] = starts[r - 1] + counts[r - 1];
    return starts;
}
bool fits_int(const std::vector<std::size_t>& counts) {
    std::size_t total = 0;
    for (std::size_t c : counts) total += c;
    return total <= std::size_t(INT_MAX);
}
} // namespace
#endif

void Communicator::check_ranks(std::size_t count, const char* call) const {
    if (count != std::size_t(size_))
        throw UsageError("Communicator::" + std::string(call) + ": " + std::to_string(count) +
                         " counts for " + std::to_string(size_) + " ranks");
}

void Communicator::allgatherv(const void* mine, const std::vector<std::size_t>& counts,
                              void* received) const {
    check_ranks(counts.size(), "allgatherv");
    if (!impl_) {
        if (counts[0] > 0) std::memcpy(received, mine, counts[0]);
        return;
    }
#if PARTCL_WITH_MPI
    const std::vector<std::size_t> starts = starts_of(counts);
    if (fits_int(counts)) {
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

void Communicator::alltoallv(const void* sent, const std::vector<std::size_t>& send_counts,
                             void* received, const std::vector<std::size_t>& recv_counts) const {
    check_ranks(send_counts.size(), "alltoallv");
    check_ranks(recv_counts.size(), "alltoallv");
    const std::size_t me = std::size_t(rank_);
    if (send_counts[me] != recv_counts[me])
        throw UsageError("Communicator::alltoallv: rank " + std::to_string(rank_) + " sends itself " +
                         std::to_string(send_counts[me]) + " bytes but expects " +
                         std::to_string(recv_counts[me]));
    if (!impl_) {
        if (send_counts[0] > 0) std::memcpy(received, sent, send_counts[0]);
        return;
    }
#if PARTCL_WITH_MPI
    const std::vector<std::size_t> send_starts = starts_of(send_counts),
                                   recv_starts = starts_of(recv_counts);
    if (fits_int(send_counts) && fits_int(recv_counts)) {
        const auto ints = [](const std::vector<std::size_t>& v) { return std::vector<int>(v.begin(), v.end()); };
        detail::check_mpi(MPI_Alltoallv(sent, ints(send_counts).data(), ints(send_starts).data(), MPI_BYTE,
                                        received, ints(recv_counts).data(), ints(recv_starts).data(),
                                        MPI_BYTE, impl_->comm),
                          "MPI_Alltoallv");
        return;
    }
    // Past int counts: pieces of at most 1 GiB, every receive and send posted at once. A
    // receiver cuts what it expects from a rank as that rank cuts what it sends, so the pieces
    // match in number and order (MPI keeps one sender's messages in order); posting them all
    // means no rank waits on a partner that has fewer pieces for it than it has for another.
    constexpr std::size_t round = std::size_t(1) << 30;
    std::memcpy(static_cast<char*>(received) + recv_starts[me],
                static_cast<const char*>(sent) + send_starts[me], send_counts[me]);
    std::vector<MPI_Request> requests;
    for (std::size_t r = 0; r < std::size_t(size_); ++r) {
        if (r == me) continue;
        for (std::size_t done = 0; done < recv_counts[r]; done += round) {
            requests.emplace_back();
            detail::check_mpi(MPI_Irecv(static_cast<char*>(received) + recv_starts[r] + done,
                                        int(std::min(round, recv_counts[r] - done)), MPI_BYTE, int(r), 0,
                                        impl_->comm, &requests.back()),
                              "MPI_Irecv");
        }
    }
    for (std::size_t r = 0; r < std::size_t(size_); ++r) {
        if (r == me) continue;
        for (std::size_t done = 0; done < send_counts[r]; done += round) {
            requests.emplace_back();
            detail::check_mpi(MPI_Isend(static_cast<const char*>(sent) + send_starts[r] + done,
                                        int(std::min(round, send_counts[r] - done)), MPI_BYTE, int(r), 0,
                                        impl_->comm, &requests.back()),
                              "MPI_Isend");
        }
    }
    detail::check_mpi(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
#endif
}

void Communicator::sendrecv(const void* sent, std::size_t send_bytes, int to, void* received,
                            std::size_t recv_bytes, int from) const {
    if (to < 0 || to >= size_ || from < 0 || from >= size_)
        throw UsageError("Communicator::sendrecv: to rank " + std::to_string(to) + " from rank " +
                         std::to_string(from) + " of " + std::to_string(size_));
    if (!impl_) {  // one rank: to itself
        if (send_bytes != recv_bytes)
            throw UsageError("Communicator::sendrecv: " + std::to_string(send_bytes) + " bytes sent to this rank, " +
                             std::to_string(recv_bytes) + " received");
        if (send_bytes > 0) std::memmove(received, sent, send_bytes);
        return;
    }
#if PARTCL_WITH_MPI
    // In rounds past MPI's int counts; sender and receiver cut the same bytes the same way.
    constexpr std::size_t round = std::size_t(1) << 30;
    std::vector<MPI_Request> requests;
    for (std::size_t done = 0; done < recv_bytes; done += round) {
        requests.emplace_back();
        detail::check_mpi(MPI_Irecv(static_cast<char*>(received) + done, int(std::min(round, recv_bytes - done)),
                                    MPI_BYTE, from, 1, impl_->comm, &requests.back()),
                          "MPI_Irecv");
    }
    for (std::size_t done = 0; done < send_bytes; done += round) {
        requests.emplace_back();
        detail::check_mpi(MPI_Isend(static_cast<const char*>(sent) + done, int(std::min(round, send_bytes - done)),
                                    MPI_BYTE, to, 1, impl_->comm, &requests.back()),
                          "MPI_Isend");
    }
    detail::check_mpi(MPI_Waitall(int(requests.size()), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
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
