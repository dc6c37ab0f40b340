#pragma once
// SlabFft: the discrete Fourier transform (Fft's, unnormalised) of a grid cut between the ranks
// of a communicator in slabs of planes along its slowest axis: z of a 3-D grid, y of 2-D, x of
// 1-D (the highest axis of more than one point). The slab decomposition of Gadget-2's and
// FFTW-MPI's distributed transforms:
//
//   forward  each rank transforms the planes of its slab along the other axes (one batched
//            Fft), the grid is transposed between the ranks (alltoallv: each rank gets its
//            columns of every plane), and each rank transforms its columns along the slab axis;
//   inverse  the same steps backwards.
//
// In space a rank holds its planes planes()[rank], plane after plane, each plane's points x
// fastest: the grid's own layout (interleaved complex, as Fft's) from its first plane on. In
// frequency it holds the columns columns()[rank] of every plane (a column: one point of a plane
// through every plane), frequency s along the slab axis of column q at pair
// s * columns + (q - first column): the slab axis slowest again. On one rank both are the
// grid's own layout and the transform is one Fft of the whole grid.
//
// The transposition goes through host memory (each rank's values read from its device, sent,
// written back), as dist::Allgather's does; a 1-D grid has one column, which rank 0 transforms.
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include <partcl/algorithm/fft.hpp>
#include <partcl/dist/communicator.hpp>
#include <partcl/dist/rank_traffic.hpp>
#include <partcl/sched/partition.hpp>

namespace partcl::dist {

class SlabFft {
public:
    // Collective only in use: every rank makes it with the same shape and `planes` (a partition
    // of the slab axis's planes, one part per rank; UsageError otherwise). The transforms run
    // on device `device` of `context`.
    SlabFft(const Communicator& communicator, Context& context, Precision precision,
            std::array<std::size_t, 3> shape, const Partition& planes, std::size_t device = 0);

    const std::array<std::size_t, 3>& shape() const noexcept { return shape_; }
    int slab_axis() const noexcept { return axis_; }
    std::size_t plane_points() const noexcept { return plane_points_; }
    const Partition& planes() const noexcept { return planes_; }
    const Partition& columns() const noexcept { return columns_; }
    // Reals of this rank's part in space (slab) and in frequency (spectrum).
    std::size_t slab_reals() const noexcept;
    std::size_t spectrum_reals() const noexcept;

    // Collective. `slab` (this rank's planes from its start, at least slab_reals() reals; it is
    // overwritten on the way) into `spectrum` (spectrum_reals(); another buffer), and back.
    // Both on the device's queue; they return once the data are in the destination's queue.
    void forward(RealBuffer& slab, RealBuffer& spectrum);
    void inverse(RealBuffer& spectrum, RealBuffer& slab);

    // The transpositions so far (several ranks): their wall time, from the device's values
    // read to the received ones written, and the bytes this rank sent to the others.
    const RankTraffic& traffic() const noexcept { return traffic_; }

private:
    void check(const RealBuffer& slab, const RealBuffer& spectrum) const;
    // The transpositions between the ranks, timed into traffic_.
    void to_columns(const RealBuffer& slab, RealBuffer& spectrum);
    void to_planes(const RealBuffer& spectrum, RealBuffer& slab);

    const Communicator* communicator_;
    Context* context_;
    Precision precision_;
    std::array<std::size_t, 3> shape_;
    int axis_ = 0;
    std::size_t plane_points_ = 1;
    std::size_t device_;
    Partition planes_, columns_;
    // One rank: the whole grid. Several: this rank's planes along the other axes, and its
    // columns along the slab axis (absent where this rank has none, or planes of one point).
    std::unique_ptr<Fft> whole_, planes_fft_, columns_fft_;
    // Kept between transforms: no fresh pages each time.
    std::vector<char> sent_, received_, slab_host_;
    RankTraffic traffic_;
    // Bytes of send_counts that go to other ranks.
    std::size_t to_others(const std::vector<std::size_t>& send_counts) const;
};

} // namespace partcl::dist
