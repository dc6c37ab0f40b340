#pragma once
// Snapshots: bodies at one time in the GADGET-2/GADGET-4 HDF5 layout, so h5py, yt, pynbody and
// the usual analysis tools read them (docs/scenarios.md, "Snapshots", shows how).
//
//   /Header attributes  NumPart_ThisFile, NumPart_Total, NumPart_Total_HighWord (uint32[6]),
//                       MassTable (double[6], all 0: masses are per body), Time, Redshift,
//                       BoxSize, Omega0, OmegaLambda, HubbleParam (SnapshotCosmology),
//                       NumFilesPerSnapshot (int32 1), Flag_Sfr, Flag_Cooling,
//                       Flag_StellarAge, Flag_Metals, Flag_Feedback (int32 0),
//                       Flag_DoublePrecision (int32 1);
//                       PositionOffset (double[3]) when not periodic;
//                       Time_GYR (double) with units, not cosmological
//   /Units attributes   UnitLength_in_cm, UnitMass_in_g, UnitVelocity_in_cm_per_s,
//                       UnitTime_in_s, UnitEnergy_in_cgs (double), with units only
//   /PartType1/Coordinates (N x 3 double), Velocities (N x 3 double),
//              ParticleIDs (uint64 N, 1..N in body order), Masses (double N); each with
//              aexp-scale-exponent and h-scale-exponent (0 but in cosmological runs) and, with
//              units, VarDescription and CGSConversionFactor (EAGLE's convention)
//
// All bodies are written as particle type 1 ("halo"/dark matter, collisionless).
//
// A GADGET domain is [0, BoxSize)^3, which yt places particles in. A periodic run's positions
// lie there already. A run in open space (box_size 0) has its positions shifted by
// PositionOffset = (B/2, B/2, B/2) into a box of side B, the least power of two that holds
// every body: Coordinates = position + PositionOffset, so the run's origin is the box's centre.
// read_snapshot takes the offset back off (the position comes back within one rounding of B/2).
#include <cstdint>
#include <filesystem>
#include <vector>

#include <partcl/io/units.hpp>
#include <partcl/models/nbody/bodies.hpp>

namespace partcl {

// A cosmological run's header: Time is the scale factor a, Redshift 1 / a - 1, and Omega0,
// OmegaLambda and HubbleParam the run's. The writer gives Coordinates aexp-scale-exponent 1
// and h-scale-exponent -1 (comoving, h scaled out), Masses h-scale-exponent -1 and Velocities
// aexp-scale-exponent 0.5: the caller writes GADGET's velocities, sqrt(a) dx/dt (the canonical
// u = a^2 dx/dt over a^1.5). The default, omega_matter 0, is no cosmology (the header's
// Redshift 0, Omega0 0, OmegaLambda 0, HubbleParam 1).
struct SnapshotCosmology {
    double redshift = 0;
    double omega_matter = 0;
    double omega_lambda = 0;
    double h = 1;
    bool comoving() const noexcept { return omega_matter > 0; }
};
inline bool operator==(const SnapshotCosmology& a, const SnapshotCosmology& b) {
    return a.redshift == b.redshift && a.omega_matter == b.omega_matter &&
           a.omega_lambda == b.omega_lambda && a.h == b.h;
}
inline bool operator!=(const SnapshotCosmology& a, const SnapshotCosmology& b) { return !(a == b); }

struct Snapshot {
    Bodies bodies;
    double time = 0;
    double box_size = 0;  // the periodic box's side; 0: open space
    UnitSystem units;     // from /Units; none (not known()) when the file has none
    SnapshotCosmology cosmology;  // from /Header when its Omega0 > 0
};

// Writes atomically (see atomic_file.hpp); throws partcl::Error when the file cannot be
// written, UsageError when the bodies are invalid (Bodies::validate), N >= 2^32, box_size is
// negative or not finite, or units are given but not all positive. box_size > 0 is a periodic
// box: the positions are written as they are (the caller keeps them in [0, box_size)). A
// cosmology other than the default needs a periodic box, time the scale factor of its
// redshift, Omega0 in (0, 10], OmegaLambda in [0, 10] and a positive HubbleParam (UsageError).
void write_snapshot(const std::filesystem::path& file, const Bodies& bodies, double time,
                    double box_size = 0, const UnitSystem& units = {},
                    const SnapshotCosmology& cosmology = {});

// Snapshots that several processes (MPI ranks) write together, none holding every body. Each
// writes its bodies to a piece, in GADGET's multi-file layout: "snapshot_000010.h5" has the
// pieces "snapshot_000010.0.h5", ".1.h5", ..., each with its NumPart_ThisFile, the whole
// NumPart_Total and NumFilesPerSnapshot the number of pieces, its ParticleIDs continuing the
// previous piece's. Then one process writes the snapshot file itself, a file like
// write_snapshot's whose datasets are HDF5 virtual datasets (HDF5 1.10 on) over the pieces'
// (named relative to the file's folder, so the set moves as one): h5py, yt, pynbody and
// read_snapshot read it as one file, the pieces' bodies in piece order. `counts` is every
// piece's number of bodies, the same on every writer; `largest_coordinate` the largest
// largest_coordinate() of every piece's bodies (an open-space snapshot's domain, the same in
// every piece, depends on it).
struct SnapshotPieces {
    std::vector<std::uint64_t> counts;
    double largest_coordinate = 0;
};
// The largest |x|, |y|, |z| of the bodies (0 for none).
double largest_coordinate(const Bodies& bodies);
// "snapshot_000010.h5", 3 -> "snapshot_000010.3.h5".
std::filesystem::path snapshot_piece_file(const std::filesystem::path& file, std::size_t index);
// Writes piece `index` of the snapshot `file` atomically, as write_snapshot does, from that
// piece's bodies (as many as its count; none is allowed). UsageError as write_snapshot's, and
// for a count that is not the bodies', or bodies beyond the largest coordinate.
void write_snapshot_piece(const std::filesystem::path& file, std::size_t index,
                          const SnapshotPieces& pieces, const Bodies& bodies, double time,
                          double box_size = 0, const UnitSystem& units = {},
                          const SnapshotCosmology& cosmology = {});
// Writes the snapshot `file` over its pieces, once every piece is written: partcl::Error when
// a piece is missing, unreadable or holds another count than `counts` says (the file would read
// zeros in its place). The header's arguments must be the pieces'.
void write_snapshot_of_pieces(const std::filesystem::path& file, const SnapshotPieces& pieces,
                              double time, double box_size = 0, const UnitSystem& units = {},
                              const SnapshotCosmology& cosmology = {});

// Reads every /PartType0..5 group present, in type order (so GADGET files with several
// particle types read too), converting stored floats to double. Masses come from each group's
// Masses dataset, or from the header's MassTable entry when the dataset is absent (GADGET's
// convention). A PositionOffset is taken off; box_size is 0 then. Units come from /Units
// when it holds all three of length, mass and velocity. Cosmological factors are not applied.
// Throws UsageError naming the file and the problem: missing, not HDF5, truncated or damaged,
// no /Header or no particles, missing datasets, wrong shapes or counts that disagree with the
// header, a PositionOffset or units that are not finite; the bodies are validated.
Snapshot read_snapshot(const std::filesystem::path& file);

} // namespace partcl
