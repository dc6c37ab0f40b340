#pragma once
// ParticleMesh: the long-range half of TreePM gravity in a periodic cube (after Gadget-2's PM),
// on device 0 of a context (cl/nbody/particle_mesh.cl). Per evaluation: the bodies binned by
// mesh cell (CellList), their mass density at the nodes by triangular-shaped clouds (TSC), the
// potential by FFT
//   phi_k = -4 pi G rho_k exp(-k^2 r_s^2) / (k^2 W(k)^2),   W = prod_axes sinc(pi m / nodes)^3
// (the TSC window deconvolved for the deposit and the interpolation; at k = 0 the mean of the
// short range's erfc kernel over the mean density, 4 pi G r_s^2 rho_mean, which the tree's sum,
// cut at a finite radius, leaves out of the potential; the mean density itself is the
// background), each component of g = -grad phi spectrally (-i k phi_k), then g and phi at the
// bodies with the deposit's weights. All of it twice, the second time on a mesh shifted by half
// a cell along every axis, and the two averaged (interlacing: the aliased images of odd order
// cancel). The two meshes' fields being real, they share transforms: both densities one
// forward transform, the six field components three inverse ones. TSC and interlacing each cut the
// force's error near r_s several times over cloud-in-cell on one mesh (docs/cosmology.md). The exp(-k^2 r_s^2)
// leaves the part of each pair's force that the tree's erfc(r / 2 r_s) / r leaves out
// (ShortRangeSplit): together Newton's periodic gravity.
//
// The potential added is the mesh's plus G m / (sqrt(pi) r_s) for each body: the mesh's
// potential at a body includes its own smoothed mass, -G m / (sqrt(pi) r_s), which the Ewald
// convention (ewald_reference.hpp) counts in its psi_0 as the images only.
#include <array>
#include <cstddef>
#include <memory>
#include <vector>

#include <partcl/algorithm/cell_list.hpp>
#include <partcl/algorithm/fft.hpp>
#include <partcl/jit/compiler.hpp>
#include <partcl/jit/kernel.hpp>

namespace partcl {

struct MeshParameters {
    double box = 1;          // edge of the periodic cube
    std::size_t nodes = 64;  // mesh nodes per axis
    double split = 0;        // r_s, a length
    double G = 1;
};

// One shell of a power spectrum: wave numbers |k| within half a fundamental 2 pi / box of
// `index` fundamentals, their mean, the mean power over its modes and how many there are.
struct PowerBin {
    std::size_t index = 0;
    double k = 0;
    double power = 0;
    std::size_t modes = 0;
};

struct PowerSpectrum {
    std::vector<PowerBin> bins;  // shells 1 to nodes / 2 (the Nyquist frequency), empty ones left out
    double shot_noise = 0;       // V sum m^2 / (sum m)^2, not subtracted from the bins
};

class ParticleMesh {
public:
    // UsageError for a box or r_s that is not positive and finite, G not positive, or fewer
    // than 8 nodes per axis; Unsupported for a mesh the FFT cannot take.
    ParticleMesh(Context& context, Precision precision, const MeshParameters& parameters,
                 ProgramCache& cache = ProgramCache::global());

    // Adds the long-range accelerations of n bodies (positions[0, 3n) as x | y | z, anywhere:
    // each is taken at its image in the box) to out[out_offset, out_offset + 3n) (a_x | a_y |
    // a_z), and their potentials to potential[0, n) when given, on device 0's queue. UsageError
    // for short buffers, buffers of another precision, or a NaN or infinite position.
    void add(const RealBuffer& positions, const RealBuffer& mass, std::size_t n, RealBuffer& out,
             std::size_t out_offset, RealBuffer* potential = nullptr);

    // The bodies' matter power spectrum P(k) = V <|delta_k|^2> (delta the density contrast, its
    // transform the continuous one's normalisation, V the box's volume): the density on both
    // interlaced meshes, their spectra averaged and divided by the TSC window, averaged in
    // shells. Blocks (reads the mesh back). UsageError as add() and for bodies of total mass 0.
    PowerSpectrum power_spectrum(const RealBuffer& positions, const RealBuffer& mass, std::size_t n);

    const MeshParameters& parameters() const noexcept { return parameters_; }
    double spacing() const noexcept { return parameters_.box / double(parameters_.nodes); }

private:
    // UsageError for inputs (and outputs, where given) of another precision, too short, or past
    // the kernels' 32-bit indices.
    void check(const RealBuffer& positions, const RealBuffer& mass, std::size_t n,
               const RealBuffer* out = nullptr, std::size_t out_offset = 0,
               const RealBuffer* potential = nullptr) const;
    void reserve(std::size_t n);
    // The density of the bodies shifted by `pass` half cells along every axis into mesh_'s real
    // (pass 0) or imaginary (pass 1) parts, the bodies in that mesh's cell order kept in
    // sorted_[pass] and sorted_mass_[pass] (pass 0's order in first_order_).
    void deposit(const RealBuffer& positions, const RealBuffer& mass, std::size_t n, int pass);
    // Both meshes' densities and their shared spectrum, in mesh_.
    void density_spectrum(const RealBuffer& positions, const RealBuffer& mass, std::size_t n);

    Context& context_;
    Precision precision_;
    MeshParameters parameters_;
    CellList cells_;
    Fft fft_;
    Program program_;
    Kernel wrap_, deposit_layer_, deposit_sum_, fields_, interpolate_, power_;
    RealBuffer wrapped_;
    std::array<RealBuffer, 2> sorted_, sorted_mass_;
    Buffer<std::uint32_t> first_order_;
    RealBuffer mesh_;                     // both meshes' densities (re, im), then their spectrum
    std::array<RealBuffer, 3> field_;     // two field components each, as spectra, then values
    RealBuffer potential_;                // both meshes' potentials, made when first asked for
    std::size_t capacity_ = 0;
};

} // namespace partcl
