#pragma once
// Which of a machine's selected devices a rank drives: the ranks of one machine divide its
// devices between them in node-rank order, as evenly as they go (two ranks, four GPUs: two
// each); where there are more ranks than devices, ranks take the devices in turn and share them
// (three ranks, one CPU device: all three on it).
#include <vector>

#include <partcl/dist/communicator.hpp>
#include <partcl/runtime/context.hpp>
#include <partcl/runtime/device.hpp>
#include <partcl/runtime/filter.hpp>

namespace partcl::dist {

// Node rank `node_rank` of `node_size`'s devices among `devices` (UsageError where `devices` is
// empty or the node rank is out of range).
std::vector<Device> device_share(const std::vector<Device>& devices, int node_rank, int node_size);

inline std::vector<Device> device_share(const std::vector<Device>& devices,
                                        const Communicator& communicator) {
    return device_share(devices, communicator.node_rank(), communicator.node_size());
}

// A context of this rank's share of the devices `filter` selects (Context::devices_for): what
// `partcl run` works on under mpirun. One rank alone takes them all.
inline Context rank_context(const DeviceFilter& filter, const Communicator& communicator) {
    return Context(device_share(Context::devices_for(filter), communicator));
}

} // namespace partcl::dist
