#include <partcl/io/snapshot.hpp>

#include <partcl/backend/error.hpp>
#include <partcl/support/atomic_file.hpp>

#include <hdf5.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

namespace partcl {

namespace fs = std::filesystem;

namespace {

// The HDF5 library Debian ships is not thread-safe; partcl never calls it from two threads.
std::mutex& hdf5_mutex() {
    static std::mutex mutex;
    return mutex;
}

// Turns off HDF5's printing of its error stack for the lifetime of the guard; our messages say
// what went wrong instead.
class QuietErrors {
public:
    QuietErrors() {
        H5Eget_auto2(H5E_DEFAULT, &function_, &data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, function_, data_); }
    QuietErrors(const QuietErrors&) = delete;
    QuietErrors& operator=(const QuietErrors&) = delete;

private:
    H5E_auto2_t function_ = nullptr;
    void* data_ = nullptr;
};

// The innermost message of HDF5's current error stack ("truncated file: eof = ..."), or "".
// Must be called right after the failing call: the next API call clears the stack.
std::string hdf5_detail() {
    std::string detail;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_UPWARD,
        [](unsigned n, const H5E_error2_t* error, void* out) -> herr_t {
            auto& text = *static_cast<std::string*>(out);
            if (n == 0 && error && error->desc) text = error->desc;
            return 0;
        },
        &detail);
    return detail;
}

// One HDF5 identifier, closed by the right function when the owner goes.
class Handle {
public:
    using Close = herr_t (*)(hid_t);
    Handle() = default;
    Handle(hid_t id, Close close) : id_(id), close_(close) {}
    Handle(Handle&& other) noexcept : id_(other.id_), close_(other.close_) { other.id_ = -1; }
    Handle& operator=(Handle&& other) noexcept {
        if (this != &other) {
            reset();
            id_ = other.id_;
            close_ = other.close_;
            other.id_ = -1;
        }
        return *this;
    }
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle() { reset(); }

    hid_t get() const noexcept { return id_; }
    bool valid() const noexcept { return id_ >= 0; }
    // Closes now and reports whether that worked (H5Fclose can fail when data cannot be
    // flushed).
    bool close() {
        const hid_t id = id_;
        id_ = -1;
        return id < 0 || close_(id) >= 0;
    }

private:
    void reset() noexcept {
        if (id_ >= 0) close_(id_);
        id_ = -1;
    }
    hid_t id_ = -1;
    Close close_ = nullptr;
};

// ---------------------------------------------------------------------------------------------
// Writing

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

    void real_attribute(hid_t location, const char* name, double value) const {
        attribute(location, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, 0);
    }

    Handle dataset(hid_t group, const char* name, hid_t file_type, hid_t memory_type,
                   const void* values, hsize_t rows, hsize_t columns) const {
        const hsize_t dims[2] = {rows, columns};
        Handle space = checked(H5Screate_simple(columns ? 2 : 1, dims, nullptr), H5Sclose,
                               "dataspace");
        Handle set = checked(H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT,
                                        H5P_DEFAULT, H5P_DEFAULT),
                             H5Dclose, std::string("dataset ") + name);
        if (H5Dwrite(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values) < 0)
            fail(std::string("dataset ") + name);
        return set;
    }

    // What pynbody reads an array's units from (EAGLE's attributes): no cosmological factors
    // and, with units, the description in U_L, U_M, U_V and the factor to CGS.
    void describe(hid_t set, const UnitSystem& units, const char* description,
                  double cgs_factor) const {
        real_attribute(set, "aexp-scale-exponent", 0.0);
        real_attribute(set, "h-scale-exponent", 0.0);
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
                       double box_size, const UnitSystem& units) {
    const Writer w{target};
    const std::size_t n = bodies.size();
    const bool open_space = box_size == 0;
    const double box = open_space ? open_box_side(target, bodies) : box_size;
    const double offset = open_space ? box / 2 : 0.0;

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
    Handle file = w.checked(H5Fcreate(target.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()),
                            H5Fclose, "cannot create the file in memory");
    {
        Handle header = w.checked(
            H5Gcreate2(file.get(), "Header", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
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
        const double redshift = 0, omega0 = 0, omega_lambda = 0, hubble = 1;
        w.attribute(g, "Time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &time, 0);
        w.attribute(g, "Redshift", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &redshift, 0);
        w.attribute(g, "BoxSize", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &box, 0);
        if (open_space) {
            const std::array<double, 3> shift{offset, offset, offset};
            w.attribute(g, "PositionOffset", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, shift.data(), 3);
        }
        // pynbody's time of a run that is not cosmological.
        if (units.known()) w.real_attribute(g, "Time_GYR", time * units.time_s() / (1e9 * cgs::julian_year));
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
            H5Gcreate2(file.get(), "Units", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
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
            H5Gcreate2(file.get(), "PartType1", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
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
        w.describe(set.get(), units, "Positions U_L [cm]", units.length_cm);
        set = w.dataset(group.get(), "Velocities", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                        interleave(bodies.vx, bodies.vy, bodies.vz, 0.0), n, 3);
        w.describe(set.get(), units, "Velocities U_V [cm s^-1]", v);
        std::vector<std::uint64_t> ids(n);
        for (std::size_t i = 0; i < n; ++i) ids[i] = i + 1;
        set = w.dataset(group.get(), "ParticleIDs", H5T_STD_U64LE, H5T_NATIVE_UINT64, ids.data(),
                        n, 0);
        w.describe(set.get(), units, "Unique particle identifier", 1.0);
        set = w.dataset(group.get(), "Masses", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
                        bodies.m.data(), n, 0);
        w.describe(set.get(), units, "Particle mass U_M [g]", units.mass_g);
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

// ---------------------------------------------------------------------------------------------
// Reading

struct Reader {
    const fs::path& file;

    [[noreturn]] void fail(const std::string& what, bool with_detail = true) const {
        const std::string detail = with_detail ? hdf5_detail() : std::string();
        throw UsageError("snapshot " + file.string() + ": " + what +
                         (detail.empty() ? "" : " (" + detail + ")"));
    }

    bool has(hid_t location, const char* name) const {
        return H5Lexists(location, name, H5P_DEFAULT) > 0;
    }

    // An attribute of exactly `count` numbers, converted to T; false when absent.
    template <class T>
    bool attribute(hid_t location, const char* name, hid_t memory_type, std::size_t count,
                   T* out) const {
        if (H5Aexists(location, name) <= 0) return false;
        char group[64] = "?";
        H5Iget_name(location, group, sizeof group);
        const std::string what = std::string(group) + " attribute " + name;
        Handle attribute(H5Aopen(location, name, H5P_DEFAULT), H5Aclose);
        if (!attribute.valid()) fail("cannot open " + what);
        Handle space(H5Aget_space(attribute.get()), H5Sclose);
        const hssize_t size = space.valid() ? H5Sget_simple_extent_npoints(space.get()) : -1;
        if (size != hssize_t(count))
            fail(what + " has " + std::to_string(size) + " values, expected " +
                     std::to_string(count),
                 false);
        if (H5Aread(attribute.get(), memory_type, out) < 0) fail("cannot read " + what);
        return true;
    }

    // A numeric dataset of `rows` x `columns` (columns 0: one-dimensional), as doubles.
    std::vector<double> dataset(hid_t group, const std::string& group_name, const char* name,
                                std::size_t columns, std::size_t& rows) const {
        const std::string path = "/" + group_name + "/" + name;
        if (!has(group, name)) fail("missing dataset " + path, false);
        Handle set(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
        if (!set.valid()) fail("cannot open dataset " + path);
        Handle type(H5Dget_type(set.get()), H5Tclose);
        const H5T_class_t type_class = type.valid() ? H5Tget_class(type.get()) : H5T_NO_CLASS;
        if (type_class != H5T_FLOAT && type_class != H5T_INTEGER)
            fail("dataset " + path + " is not numeric", false);
        Handle space(H5Dget_space(set.get()), H5Sclose);
        const int rank = space.valid() ? H5Sget_simple_extent_ndims(space.get()) : -1;
        const int want_rank = columns ? 2 : 1;
        hsize_t dims[2] = {0, 0};
        if (rank != want_rank || H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0 ||
            (columns && dims[1] != columns))
            fail("dataset " + path + " has shape " + shape(space.get()) + ", expected (N" +
                     (columns ? ", " + std::to_string(columns) : std::string()) + ")",
                 false);
        // The row count comes from the file: a damaged one must not become a huge allocation.
        if (dims[0] > 0xffffffffull)
            fail("dataset " + path + " claims " + std::to_string(dims[0]) +
                     " rows, more than partcl reads (2^32 - 1)",
                 false);
        rows = std::size_t(dims[0]);
        const std::size_t values_count = rows * (columns ? columns : 1);
        const std::uintmax_t needed = std::uintmax_t(values_count) * H5Tget_size(type.get());
        Handle plist(H5Dget_create_plist(set.get()), H5Pclose);
        const H5D_layout_t layout = plist.valid() ? H5Pget_layout(plist.get()) : H5D_LAYOUT_ERROR;
        std::error_code ec;
        const std::uintmax_t file_bytes = fs::file_size(file, ec);
        // Unfiltered data is stored whole; compressed chunks hold at most 1024 times their
        // size (zlib's limit), which bounds them by the file.
        const bool too_large = layout == H5D_CONTIGUOUS || layout == H5D_COMPACT
                                   ? H5Dget_storage_size(set.get()) < needed
                                   : !ec && needed / 1024 > file_bytes;
        if (too_large)
            fail("dataset " + path + " claims " + std::to_string(rows) +
                     " rows, more than the file stores (truncated or damaged file)",
                 false);
        std::vector<double> values(values_count);
        if (!values.empty() &&
            H5Dread(set.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) <
                0)
            fail("cannot read dataset " + path + " (truncated or damaged file?)");
        return values;
    }

    static std::string shape(hid_t space) {
        hsize_t dims[H5S_MAX_RANK];
        const int rank = space >= 0 ? H5Sget_simple_extent_dims(space, dims, nullptr) : -1;
        if (rank < 0) return "unknown";
        std::string text = "(";
        for (int i = 0; i < rank; ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
        return text + (rank == 1 ? ",)" : ")");
    }
};

Snapshot read_hdf5(const fs::path& path) {
    const Reader r{path};
    std::error_code ec;
    if (!fs::exists(path, ec)) r.fail("no such file", false);
    if (!fs::is_regular_file(path, ec)) r.fail("not a regular file", false);
    const htri_t is_hdf5 = H5Fis_hdf5(path.c_str());
    if (is_hdf5 == 0) r.fail("not an HDF5 file", false);
    if (is_hdf5 < 0) r.fail("cannot read the file");

    Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) r.fail("cannot open: truncated or damaged HDF5 file");

    Snapshot snapshot;
    if (!r.has(file.get(), "Header")) r.fail("no /Header group (not a GADGET-style snapshot)", false);
    Handle header(H5Gopen2(file.get(), "Header", H5P_DEFAULT), H5Gclose);
    if (!header.valid()) r.fail("cannot open /Header");
    if (!r.attribute(header.get(), "Time", H5T_NATIVE_DOUBLE, 1, &snapshot.time))
        r.fail("no /Header attribute Time", false);
    r.attribute(header.get(), "BoxSize", H5T_NATIVE_DOUBLE, 1, &snapshot.box_size);
    std::array<double, 3> offset{};
    if (r.attribute(header.get(), "PositionOffset", H5T_NATIVE_DOUBLE, 3, offset.data())) {
        for (double o : offset)
            if (!std::isfinite(o)) r.fail("/Header attribute PositionOffset is not finite", false);
        snapshot.box_size = 0;
    }
    if (r.has(file.get(), "Units")) {
        Handle units(H5Gopen2(file.get(), "Units", H5P_DEFAULT), H5Gclose);
        if (!units.valid()) r.fail("cannot open /Units");
        UnitSystem u;
        const bool all = r.attribute(units.get(), "UnitLength_in_cm", H5T_NATIVE_DOUBLE, 1, &u.length_cm) &
                         r.attribute(units.get(), "UnitMass_in_g", H5T_NATIVE_DOUBLE, 1, &u.mass_g) &
                         r.attribute(units.get(), "UnitVelocity_in_cm_per_s", H5T_NATIVE_DOUBLE, 1,
                                     &u.velocity_cm_per_s);
        if (all && !u.known())
            r.fail("/Units has a length, mass or velocity unit that is not positive and finite",
                   false);
        if (all) snapshot.units = u;
    }
    std::int64_t files = 1;
    if (r.attribute(header.get(), "NumFilesPerSnapshot", H5T_NATIVE_INT64, 1, &files) &&
        files != 1)
        r.fail("is one file of a snapshot split into " + std::to_string(files) +
                   " files, which partcl does not read",
               false);
    std::array<double, 6> mass_table{};
    r.attribute(header.get(), "MassTable", H5T_NATIVE_DOUBLE, 6, mass_table.data());
    std::array<std::uint64_t, 6> announced{};
    const bool has_counts = r.attribute(header.get(), "NumPart_ThisFile", H5T_NATIVE_UINT64, 6,
                                        announced.data());

    Bodies& bodies = snapshot.bodies;
    for (int type = 0; type < 6; ++type) {
        const std::string name = "PartType" + std::to_string(type);
        if (!r.has(file.get(), name.c_str())) {
            if (has_counts && announced[type] > 0)
                r.fail("/Header NumPart_ThisFile announces " + std::to_string(announced[type]) +
                           " particles of type " + std::to_string(type) + " but there is no /" +
                           name,
                       false);
            continue;
        }
        Handle group(H5Gopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Gclose);
        if (!group.valid()) r.fail("cannot open /" + name);
        std::size_t n = 0, nv = 0, nm = 0;
        const auto position = r.dataset(group.get(), name, "Coordinates", 3, n);
        const auto velocity = r.dataset(group.get(), name, "Velocities", 3, nv);
        if (nv != n)
            r.fail("/" + name + " has " + std::to_string(n) + " Coordinates but " +
                       std::to_string(nv) + " Velocities",
                   false);
        std::vector<double> mass;
        if (r.has(group.get(), "Masses")) {
            mass = r.dataset(group.get(), name, "Masses", 0, nm);
            if (nm != n)
                r.fail("/" + name + " has " + std::to_string(n) + " Coordinates but " +
                           std::to_string(nm) + " Masses",
                       false);
        } else if (n > 0) {
            if (!(mass_table[type] > 0))
                r.fail("/" + name + " has no Masses dataset and /Header MassTable[" +
                           std::to_string(type) + "] is not positive",
                       false);
            mass.assign(n, mass_table[type]);
        }
        if (has_counts && announced[type] != n)
            r.fail("/Header NumPart_ThisFile[" + std::to_string(type) + "] = " +
                       std::to_string(announced[type]) + " but /" + name + " has " +
                       std::to_string(n) + " particles",
                   false);
        for (std::size_t i = 0; i < n; ++i) {
            bodies.x.push_back(offset[0] != 0 ? position[3 * i] - offset[0] : position[3 * i]);
            bodies.y.push_back(offset[1] != 0 ? position[3 * i + 1] - offset[1] : position[3 * i + 1]);
            bodies.z.push_back(offset[2] != 0 ? position[3 * i + 2] - offset[2] : position[3 * i + 2]);
            bodies.vx.push_back(velocity[3 * i]);
            bodies.vy.push_back(velocity[3 * i + 1]);
            bodies.vz.push_back(velocity[3 * i + 2]);
            bodies.m.push_back(mass[i]);
        }
    }
    if (bodies.size() == 0) r.fail("no particles (no /PartType0../PartType5 data)", false);
    if (!file.close()) r.fail("cannot close the file");
    return snapshot;
}

} // namespace

void write_snapshot(const fs::path& file, const Bodies& bodies, double time, double box_size,
                    const UnitSystem& units) {
    bodies.validate();
    if (!(std::isfinite(box_size) && box_size >= 0))
        throw UsageError("cannot write snapshot " + file.string() + ": box size " +
                         std::to_string(box_size) + " is not a finite non-negative number");
    if (units != UnitSystem{} && !units.known())
        throw UsageError("cannot write snapshot " + file.string() +
                         ": units must all be positive and finite");
    if (bodies.size() > 0xffffffffull)
        throw UsageError("cannot write snapshot " + file.string() + ": " +
                         std::to_string(bodies.size()) +
                         " bodies is more than the format's 32-bit counts hold");
    std::string image;
    {
        std::lock_guard<std::mutex> lock(hdf5_mutex());
        const QuietErrors quiet;
        image = hdf5_image(file, bodies, time, box_size, units);
    }
    write_file_atomically(file, image);
}

Snapshot read_snapshot(const fs::path& file) {
    Snapshot snapshot;
    {
        std::lock_guard<std::mutex> lock(hdf5_mutex());
        const QuietErrors quiet;
        try {
            snapshot = read_hdf5(file);
        } catch (const std::bad_alloc&) {
            throw UsageError("snapshot " + file.string() +
                             ": the datasets claim more particles than fit in memory");
        }
    }
    try {
        snapshot.bodies.validate();
    } catch (const UsageError& error) {
        throw UsageError("snapshot " + file.string() + ": " + error.what());
    }
    return snapshot;
}

} // namespace partcl
