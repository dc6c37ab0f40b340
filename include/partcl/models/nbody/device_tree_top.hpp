#pragma once
// DeviceTreeTop: TreeTop's split with the bodies on the device (cl/nbody/tree_top.cl), and the
// device's part of their move to the ranks that own their nodes and of their results' way
// back (EssentialTreeGravity). The split is the host TreeTop's algorithm (the reference, which
// the tests hold it to bit for bit) with the sorts, the selection's keys and counts and the
// children on the device: the host sends each round a few places and pivots and reads back as
// few keys and counts.
//
//   DeviceTreeTop top(context, precision);
//   const TreeTop cells = top.split(world, positions, index.data(), n, total, 3);
//   top.pack(positions, mass, records, tags);   // this rank's bodies by node, for the move
//   // ... the records of each node's rank arrive there in runs, one a sending rank:
//   top.merge(runs, records, tags, arrived, positions, mass);   // in the one-rank tree's order
#include <cstdint>
#include <vector>

#include <partcl/algorithm/sort_by_key.hpp>
#include <partcl/dist/communicator.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/models/nbody/tree_top.hpp>
#include <partcl/runtime/buffer.hpp>
#include <partcl/runtime/real_buffer.hpp>

namespace partcl {

class DeviceTreeTop {
public:
    // Runs on device 0's queue of `context`, in `precision`.
    DeviceTreeTop(Context& context, Precision precision, ProgramCache& cache = ProgramCache::global());

    Precision precision() const noexcept { return precision_; }

    // Collective, as TreeTop::split: this rank's n bodies at positions (x | y | z, n each) with
    // global indices `index`; the same TreeTop the host's split gives. The bodies' order and
    // nodes stay on the device for pack() (until the next split).
    TreeTop split(const dist::Communicator& ranks, const RealBuffer& positions, const std::uint64_t* index,
                  std::size_t n, std::size_t total, std::size_t levels);

    // The bodies of the latest split in its order (by node, so by the rank that owns the node):
    // records[4 s ..] = x, y, z, m and tags[2 s ..] = global index, node of the body at place s.
    void pack(const RealBuffer& positions, const RealBuffer& mass, RealBuffer& records,
              Buffer<std::uint32_t>& tags);
    // Records and tags as pack() writes them, arrived in runs (run r at [runs[r], runs[r + 1]),
    // each in the one-rank tree's order at the latest split's level, as a run of a sending
    // rank's is): order[j] = the record at place j of that order among all of them, and the
    // bodies laid out in it (positions x | y | z, masses) for TreeGravity::build_branches.
    void merge(const std::vector<std::size_t>& runs, const RealBuffer& records, const Buffer<std::uint32_t>& tags,
               Buffer<std::uint32_t>& order, RealBuffer& positions, RealBuffer& mass);
    // The walk's results of those bodies (acceleration x | y | z and potentials, by the build's
    // body j, its perm: place -> body) by arrival, 4 a record: ax, ay, az, potential (0 without
    // potentials).
    void results_by_arrival(std::size_t held, const Buffer<std::uint32_t>& order, const Buffer<std::uint32_t>& perm,
                            const RealBuffer& acc, const RealBuffer* potential, RealBuffer& results);
    // Results come home, 4 a record in the latest split's order: each body's acceleration to
    // out[offset + c n + body], its potential to potential[body].
    void results_home(const RealBuffer& results, RealBuffer& out, std::size_t offset, RealBuffer* potential);

private:
    enum Which : std::size_t { bounds, start, keys, groups, probe, count_before, children, pack_, merge_,
                               place, by_arrival, home };
    template <class T>
    struct Store;

    Context& context_;
    Precision precision_;
    SortByKey sort_;
    std::vector<Kernel> kernels_;
    std::size_t n_ = 0, levels_ = 0;
    Buffer<std::uint32_t> index_, perm_, values_, node_, uint_keys_, axis_, asks_, found_, run_;
    RealBuffer real_keys_, partial_, probe_keys_, pivots_;
};

} // namespace partcl
