#pragma once
// Snapshots: bodies at one time in the GADGET-2/GADGET-4 HDF5 layout, so h5py, yt and the
// usual analysis tools read them.
//
//   /Header attributes  NumPart_ThisFile, NumPart_Total, NumPart_Total_HighWord (uint32[6]),
//                       MassTable (double[6], all 0: masses are per body), Time, Redshift (0),
//                       BoxSize, Omega0 (0), OmegaLambda (0), HubbleParam (1),
//                       NumFilesPerSnapshot (int32 1), Flag_Sfr, Flag_Cooling,
//                       Flag_StellarAge, Flag_Metals, Flag_Feedback (int32 0),
//                       Flag_DoublePrecision (int32 1)
//   /PartType1/Coordinates (N x 3 double), Velocities (N x 3 double),
//              ParticleIDs (uint64 N, 1..N in body order), Masses (double N)
//
// All bodies are written as particle type 1 ("halo"/dark matter, collisionless).
#include <filesystem>

#include <partcl/models/nbody/bodies.hpp>

namespace partcl {

struct Snapshot {
    Bodies bodies;
    double time = 0;
    double box_size = 0;
};

// Writes atomically (see atomic_file.hpp); throws partcl::Error when the file cannot be
// written, UsageError when the bodies are invalid (Bodies::validate) or N >= 2^32.
void write_snapshot(const std::filesystem::path& file, const Bodies& bodies, double time,
                    double box_size = 0);

// Reads every /PartType0..5 group present, in type order (so GADGET files with several
// particle types read too), converting stored floats to double. Masses come from each group's
// Masses dataset, or from the header's MassTable entry when the dataset is absent (GADGET's
// convention). Cosmological factors are not applied. Throws UsageError naming the file and the
// problem: missing, not HDF5, truncated or damaged, no /Header or no particles, missing
// datasets, wrong shapes or counts that disagree with the header; the bodies are validated.
Snapshot read_snapshot(const std::filesystem::path& file);

} // namespace partcl
