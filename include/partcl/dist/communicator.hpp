#pragma once
// Communicator: the ranks of a run, and the few collectives partcl's communication plans are
// made of. world() is MPI_COMM_WORLD while an Environment runs MPI, else one rank alone, for
// which every collective is a copy; code written against it runs the same either way.
//
// Collectives work on plain bytes and any count (a message larger than MPI's int counts is sent
// in rounds). Every rank must call each collective, in the same order.
#include <cstddef>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace partcl::dist {

class Communicator {
public:
    // The processes of this run.
    static const Communicator& world();
    // This process alone, whatever runs: for work that each rank does by itself.
    static const Communicator& self();

    int rank() const noexcept { return rank_; }
    int size() const noexcept { return size_; }
    bool root() const noexcept { return rank_ == 0; }
    // This rank among the ranks of its own machine (MPI_COMM_TYPE_SHARED): which of the
    // machine's devices it takes (device_share.hpp).
    int node_rank() const noexcept { return node_rank_; }
    int node_size() const noexcept { return node_size_; }

    void barrier() const;

    // Every rank's `counts[rank]` bytes, concatenated in rank order into `received` (the sum of
    // counts bytes); `mine` holds counts[rank()] bytes.
    void allgatherv(const void* mine, const std::vector<std::size_t>& counts,
                    void* received) const;
    // Personalised exchange: send_counts[r] bytes of `sent` (rank order, back to back) to rank
    // r, and recv_counts[r] bytes from rank r into `received` (rank order, back to back);
    // recv_counts must be what each rank sends here (alltoall() of the counts tells).
    void alltoallv(const void* sent, const std::vector<std::size_t>& send_counts, void* received,
                   const std::vector<std::size_t>& recv_counts) const;
    // Point to point, both at once (a step of a ring): send_bytes of `sent` to rank `to`, and
    // recv_bytes from rank `from` into `received`. Each rank's send_bytes must be what its `to`
    // asks to receive.
    void sendrecv(const void* sent, std::size_t send_bytes, int to, void* received,
                  std::size_t recv_bytes, int from) const;
    // `bytes` bytes of `root`'s `data` into every rank's `data`.
    void broadcast(void* data, std::size_t bytes, int root = 0) const;

    // One value per rank, in rank order.
    template <class T>
    std::vector<T> allgather(const T& value) const {
        static_assert(std::is_trivially_copyable_v<T>, "allgather sends bytes");
        std::vector<T> all(static_cast<std::size_t>(size_));
        allgatherv(&value, std::vector<std::size_t>(std::size_t(size_), sizeof(T)), all.data());
        return all;
    }
    // values[r] to rank r; what each rank sent here, in rank order.
    template <class T>
    std::vector<T> alltoall(const std::vector<T>& values) const {
        static_assert(std::is_trivially_copyable_v<T>, "alltoall sends bytes");
        check_ranks(values.size(), "alltoall");
        const std::vector<std::size_t> counts(std::size_t(size_), sizeof(T));
        std::vector<T> received(static_cast<std::size_t>(size_));
        alltoallv(values.data(), counts, received.data(), counts);
        return received;
    }
    // Every rank's vector, concatenated in rank order.
    template <class T>
    std::vector<T> allgatherv(const std::vector<T>& mine) const {
        static_assert(std::is_trivially_copyable_v<T>, "allgatherv sends bytes");
        const std::vector<std::size_t> sizes = allgather(mine.size());
        std::vector<std::size_t> counts;
        std::size_t total = 0;
        for (std::size_t s : sizes) {
            counts.push_back(s * sizeof(T));
            total += s;
        }
        std::vector<T> all(total);
        allgatherv(mine.data(), counts, all.data());
        return all;
    }
    // Component-major values (component k of this rank's item i at k * n + i, n their number
    // over `components`): every rank's items, component after component, each in rank order.
    template <class T>
    std::vector<T> allgatherv_components(const std::vector<T>& mine, std::size_t components) const {
        const std::size_t n = components > 0 ? mine.size() / components : 0;
        std::vector<T> all;
        for (std::size_t k = 0; k < components; ++k) {
            const auto begin = mine.begin() + std::ptrdiff_t(k * n);
            const std::vector<T> every = allgatherv(std::vector<T>(begin, begin + std::ptrdiff_t(n)));
            all.insert(all.end(), every.begin(), every.end());
        }
        return all;
    }
    // A text from `root` to every rank (a message, a file name).
    std::string broadcast(const std::string& text, int root = 0) const;
    // The largest of every rank's value, the same on every rank; NaN where any rank's is NaN.
    double max(double value) const;

    // Whether this is MPI's communicator (false: one rank without MPI).
    bool mpi() const noexcept { return impl_ != nullptr; }

    struct Impl;
    Communicator(std::shared_ptr<const Impl> impl, int rank, int size, int node_rank,
                 int node_size);

private:
    // UsageError unless `count` (of a per-rank argument) is size().
    void check_ranks(std::size_t count, const char* call) const;

    std::shared_ptr<const Impl> impl_;  // null: one rank alone
    int rank_ = 0, size_ = 1, node_rank_ = 0, node_size_ = 1;
};

} // namespace partcl::dist
