#pragma once
// Distributor: a communication plan that sends each of this rank's items to the rank it names,
// as Cabana's Distributor does: made once for the items' destinations (a collective that tells
// every rank what arrives), then applied to any number of fields of those items.
//
//     dist::Distributor plan(world, owner_of_each_result);
//     std::vector<std::uint32_t> bodies = plan.distribute(body_of_each_result);
//     plan.distribute(values.data(), 3 * sizeof(float), arrived.data());  // 3 floats an item
//
// Items arrive in rank order of their senders, and each sender's in its own order: the order
// is fixed by the destinations, whatever the transport.
#include <cstddef>
#include <type_traits>
#include <vector>

#include <partcl/dist/communicator.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl::dist {

class Distributor {
public:
    // Collective: destinations[i] is the rank item i of this rank goes to (UsageError for a
    // rank outside the communicator).
    Distributor(const Communicator& communicator, const std::vector<int>& destinations);

    const Communicator& communicator() const noexcept { return *communicator_; }
    std::size_t sent() const noexcept { return order_.size(); }  // this rank's items
    std::size_t received() const noexcept { return sources_.total(); }
    // Where the arrivals came from: rank r's items at [sources()[r].begin, sources()[r].end).
    const Partition& sources() const noexcept { return sources_; }

    // Items of `size` bytes each: items[i] to destinations[i]; `received` holds received()
    // items when it returns.
    void distribute(const void* items, std::size_t size, void* received) const;
    // The same for a vector of items, into `arrived` (resized to received(); its memory kept
    // from call to call, as the packing's is, so large messages do not fault in fresh pages).
    template <class T>
    void distribute(const std::vector<T>& items, std::vector<T>& arrived) const {
        static_assert(std::is_trivially_copyable_v<T>, "a Distributor sends bytes");
        check(items.size());
        arrived.resize(received());
        distribute(items.data(), sizeof(T), arrived.data());
    }
    template <class T>
    std::vector<T> distribute(const std::vector<T>& items) const {
        std::vector<T> arrived;
        distribute(items, arrived);
        return arrived;
    }

private:
    void check(std::size_t items) const;  // UsageError unless items == sent()

    const Communicator* communicator_;
    std::vector<std::size_t> order_;  // items by destination, each destination's in item order
    std::vector<std::size_t> send_counts_;  // items to each rank
    Partition sources_;
};

} // namespace partcl::dist
