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
        if (H5Dwrite(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0)
            fail(std::string("dataset ") + name);
        return set;
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

// The whole file, built in memory: the disk is written by write_file_atomically alone, so a full
// disk is one clear error and never an HDF5 file left half closed (which libhdf5 1.10.8 then
// crashes on at exit, closing it again).
// The side of the domain of an open-space run: the least power of two above twice the largest
// |coordinate| with a margin, so that every position + side / 2 rounds to below the side.
double open_box_side(const fs::path& target, const Bodies& bodies) {
    double largest = 0;
    for (const auto* axis : {&bodies.x, &bodies.y, &bodies.z})
        for (double v : *axis) largest = std::max(largest, std::fabs(v));
    if (largest == 0) return 1.0;
    if (!(largest < std::ldexp(1.0, 1020)))
        throw UsageError("cannot write snapshot " + target.string() +
                         ": positions too large to place in a domain (|x| up to " +
                         std::to_string(largest) + ")");
    int exponent = 0;
    std::frexp(2 * largest * (1 + 1.0 / 1024), &exponent);
    return std::ldexp(1.0, exponent);
}

std::string hdf5_image(const fs::path& target, const Bodies& bodies, double time,
                       double box_size, const UnitSystem& units, const SnapshotCosmology& cosmo) {
    const Writer w{target};
    const std::size_t n = bodies.size();
    const bool open_space = box_size == 0;
    const double box = open_space ? open_box_side(target, bodies) : box_size;
    const double offset = open_space ? box / 2 : 0.0;
    const bool comoving = cosmo.comoving();

    // The 1.8 file format on: its superblock and object headers carry checksums, so a reader
    // refuses damaged metadata before it parses it (HDF5 1.10.8 reads past its buffers on some
    // damaged attribute messages of the older format). Every HDF5 from 1.8 (2008) reads it.
    Handle access = w.checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "file access properties");
    if (H5Pset_libver_bounds(access.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0)
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
        std::array<std::uint32_t, 6> count{}, high{};
        count[1] = std::uint32_t(n);
        const std::array<double, 6> mass_table{};
        w.attribute(g, "NumPart_ThisFile", H5T_STD_U32LE, H5T_NATIVE_UINT32, count.data(), 6);
        w.attribute(g, "NumPart_Total", H5T_STD_U32LE, H5T_NATIVE_UINT32, count.data(), 6);
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
        w.attribute(g, "NumFilesPerSnapshot", H5T_STD_I32LE, H5T_NATIVE_INT32, &one, 0);
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
        const double v = units.velocity_cm_per_s;
        Handle set = w.dataset(group.get(), "Coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                               interleave(bodies.x, bodies.y, bodies.z, offset), n, 3);
        // Comoving lengths and masses in units with h scaled out; GADGET's velocities are
        // sqrt(a) dx/dt.
        w.describe(set.get(), units, "Positions U_L [cm]", units.length_cm, comoving ? 1 : 0,
                   comoving ? -1 : 0);
        set = w.dataset(group.get(), "Velocities", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                        interleave(bodies.vx, bodies.vy, bodies.vz, 0.0), n, 3);
        w.describe(set.get(), units, "Velocities U_V [cm s^-1]", v, comoving ? 0.5 : 0);
        std::vector<std::uint64_t> ids(n);
        for (std::size_t i = 0; i < n; ++i) ids[i] = i + 1;
        set = w.dataset(group.get(), "ParticleIDs", H5T_STD_U64LE, H5T_NATIVE_UINT64, ids.data(),
                        n, 0);
        w.describe(set.get(), units, "Unique particle identifier", 1.0);
        set = w.dataset(group.get(), "Masses", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                        bodies.m.data(), n, 0);
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

} // namespace

void write_snapshot(const fs::path& file, const Bodies& bodies, double time, double box_size,
                    const UnitSystem& units, const SnapshotCosmology& cosmology) {
    bodies.validate();
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
    if (bodies.size() > 0xffffffffull)
        throw UsageError("cannot write snapshot " + file.string() + ": " +
                         std::to_string(bodies.size()) +
                         " bodies is more than the format's 32-bit counts hold");
    std::string image;
    {
        std::lock_guard<std::mutex> lock(hdf5_mutex());
        const QuietErrors quiet;
        image = hdf5_image(file, bodies, time, box_size, units, cosmology);
    }
    write_file_atomically(file, image);
}

} // namespace partcl
