#pragma once
// HDF5 reading for the snapshot layout checks: the C API directly, independent of
// read_snapshot, so a test sees what another reader of the file sees.
#include <doctest/doctest.h>

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace partcl_test {

struct H5 {
    hid_t id;
    herr_t (*close)(hid_t);
    H5(hid_t i, herr_t (*c)(hid_t)) : id(i), close(c) { REQUIRE(id >= 0); }
    ~H5() { close(id); }
    H5(const H5&) = delete;
    H5& operator=(const H5&) = delete;
};

// An attribute: its element count (0 = scalar), class and size, values as doubles.
struct Attribute {
    hssize_t points = -1;
    bool scalar = false;
    H5T_class_t type_class = H5T_NO_CLASS;
    std::size_t type_size = 0;
    H5T_sign_t sign = H5T_SGN_ERROR;
    std::vector<double> values;
};

inline Attribute read_attribute(hid_t group, const char* name) {
    INFO("attribute " << name);
    Attribute a;
    REQUIRE(H5Aexists(group, name) > 0);
    H5 attribute(H5Aopen(group, name, H5P_DEFAULT), H5Aclose);
    H5 space(H5Aget_space(attribute.id), H5Sclose);
    H5 type(H5Aget_type(attribute.id), H5Tclose);
    a.scalar = H5Sget_simple_extent_type(space.id) == H5S_SCALAR;
    a.points = H5Sget_simple_extent_npoints(space.id);
    a.type_class = H5Tget_class(type.id);
    a.type_size = H5Tget_size(type.id);
    if (a.type_class == H5T_INTEGER) a.sign = H5Tget_sign(type.id);
    a.values.resize(std::size_t(a.points));
    REQUIRE(H5Aread(attribute.id, H5T_NATIVE_DOUBLE, a.values.data()) >= 0);
    return a;
}

struct Dataset {
    std::vector<hsize_t> dims;
    H5T_class_t type_class = H5T_NO_CLASS;
    std::size_t type_size = 0;
    H5T_sign_t sign = H5T_SGN_ERROR;
    std::vector<double> values;
    std::vector<std::uint64_t> integers;
};

inline Dataset read_dataset(hid_t file, const char* path) {
    INFO("dataset " << path);
    Dataset d;
    REQUIRE(H5Lexists(file, "PartType1", H5P_DEFAULT) > 0);
    H5 set(H5Dopen2(file, path, H5P_DEFAULT), H5Dclose);
    H5 space(H5Dget_space(set.id), H5Sclose);
    H5 type(H5Dget_type(set.id), H5Tclose);
    const int rank = H5Sget_simple_extent_ndims(space.id);
    REQUIRE(rank >= 1);
    d.dims.resize(std::size_t(rank));
    H5Sget_simple_extent_dims(space.id, d.dims.data(), nullptr);
    d.type_class = H5Tget_class(type.id);
    d.type_size = H5Tget_size(type.id);
    const hssize_t points = H5Sget_simple_extent_npoints(space.id);
    if (d.type_class == H5T_INTEGER) {
        d.sign = H5Tget_sign(type.id);
        d.integers.resize(std::size_t(points));
        REQUIRE(H5Dread(set.id, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                        d.integers.data()) >= 0);
    } else {
        d.values.resize(std::size_t(points));
        REQUIRE(H5Dread(set.id, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                        d.values.data()) >= 0);
    }
    return d;
}

// A string attribute (fixed or variable length) as text.
inline std::string read_text_attribute(hid_t location, const char* name) {
    INFO("attribute " << name);
    REQUIRE(H5Aexists(location, name) > 0);
    H5 attribute(H5Aopen(location, name, H5P_DEFAULT), H5Aclose);
    H5 type(H5Aget_type(attribute.id), H5Tclose);
    REQUIRE(H5Tget_class(type.id) == H5T_STRING);
    REQUIRE(H5Tis_variable_str(type.id) == 0);
    std::string text(H5Tget_size(type.id), '\0');
    REQUIRE(H5Aread(attribute.id, type.id, text.data()) >= 0);
    return text.substr(0, text.find('\0'));
}

} // namespace partcl_test
