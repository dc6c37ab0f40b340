// Reading snapshots (io/snapshot.hpp): GADGET-style HDF5 files, every problem a UsageError.
#include <partcl/io/snapshot.hpp>

#include <partcl/backend/error.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <new>
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
        if (layout == H5D_VIRTUAL) check_sources(plist.get(), path, values_count);
        // Unfiltered data is stored whole; compressed chunks hold at most 1024 times their
        // size (zlib's limit), which bounds them by the file; a virtual dataset's sources are
        // checked above and bound by their own files.
        const bool too_large = layout == H5D_CONTIGUOUS || layout == H5D_COMPACT
                                   ? H5Dget_storage_size(set.get()) < needed
                                   : layout != H5D_VIRTUAL && !ec && needed / 1024 > file_bytes;
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

    // A virtual dataset (write_snapshot_of_pieces) reads a missing source file or dataset as
    // fill values without a word: every source must be there and hold what is mapped from it,
    // and the mappings must cover the dataset.
    void check_sources(hid_t plist, const std::string& path, std::size_t values) const {
        size_t count = 0;
        if (H5Pget_virtual_count(plist, &count) < 0) fail("cannot read dataset " + path + "'s sources");
        hsize_t mapped = 0;
        for (size_t i = 0; i < count; ++i) {
            const auto text = [&](auto get) {
                std::string name(std::size_t(get(plist, i, nullptr, 0)) + 1, '\0');
                if (name.size() < 2 || get(plist, i, name.data(), name.size()) < 0)
                    fail("cannot read dataset " + path + "'s sources");
                name.resize(name.size() - 1);
                return name;
            };
            const std::string source = text(H5Pget_virtual_filename);
            const std::string set_name = text(H5Pget_virtual_dsetname);
            const fs::path source_path = source == "." ? file
                                         : fs::path(source).is_absolute() ? fs::path(source)
                                         : file.parent_path() / source;
            std::error_code ec;
            if (!fs::is_regular_file(source_path, ec))
                fail("dataset " + path + " takes values from " + source_path.string() +
                         ", which is missing",
                     false);
            // What the mapping places, not its source selection: a selection of "all" reads as
            // the source's extent of the day.
            Handle virtual_space(H5Pget_virtual_vspace(plist, i), H5Sclose);
            const hssize_t wanted = virtual_space.valid() ? H5Sget_select_npoints(virtual_space.get()) : -1;
            if (wanted < 0) fail("cannot read dataset " + path + "'s sources");
            mapped += hsize_t(wanted);
            Handle source_file(H5Fopen(source_path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
            if (!source_file.valid())
                fail("dataset " + path + " takes values from " + source_path.string() +
                     ", which cannot be opened (truncated or damaged?)");
            Handle source_set(H5Lexists(source_file.get(), set_name.c_str(), H5P_DEFAULT) > 0
                                  ? H5Dopen2(source_file.get(), set_name.c_str(), H5P_DEFAULT)
                                  : -1,
                              H5Dclose);
            Handle held(source_set.valid() ? H5Dget_space(source_set.get()) : -1, H5Sclose);
            const hssize_t has = held.valid() ? H5Sget_simple_extent_npoints(held.get()) : -1;
            if (has < wanted)
                fail("dataset " + path + " takes " + std::to_string(wanted) + " values from " +
                         set_name + " of " + source_path.string() + ", which " +
                         (has < 0 ? std::string("is not there") : "holds " + std::to_string(has)),
                     false);
        }
        if (mapped < values)
            fail("dataset " + path + " maps " + std::to_string(mapped) + " of its " +
                     std::to_string(values) + " values from its sources",
                 false);
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
    SnapshotCosmology& cosmo = snapshot.cosmology;
    r.attribute(header.get(), "Omega0", H5T_NATIVE_DOUBLE, 1, &cosmo.omega_matter);
    if (cosmo.omega_matter > 0) {
        r.attribute(header.get(), "Redshift", H5T_NATIVE_DOUBLE, 1, &cosmo.redshift);
        r.attribute(header.get(), "OmegaLambda", H5T_NATIVE_DOUBLE, 1, &cosmo.omega_lambda);
        r.attribute(header.get(), "HubbleParam", H5T_NATIVE_DOUBLE, 1, &cosmo.h);
        if (!(std::isfinite(cosmo.omega_matter) && std::isfinite(cosmo.omega_lambda) &&
              std::isfinite(cosmo.redshift) && cosmo.redshift > -1 && cosmo.h > 0 && std::isfinite(cosmo.h)))
            r.fail("/Header has a cosmology (Omega0 > 0) whose Redshift, OmegaLambda or HubbleParam "
                   "is not a finite number in range", false);
    } else {
        cosmo.omega_matter = 0;  // a negative or NaN Omega0 reads as no cosmology
    }
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
                   " files; partcl reads such a snapshot whole from the file that joins its "
                   "pieces (write_snapshot_of_pieces: the name without the piece's number)",
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
