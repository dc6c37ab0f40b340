// Writing snapshots (io/snapshot.hpp): the whole file built in memory, then written atomically.
#include <partcl/io/snapshot.hpp>

#include <partcl/backend/error.hpp>
#include <partcl/support/atomic_file.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "io/hdf5_handle.hpp"

namespace partcl {

namespace fs = std::filesystem;
using detail::Handle;
using detail::hdf5_detail;
using detail::hdf5_mutex;
using detail::QuietErrors;

namespace {

// A piece's place in the snapshot file's virtual datasets.
struct Source {
    std::string file;  // relative to the snapshot's folder, which HDF5 resolves it against
    std::uint64_t first = 0, rows = 0;
};

struct Writer {
    const fs::path& target;

    [[noreturn]] void fail(const std::string& what) const {
        const std::string detail = hdf5_detail();
        throw Error("cannot write snapshot " + target.string() + ": " + what +
                    (detail.empty() ? "" : " (" + detail + ")"));
    }

    Handle checked(hid_t id, Handle::Close close, const std::string& what) const {
        if (id < 0) fail(what);
        return Handle(id, close);
    }

    template <class T>
    void attribute(hid_t location, const char* name, hid_t file_type, hid_t memory_type,
                   const T* values, hsize_t count) const {
        Handle space = count == 0 ? checked(H5Screate(H5S_SCALAR), H5Sclose, "dataspace")
                                  : checked(H5Screate_simple(1, &count, nullptr), H5Sclose,
                                            "dataspace");
        Handle attribute = checked(
            H5Acreate2(location, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
            H5Aclose, std::string("attribute ") + name);
        if (H5Awrite(attribute.get(), memory_type, values) < 0)
            fail(std::string("attribute ") + name);
    }

    void text_attribute(hid_t location, const char* name, const std::string& text) const {
        Handle type = checked(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
        if (H5Tset_size(type.get(), text.size()) < 0) fail(std::string("attribute ") + name);
        Handle space = checked(H5Screate(H5S_SCALAR), H5Sclose, "dataspace");
        Handle attribute = checked(
            H5Acreate2(location, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
            H5Aclose, std::string("attribute ") + name);
        if (H5Awrite(attribute.get(), type.get(), text.data()) < 0)
            fail(std::string("attribute ") + name);
    }

    // Creation properties without HDF5's default timestamps, so that the same bodies make the
    // same bytes (a resumed run's snapshots equal the uninterrupted run's).
    Handle untimed(hid_t property_class) const {
        Handle list = checked(H5Pcreate(property_class), H5Pclose, "creation properties");
        if (H5Pset_obj_track_times(list.get(), false) < 0) fail("creation properties");
        return list;
    }

    void real_attribute(hid_t location, const char* name, double value) const {
        attribute(location, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, 0);
    }

    Handle dataset(hid_t group, const char* name, hid_t file_type, hid_t memory_type,
                   const void* values, hsize_t rows, hsize_t columns) const {
        const hsize_t dims[2] = {rows, columns};
        Handle space = checked(H5Screate_simple(columns ? 2 : 1, dims, nullptr), H5Sclose,
                               "dataspace");
        Handle set = checked(H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT,
                                        untimed(H5P_DATASET_CREATE).get(), H5P_DEFAULT),
                             H5Dclose, std::string("dataset ") + name);
        if (rows > 0 && H5Dwrite(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0)
            fail(std::string("dataset ") + name);
        return set;
    }

    // A dataset of `rows` x `columns` (0: one-dimensional) whose rows are the pieces' datasets
    // of the same name under `group_path`, each at its place.
    Handle virtual_dataset(hid_t group, const std::string& group_path, const char* name,
                           hid_t file_type, hsize_t rows, hsize_t columns,
                           const std::vector<Source>& sources) const {
        const int rank = columns ? 2 : 1;
        const hsize_t dims[2] = {rows, columns};
        Handle space = checked(H5Screate_simple(rank, dims, nullptr), H5Sclose, "dataspace");
        Handle properties = untimed(H5P_DATASET_CREATE);
        for (const auto& source : sources) {
            const hsize_t piece[2] = {source.rows, columns};
            Handle piece_space = checked(H5Screate_simple(rank, piece, nullptr), H5Sclose, "dataspace");
            const hsize_t start[2] = {source.first, 0};
            if (H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, piece, nullptr) < 0 ||
                H5Pset_virtual(properties.get(), space.get(), source.file.c_str(),
                               (group_path + name).c_str(), piece_space.get()) < 0)
                fail(std::string("dataset ") + name + " over " + source.file);
        }
        if (H5Sselect_all(space.get()) < 0) fail("dataspace");
        return checked(H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT,
                                  properties.get(), H5P_DEFAULT),
                       H5Dclose, std::string("dataset ") + name);
    }

    // What pynbody reads an array's units from (EAGLE's attributes): the powers of a and h
    // that make it physical and, with units, the description in U_L, U_M, U_V and the factor
    // to CGS.
    void describe(hid_t set, const UnitSystem& units, const char* description, double cgs_factor,
                  double aexp = 0, double hexp = 0) const {
        real_attribute(set, "aexp-scale-exponent", aexp);
        real_attribute(set, "h-scale-exponent", hexp);
        if (!units.known()) return;
        text_attribute(set, "VarDescription", description);
        real_attribute(set, "CGSConversionFactor", cgs_factor);
    }
};

// HDF5's core driver keeps an in-memory file in a buffer these callbacks manage; the last one,
// at close, keeps its bytes.
struct CapturedImage {
    std::string image;
    std::size_t size = 0;  // of the buffer
};
void* image_malloc(std::size_t size, H5FD_file_image_op_t, void* udata) {
    static_cast<CapturedImage*>(udata)->size = size;
    return std::malloc(size);
}
void* image_memcpy(void* to, const void* from, std::size_t size, H5FD_file_image_op_t, void*) {
    return std::memcpy(to, from, size);
}
void* image_realloc(void* buffer, std::size_t size, H5FD_file_image_op_t, void* udata) {
    void* grown = std::realloc(buffer, size);
    if (grown) static_cast<CapturedImage*>(udata)->size = size;
    return grown;
}
herr_t image_free(void* buffer, H5FD_file_image_op_t op, void* udata) {
    auto& captured = *static_cast<CapturedImage*>(udata);
    if (op == H5FD_FILE_IMAGE_OP_FILE_CLOSE && buffer)
        captured.image.assign(static_cast<const char*>(buffer), captured.size);
    std::free(buffer);
    return 0;
}
void* image_udata_copy(void* udata) { return udata; }
herr_t image_udata_free(void*) { return 0; }

// The side of the domain of an open-space run: the least power of two above twice the largest
// |coordinate| with a margin, so that every position + side / 2 rounds to below the side.
double open_box_side(const fs::path& target, double largest) {
    if (largest == 0) return 1.0;
    if (!(largest < std::ldexp(1.0, 1020)))
        throw UsageError("cannot write snapshot " + target.string() +
                         ": positions too large to place in a domain (|x| up to " +
                         std::to_string(largest) + ")");
    int exponent = 0;
    std::frexp(2 * largest * (1 + 1.0 / 1024), &exponent);
    return std::ldexp(1.0, exponent);
}

// What one file holds: `rows` bodies from the `first`-th of `total`, in a snapshot of `files`
// files; with `sources`, no bodies of its own but virtual datasets over those pieces.
struct Layout {
    std::uint64_t rows = 0, first = 0, total = 0;
    std::int32_t files = 1;
    double largest = 0;  // |coordinate| over the whole snapshot
    const std::vector<Source>* sources = nullptr;
};

// The whole file, built in memory: the disk is written by write_file_atomically alone, so a full
// disk is one clear error and never an HDF5 file left half closed (which libhdf5 1.10.8 then
// crashes on at exit, closing it again).
std::string hdf5_image(const fs::path& target, const Bodies& bodies, const Layout& layout,
                       double time, double box_size, const UnitSystem& units,
                       const SnapshotCosmology& cosmo) {
    const Writer w{target};
    const std::size_t n = bodies.size();
    const bool open_space = box_size == 0;
    const double box = open_space ? open_box_side(target, layout.largest) : box_size;
    const double offset = open_space ? box / 2 : 0.0;
    const bool comoving = cosmo.comoving();

    // The 1.8 file format on: its superblock and object headers carry checksums, so a reader
    // refuses damaged metadata before it parses it (HDF5 1.10.8 reads past its buffers on some
    // damaged attribute messages of the older format). Every HDF5 from 1.8 (2008) reads it;
    // virtual datasets take 1.10's.
    Handle access = w.checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "file access properties");
    if (H5Pset_libver_bounds(access.get(), layout.sources ? H5F_LIBVER_V110 : H5F_LIBVER_V18,
                             H5F_LIBVER_LATEST) < 0)
        w.fail("cannot choose the HDF5 file format");
    if (H5Pset_fapl_core(access.get(), std::size_t(1) << 16, 0) < 0)
        w.fail("cannot set up an in-memory file");
    // The image is taken as the file closes, when the library has written its last metadata
    // (H5Fget_file_image of an open file leaves a wrong superblock checksum in 1.10.8).
    CapturedImage captured;
    H5FD_file_image_callbacks_t callbacks{image_malloc, image_memcpy, image_realloc, image_free,
                                          image_udata_copy, image_udata_free, &captured};
    if (H5Pset_file_image_callbacks(access.get(), &callbacks) < 0)
        w.fail("cannot set up an in-memory file");
    Handle file = w.checked(H5Fcreate(target.c_str(), H5F_ACC_TRUNC, w.untimed(H5P_FILE_CREATE).get(), access.get()),
                            H5Fclose, "cannot create the file in memory");
    {
        Handle header = w.checked(
            H5Gcreate2(file.get(), "Header", H5P_DEFAULT, w.untimed(H5P_GROUP_CREATE).get(), H5P_DEFAULT), H5Gclose,
            "group /Header");
        const hid_t g = header.get();
        std::array<std::uint32_t, 6> count{}, total{}, high{};
        count[1] = std::uint32_t(layout.rows);
        total[1] = std::uint32_t(layout.total);
        high[1] = std::uint32_t(layout.total >> 32);
        const std::array<double, 6> mass_table{};
        w.attribute(g, "NumPart_ThisFile", H5T_STD_U32LE, H5T_NATIVE_UINT32, count.data(), 6);
        w.attribute(g, "NumPart_Total", H5T_STD_U32LE, H5T_NATIVE_UINT32, total.data(), 6);
        w.attribute(g, "NumPart_Total_HighWord", H5T_STD_U32LE, H5T_NATIVE_UINT32, high.data(),
                    6);
        w.attribute(g, "MassTable", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, mass_table.data(), 6);
        const double redshift = cosmo.redshift, omega0 = cosmo.omega_matter,
                     omega_lambda = cosmo.omega_lambda, hubble = cosmo.h;
        w.attribute(g, "Time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &time, 0);
        w.attribute(g, "Redshift", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &redshift, 0);
        w.attribute(g, "BoxSize", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &box, 0);
        if (open_space) {
            const std::array<double, 3> shift{offset, offset, offset};
            w.attribute(g, "PositionOffset", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, shift.data(), 3);
        }
        // pynbody's time of a run that is not cosmological.
        if (units.known() && !comoving) w.real_attribute(g, "Time_GYR", time * units.time_s() / (1e9 * cgs::julian_year));
        w.attribute(g, "Omega0", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &omega0, 0);
        w.attribute(g, "OmegaLambda", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &omega_lambda, 0);
        w.attribute(g, "HubbleParam", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &hubble, 0);
        const std::int32_t one = 1, zero = 0;
        w.attribute(g, "NumFilesPerSnapshot", H5T_STD_I32LE, H5T_NATIVE_INT32, &layout.files, 0);
        for (const char* flag : {"Flag_Sfr", "Flag_Cooling", "Flag_StellarAge", "Flag_Metals",
                                 "Flag_Feedback"})
            w.attribute(g, flag, H5T_STD_I32LE, H5T_NATIVE_INT32, &zero, 0);
        w.attribute(g, "Flag_DoublePrecision", H5T_STD_I32LE, H5T_NATIVE_INT32, &one, 0);
    }
    if (units.known()) {
        Handle group = w.checked(
            H5Gcreate2(file.get(), "Units", H5P_DEFAULT, w.untimed(H5P_GROUP_CREATE).get(), H5P_DEFAULT), H5Gclose,
            "group /Units");
        const double v = units.velocity_cm_per_s;
        w.real_attribute(group.get(), "UnitLength_in_cm", units.length_cm);
        w.real_attribute(group.get(), "UnitMass_in_g", units.mass_g);
        w.real_attribute(group.get(), "UnitVelocity_in_cm_per_s", v);
        w.real_attribute(group.get(), "UnitTime_in_s", units.time_s());
        w.real_attribute(group.get(), "UnitEnergy_in_cgs", units.mass_g * v * v);
    }
    {
        Handle group = w.checked(
            H5Gcreate2(file.get(), "PartType1", H5P_DEFAULT, w.untimed(H5P_GROUP_CREATE).get(), H5P_DEFAULT), H5Gclose,
            "group /PartType1");
        // GADGET stores vectors as N x 3 rows; Bodies holds them as three arrays.
        std::vector<double> triples(3 * n);
        auto interleave = [&](const std::vector<double>& a, const std::vector<double>& b,
                              const std::vector<double>& c, double shift) {
            // Adding a zero shift would turn -0.0 into +0.0.
            for (std::size_t i = 0; i < n; ++i) {
                triples[3 * i] = shift != 0 ? a[i] + shift : a[i];
                triples[3 * i + 1] = shift != 0 ? b[i] + shift : b[i];
                triples[3 * i + 2] = shift != 0 ? c[i] + shift : c[i];
            }
            return triples.data();
        };
        std::vector<std::uint64_t> ids(n);
        for (std::size_t i = 0; i < n; ++i) ids[i] = layout.first + i + 1;
        // The pieces' rows, or this file's own.
        auto dataset = [&](const char* name, hid_t file_type, hid_t memory_type,
                           const void* values, hsize_t columns) {
            if (!layout.sources)
                return w.dataset(group.get(), name, file_type, memory_type, values, layout.rows, columns);
            return w.virtual_dataset(group.get(), "/PartType1/", name, file_type, layout.total,
                                     columns, *layout.sources);
        };
        const double v = units.velocity_cm_per_s;
        Handle set = dataset("Coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                             interleave(bodies.x, bodies.y, bodies.z, offset), 3);
        // Comoving lengths and masses in units with h scaled out; GADGET's velocities are
        // sqrt(a) dx/dt.
        w.describe(set.get(), units, "Positions U_L [cm]", units.length_cm, comoving ? 1 : 0,
                   comoving ? -1 : 0);
        set = dataset("Velocities", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                      interleave(bodies.vx, bodies.vy, bodies.vz, 0.0), 3);
        w.describe(set.get(), units, "Velocities U_V [cm s^-1]", v, comoving ? 0.5 : 0);
        set = dataset("ParticleIDs", H5T_STD_U64LE, H5T_NATIVE_UINT64, ids.data(), 0);
        w.describe(set.get(), units, "Unique particle identifier", 1.0);
        set = dataset("Masses", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, bodies.m.data(), 0);
        w.describe(set.get(), units, "Particle mass U_M [g]", units.mass_g, 0, comoving ? -1 : 0);
    }
    if (!file.close()) w.fail("cannot close the file in memory");
    std::string& image = captured.image;
    // The buffer grows in steps of 64 KiB; the file ends where its superblock (version 2 on,
    // 8-byte addresses: the end-of-file address at byte 28) says.
    const std::string signature("\x89HDF\r\n\x1a\n", 8);
    if (image.size() < 36 || image.compare(0, 8, signature) != 0 || image[8] < 2 || image[9] != 8)
        w.fail("the file's image was not kept");
    std::uint64_t end = 0;
    for (int b = 7; b >= 0; --b) end = (end << 8) | static_cast<unsigned char>(image[28 + b]);
    if (end < 36 || end > image.size()) w.fail("the file's image ends outside its buffer");
    image.resize(std::size_t(end));
    return std::move(image);
}

// The checks every snapshot's header takes (UsageError naming the file).
void check_header(const fs::path& file, double time, double box_size, const UnitSystem& units,
                  const SnapshotCosmology& cosmology) {
    if (!(std::isfinite(box_size) && box_size >= 0))
        throw UsageError("cannot write snapshot " + file.string() + ": box size " +
                         std::to_string(box_size) + " is not a finite non-negative number");
    if (units != UnitSystem{} && !units.known())
        throw UsageError("cannot write snapshot " + file.string() +
                         ": units must all be positive and finite");
    if (cosmology != SnapshotCosmology{}) {
        const SnapshotCosmology& c = cosmology;
        const auto bad = [&](const std::string& what) {
            throw UsageError("cannot write snapshot " + file.string() + ": " + what);
        };
        if (!(c.omega_matter > 0 && c.omega_matter <= 10 && c.omega_lambda >= 0 && c.omega_lambda <= 10 &&
              c.h > 0 && std::isfinite(c.h)))
            bad("cosmology's Omega0 must be in (0, 10], OmegaLambda in [0, 10] and HubbleParam positive");
        if (!(box_size > 0)) bad("a cosmological snapshot needs its periodic box (box size 0)");
        // GADGET's Time of a cosmological run is the scale factor.
        if (!(time > 0 && std::isfinite(time) && std::abs(c.redshift - (1 / time - 1)) <= 1e-9 * (1 + c.redshift)))
            bad("time " + std::to_string(time) + " is not the scale factor of redshift " +
                std::to_string(c.redshift));
    }
}

// The pieces' total, refused past the format's 32-bit counts of one file.
std::uint64_t total_of(const fs::path& file, const SnapshotPieces& pieces) {
    if (pieces.counts.empty() || pieces.counts.size() > 0x7fffffffu)
        throw UsageError("cannot write snapshot " + file.string() + ": " +
                         std::to_string(pieces.counts.size()) + " pieces (1 to 2^31 - 1)");
    std::uint64_t total = 0;
    for (std::uint64_t c : pieces.counts) {
        if (c > 0xffffffffull || total + c < total)
            throw UsageError("cannot write snapshot " + file.string() + ": a piece of " +
                             std::to_string(c) + " bodies is more than a file's 32-bit counts hold");
        total += c;
    }
    if (total == 0) throw UsageError("cannot write snapshot " + file.string() + ": no bodies: N = 0");
    if (!(std::isfinite(pieces.largest_coordinate) && pieces.largest_coordinate >= 0))
        throw UsageError("cannot write snapshot " + file.string() + ": the largest coordinate " +
                         std::to_string(pieces.largest_coordinate) + " is not finite and non-negative");
    return total;
}

// The bodies a written piece holds: the rows of its /PartType1 datasets, which must agree.
std::uint64_t piece_rows(const fs::path& snapshot, const fs::path& piece) {
    std::lock_guard<std::mutex> lock(hdf5_mutex());
    const QuietErrors quiet;
    const auto fail = [&](const std::string& what) -> std::uint64_t {
        const std::string detail = hdf5_detail();
        throw Error("cannot write snapshot " + snapshot.string() + ": its piece " + piece.string() +
                    " " + what + (detail.empty() ? "" : " (" + detail + ")"));
    };
    std::error_code ec;
    if (!fs::is_regular_file(piece, ec)) return fail("is missing");
    Handle file(H5Fopen(piece.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) return fail("cannot be opened");
    std::uint64_t rows = 0;
    bool first = true;
    for (const char* name : {"/PartType1/Coordinates", "/PartType1/Velocities",
                             "/PartType1/ParticleIDs", "/PartType1/Masses"}) {
        Handle set(H5Dopen2(file.get(), name, H5P_DEFAULT), H5Dclose);
        Handle space(set.valid() ? H5Dget_space(set.get()) : -1, H5Sclose);
        hsize_t dims[2] = {0, 0};
        if (!space.valid() || H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 1)
            return fail(std::string("has no dataset ") + name);
        if (!first && dims[0] != rows) return fail(std::string("has datasets of different lengths"));
        rows = dims[0];
        first = false;
    }
    if (!file.close()) return fail("cannot be closed");
    return rows;
}

std::string image_of(const fs::path& file, const Bodies& bodies, const Layout& layout, double time,
                     double box_size, const UnitSystem& units, const SnapshotCosmology& cosmology) {
    std::lock_guard<std::mutex> lock(hdf5_mutex());
    const QuietErrors quiet;
    return hdf5_image(file, bodies, layout, time, box_size, units, cosmology);
}

} // namespace

double largest_coordinate(const Bodies& bodies) {
    double largest = 0;
    for (const auto* axis : {&bodies.x, &bodies.y, &bodies.z})
        for (double v : *axis) largest = std::max(largest, std::fabs(v));
    return largest;
}

void write_snapshot(const fs::path& file, const Bodies& bodies, double time, double box_size,
                    const UnitSystem& units, const SnapshotCosmology& cosmology) {
    bodies.validate();
    check_header(file, time, box_size, units, cosmology);
    if (bodies.size() > 0xffffffffull)
        throw UsageError("cannot write snapshot " + file.string() + ": " +
                         std::to_string(bodies.size()) +
                         " bodies is more than the format's 32-bit counts hold");
    const Layout layout{bodies.size(), 0, bodies.size(), 1, largest_coordinate(bodies), nullptr};
    write_file_atomically(file, image_of(file, bodies, layout, time, box_size, units, cosmology));
}

fs::path snapshot_piece_file(const fs::path& file, std::size_t index) {
    fs::path piece = file;
    piece.replace_extension("." + std::to_string(index) + file.extension().string());
    return piece;
}

void write_snapshot_piece(const fs::path& file, std::size_t index, const SnapshotPieces& pieces,
                          const Bodies& bodies, double time, double box_size,
                          const UnitSystem& units, const SnapshotCosmology& cosmology) {
    const fs::path piece = snapshot_piece_file(file, index);
    const std::uint64_t total = total_of(piece, pieces);
    if (index >= pieces.counts.size() || pieces.counts[index] != bodies.size())
        throw UsageError("cannot write snapshot " + piece.string() + ": piece " +
                         std::to_string(index) + " of " + std::to_string(pieces.counts.size()) +
                         " given " + std::to_string(bodies.size()) + " bodies, not its count");
    if (bodies.size() > 0) bodies.validate();
    check_header(piece, time, box_size, units, cosmology);
    if (largest_coordinate(bodies) > pieces.largest_coordinate)
        throw UsageError("cannot write snapshot " + piece.string() +
                         ": a body lies beyond the pieces' largest coordinate");
    std::uint64_t first = 0;
    for (std::size_t p = 0; p < index; ++p) first += pieces.counts[p];
    const Layout layout{bodies.size(), first, total, std::int32_t(pieces.counts.size()),
                        pieces.largest_coordinate, nullptr};
    write_file_atomically(piece, image_of(piece, bodies, layout, time, box_size, units, cosmology));
}

void write_snapshot_of_pieces(const fs::path& file, const SnapshotPieces& pieces, double time,
                              double box_size, const UnitSystem& units,
                              const SnapshotCosmology& cosmology) {
    const std::uint64_t total = total_of(file, pieces);
    check_header(file, time, box_size, units, cosmology);
    // Every piece is checked to be there and to hold its count, so the file never points at
    // what is missing (HDF5 would read a missing piece's rows as zeros).
    std::vector<Source> sources;
    std::uint64_t first = 0;
    for (std::size_t p = 0; p < pieces.counts.size(); ++p) {
        const fs::path piece = snapshot_piece_file(file, p);
        const std::uint64_t held = piece_rows(file, piece);
        if (held != pieces.counts[p])
            throw Error("cannot write snapshot " + file.string() + ": its piece " + piece.string() +
                        " holds " + std::to_string(held) + " bodies, not " +
                        std::to_string(pieces.counts[p]));
        if (held > 0) sources.push_back({piece.filename().string(), first, held});
        first += held;
    }
    const Layout layout{total, 0, total, 1, pieces.largest_coordinate, &sources};
    write_file_atomically(file, image_of(file, Bodies(), layout, time, box_size, units, cosmology));
    // Pieces past these, of an earlier snapshot of this name on more ranks, belong to no file.
    std::error_code ec;
    for (std::size_t p = pieces.counts.size(); fs::remove(snapshot_piece_file(file, p), ec); ++p) {
    }
}

} // namespace partcl
