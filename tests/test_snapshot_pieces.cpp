// Snapshots written in pieces (MPI ranks, io/snapshot.hpp): the file that joins them reads as the
// whole, moves with its folder, and never reads a missing or short piece as zeros. Host only.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hdf5_reading.hpp"
#include "io_check.hpp"
#include "support.hpp"

using namespace partcl;
using partcl_test::awkward_bodies;
using partcl_test::contains;
using partcl_test::fresh_seed;
using partcl_test::H5;
using partcl_test::read_attribute;
using partcl_test::read_dataset;
using partcl_test::same_bits;
using partcl_test::TempDir;
using partcl_test::usage_error;
namespace fs = std::filesystem;

namespace {

// Bodies [begin, end) of `all`.
Bodies slice(const Bodies& all, std::size_t begin, std::size_t end) {
    Bodies b;
    std::vector<double> Bodies::*fields[] = {&Bodies::x, &Bodies::y, &Bodies::z, &Bodies::vx,
                                             &Bodies::vy, &Bodies::vz, &Bodies::m};
    for (auto f : fields)
        (b.*f).assign((all.*f).begin() + std::ptrdiff_t(begin), (all.*f).begin() + std::ptrdiff_t(end));
    return b;
}

// `all` written as pieces of these sizes (one may be empty), then joined.
SnapshotPieces write_in_pieces(const fs::path& file, const Bodies& all,
                               const std::vector<std::uint64_t>& counts, double time,
                               double box = 0, const UnitSystem& units = {}) {
    SnapshotPieces pieces{counts, 0};
    std::size_t begin = 0;
    for (std::size_t p = 0; p < counts.size(); ++p) {
        const Bodies mine = slice(all, begin, begin + counts[p]);
        pieces.largest_coordinate = std::max(pieces.largest_coordinate, largest_coordinate(mine));
        begin += counts[p];
    }
    begin = 0;
    for (std::size_t p = 0; p < counts.size(); ++p) {
        write_snapshot_piece(file, p, pieces, slice(all, begin, begin + counts[p]), time, box, units);
        begin += counts[p];
    }
    write_snapshot_of_pieces(file, pieces, time, box, units);
    return pieces;
}

// Every dataset of /PartType1 and these attributes of /Header the same in both files.
void check_same_contents(const fs::path& a, const fs::path& b) {
    H5 fa(H5Fopen(a.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    H5 fb(H5Fopen(b.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    for (const char* set : {"/PartType1/Coordinates", "/PartType1/Velocities",
                            "/PartType1/ParticleIDs", "/PartType1/Masses"}) {
        INFO(set);
        const auto da = read_dataset(fa.id, set), db = read_dataset(fb.id, set);
        CHECK(da.dims == db.dims);
        CHECK(da.type_class == db.type_class);
        CHECK(same_bits(da.values, db.values));
        CHECK(da.integers == db.integers);
    }
    H5 ha(H5Gopen2(fa.id, "Header", H5P_DEFAULT), H5Gclose);
    H5 hb(H5Gopen2(fb.id, "Header", H5P_DEFAULT), H5Gclose);
    for (const char* name : {"NumPart_ThisFile", "NumPart_Total", "NumPart_Total_HighWord", "Time",
                             "BoxSize", "PositionOffset", "NumFilesPerSnapshot", "Time_GYR"}) {
        INFO(name);
        CHECK(same_bits(read_attribute(ha.id, name).values, read_attribute(hb.id, name).values));
    }
}

// Attribute `name` of a file's /Header, value `index`.
double header_value(const fs::path& file, const char* name, std::size_t index) {
    H5 f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    H5 header(H5Gopen2(f.id, "Header", H5P_DEFAULT), H5Gclose);
    return read_attribute(header.id, name).values.at(index);
}

} // namespace

TEST_SUITE("io") {

TEST_CASE("a snapshot written in pieces reads as the whole, wherever its folder goes") {
    const std::uint32_t seed = fresh_seed();
    INFO("seed " << seed);
    TempDir dir("io-pieces");
    const Bodies all = awkward_bodies(301, seed);
    const UnitSystem units{3.085678e21, 1.989e43, 1e5};
    write_snapshot(dir / "whole.h5", all, 0.25, 0, units);
    for (const std::vector<std::uint64_t>& counts :
         {std::vector<std::uint64_t>{301}, {100, 201}, {150, 0, 151}, {0, 0, 301}, {1, 1, 299}}) {
        INFO("pieces " << counts.size() << ", the first " << counts.front());
        const fs::path file = dir / "snap.h5";
        write_in_pieces(file, all, counts, 0.25, 0, units);
        for (std::size_t p = 0; p < counts.size(); ++p) {
            const fs::path piece = snapshot_piece_file(file, p);
            CHECK(header_value(piece, "NumPart_ThisFile", 1) == double(counts[p]));
            CHECK(header_value(piece, "NumPart_Total", 1) == 301.0);
            CHECK(header_value(piece, "NumFilesPerSnapshot", 0) == double(counts.size()));
            // A piece read alone is refused with the way to read it whole.
            if (counts.size() > 1)
                CHECK(contains(usage_error([&] { read_snapshot(piece); }), "joins its pieces"));
        }
        check_same_contents(dir / "whole.h5", file);
        const Snapshot back = read_snapshot(file), whole = read_snapshot(dir / "whole.h5");
        CHECK(same_bits(back.bodies.x, whole.bodies.x));
        CHECK(same_bits(back.bodies.vz, whole.bodies.vz));
        CHECK(same_bits(back.bodies.m, whole.bodies.m));
        CHECK(back.units == units);
        // Fewer pieces than the last snapshot of this name: the extra pieces are gone.
        CHECK(!fs::exists(snapshot_piece_file(file, counts.size())));
    }
    // A periodic box, and the set moved to another folder (piece names are relative).
    write_in_pieces(dir / "box.h5", all, {120, 181}, 0.5, 64.0);
    const fs::path moved = dir / "moved";
    fs::create_directories(moved);
    for (const char* name : {"box.h5", "box.0.h5", "box.1.h5"}) fs::rename(dir / name, moved / name);
    const Snapshot back = read_snapshot(moved / "box.h5");
    CHECK(same_bits(back.bodies.x, all.x));
    CHECK(back.box_size == 64.0);
}

TEST_CASE("a missing, short or changed piece is an error, never zeros") {
    TempDir dir("io-pieces-bad");
    const Bodies all = awkward_bodies(90, 11);
    const fs::path file = dir / "snap.h5";
    const SnapshotPieces pieces = write_in_pieces(file, all, {40, 50}, 1.0);

    // Joining refuses a missing piece and one of another count.
    fs::rename(snapshot_piece_file(file, 1), dir / "away.h5");
    CHECK_THROWS_WITH_AS(write_snapshot_of_pieces(file, pieces, 1.0),
                         doctest::Contains("snap.1.h5 is missing"), Error);
    CHECK(contains(usage_error([&] { read_snapshot(file); }), "which is missing"));
    write_snapshot_piece(file, 1, SnapshotPieces{{40, 49}, pieces.largest_coordinate},
                         slice(all, 40, 89), 1.0);
    CHECK_THROWS_WITH_AS(write_snapshot_of_pieces(file, pieces, 1.0),
                         doctest::Contains("holds 49 bodies, not 50"), Error);
    {
        const std::string message = usage_error([&] { read_snapshot(file); });
        INFO(message);
        CHECK(contains(message, "holds 147"));
    }

    // A piece of the wrong count or beyond the largest coordinate is refused before it is written.
    CHECK(contains(usage_error([&] { write_snapshot_piece(file, 0, pieces, slice(all, 0, 39), 1.0); }),
                   "not its count"));
    CHECK(contains(usage_error([&] {
                       write_snapshot_piece(file, 0, SnapshotPieces{{40, 50}, 1e-9}, slice(all, 0, 40), 1.0);
                   }),
                   "largest coordinate"));
    CHECK(contains(usage_error([&] { write_snapshot_piece(file, 2, pieces, Bodies(), 1.0); }),
                   "not its count"));
    CHECK(contains(usage_error([&] { write_snapshot_of_pieces(file, SnapshotPieces{{0, 0}, 0}, 1.0); }),
                   "N = 0"));
}

} // TEST_SUITE
