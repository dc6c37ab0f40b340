// DeviceFilter grammar on fabricated device lists (no OpenCL needed).
#include <doctest/doctest.h>

#include "support.hpp"

using namespace partcl;
using partcl_test::EnvGuard;

namespace {

DeviceInfo make(std::size_t index, std::size_t platform_index, std::string name,
                std::string vendor, std::string platform, DeviceType type, bool fp64) {
    DeviceInfo info;
    info.index = index;
    info.platform_index = platform_index;
    info.name = std::move(name);
    info.vendor = std::move(vendor);
    info.platform = std::move(platform);
    info.type = type;
    info.fp64 = fp64;
    info.compute_units = 4;
    return info;
}

// 0: NVIDIA GPU with fp64; 1: PoCL CPU (vendor GenuineIntel); 2: Intel GPU without fp64;
// 3: an accelerator.
std::vector<DeviceInfo> machine() {
    return {
        make(0, 0, "NVIDIA GeForce RTX 4090", "NVIDIA Corporation", "NVIDIA CUDA", DeviceType::gpu,
             true),
        make(1, 1, "pthread-skylake-avx512", "GenuineIntel", "Portable Computing Language",
             DeviceType::cpu, true),
        make(2, 2, "Intel(R) UHD Graphics 770", "Intel(R) Corporation", "Intel(R) OpenCL Graphics",
             DeviceType::gpu, false),
        make(3, 3, "Xilinx U250", "Xilinx", "Xilinx", DeviceType::accelerator, false),
    };
}

std::vector<std::size_t> pick(const std::string& filter,
                              const std::vector<DeviceInfo>& devices = machine()) {
    std::vector<std::size_t> indices;
    for (const auto& info : DeviceFilter(filter).match(devices)) indices.push_back(info.index);
    return indices;
}

using V = std::vector<std::size_t>;

} // namespace

TEST_SUITE("filter") {

TEST_CASE("default filter is gpu|cpu") {
    CHECK(std::string(DeviceFilter::default_text) == "gpu|cpu");
    CHECK(DeviceFilter().text() == "gpu|cpu");
    CHECK(pick(DeviceFilter::default_text) == V{0, 2});
    CHECK(DeviceFilter("cpu , 2").text() == "cpu , 2");
}

TEST_CASE("single terms") {
    CHECK(pick("all") == V{0, 1, 2, 3});
    CHECK(pick("*") == V{0, 1, 2, 3});
    CHECK(pick("ALL") == V{0, 1, 2, 3});
    CHECK(pick("cpu") == V{1});
    CHECK(pick("gpu") == V{0, 2});
    CHECK(pick("GPU") == V{0, 2});
    CHECK(pick("accelerator") == V{3});
    CHECK(pick("fp64") == V{0, 1});
    CHECK(pick("0") == V{0});
    CHECK(pick("2") == V{2});
    CHECK(pick("3") == V{3});
    CHECK(pick("4").empty());
    CHECK(pick("nothing-like-this").empty());
}

TEST_CASE("an index is the device's number, not its position in the list") {
    // `partcl devices` numbers are stable; a sub-list keeps them.
    const auto all = machine();
    const std::vector<DeviceInfo> some{all[1], all[3]};
    CHECK(pick("3", some) == V{3});
    CHECK(pick("1", some) == V{1});
    CHECK(pick("0", some).empty());
}

TEST_CASE("words: case-insensitive substring of name, vendor or platform") {
    CHECK(pick("nvidia") == V{0});
    CHECK(pick("NVidia") == V{0});
    CHECK(pick("rtx") == V{0});         // name
    CHECK(pick("pthread") == V{1});     // name
    CHECK(pick("computing") == V{1});   // platform
    CHECK(pick("Portable Computing Language") == V{1});  // platform, with blanks
    CHECK(pick("corporation") == V{0, 2});  // vendor
    CHECK(pick("genuine") == V{1});         // vendor only
    CHECK(pick("intel") == V{1, 2});        // vendor of 1, name/vendor/platform of 2
    CHECK(pick("xilinx") == V{3});
    CHECK(pick("uhd graphics") == V{2});
    // "gpu" is the type keyword, not a name substring: nothing is named "...gpu..." here anyway,
    // but the Intel GPU's name has no "gpu" and is selected by type.
    CHECK(pick("graphics") == V{2});
}

TEST_CASE("'|' is an ordered fall-back: the first alternative that selects anything wins") {
    CHECK(pick("gpu|cpu") == V{0, 2});
    CHECK(pick("cpu|gpu") == V{1});
    CHECK(pick("accelerator|gpu") == V{3});
    CHECK(pick("nothing|cpu") == V{1});
    CHECK(pick("nothing|7|fp64") == V{0, 1});
    CHECK(pick("nothing|also-nothing").empty());

    const auto all = machine();
    const std::vector<DeviceInfo> no_gpu{all[1], all[3]};
    CHECK(pick("gpu|cpu", no_gpu) == V{1});
    const std::vector<DeviceInfo> nothing_usable{all[3]};
    CHECK(pick("gpu|cpu", nothing_usable).empty());
    CHECK(pick("gpu|cpu", {}).empty());
}

TEST_CASE("',' is a union in enumeration order, without duplicates") {
    CHECK(pick("0,2") == V{0, 2});
    CHECK(pick("2,0") == V{0, 2});
    CHECK(pick("cpu,accelerator") == V{1, 3});
    CHECK(pick("0,0") == V{0});
    CHECK(pick("gpu,nvidia") == V{0, 2});
    CHECK(pick("nothing,3") == V{3});
}

TEST_CASE("'&' is an intersection and binds tighter than ',' and '|'") {
    CHECK(pick("gpu&fp64") == V{0});
    CHECK(pick("intel&gpu") == V{2});
    CHECK(pick("intel&cpu") == V{1});
    CHECK(pick("nvidia&cpu").empty());
    CHECK(pick("gpu&fp64&nvidia&0") == V{0});
    CHECK(pick("cpu,gpu&fp64") == V{0, 1});         // cpu , (gpu & fp64)
    CHECK(pick("accelerator,gpu&intel") == V{2, 3});
    CHECK(pick("gpu&fp64|cpu") == V{0});             // (gpu & fp64) | cpu
    const auto all = machine();
    const std::vector<DeviceInfo> no_fp64_gpu{all[1], all[2], all[3]};
    CHECK(pick("gpu&fp64|cpu", no_fp64_gpu) == V{1});
    CHECK(pick("cpu|gpu,accelerator") == V{1});      // cpu | (gpu , accelerator)
}

TEST_CASE("whitespace around operators is ignored") {
    CHECK(pick(" all ") == V{0, 1, 2, 3});
    CHECK(pick("gpu | cpu") == V{0, 2});
    CHECK(pick("  gpu & fp64  |  cpu ") == V{0});
    CHECK(pick("0 , 2") == V{0, 2});
    CHECK(pick("\tcpu\t") == V{1});
    CHECK(pick("nothing |\tcpu") == V{1});
}

TEST_CASE("malformed filters are usage errors") {
    for (const char* bad : {"", " ", "\t", "|", "||", "gpu|", "|gpu", "gpu||cpu", "a&&b", "&",
                            "&gpu", "gpu&", ",", "gpu,", ",gpu", "gpu,,cpu", "gpu|,cpu",
                            "gpu& |cpu"}) {
        CAPTURE(std::string(bad));
        CHECK_THROWS_AS(DeviceFilter{bad}, UsageError);
    }
    // The message names the filter, and a UsageError is a partcl::Error.
    try {
        DeviceFilter filter("gpu&&cpu");
        FAIL("no exception for a malformed filter");
    } catch (const UsageError& error) {
        CHECK(partcl_test::contains(error.what(), "gpu&&cpu"));
    }
    CHECK_THROWS_AS(DeviceFilter("gpu|"), partcl::Error);
}

TEST_CASE("from_environment: command line, then PARTCL_DEVICE, then the default") {
    CHECK(std::string(DeviceFilter::environment_variable) == "PARTCL_DEVICE");
    {
        EnvGuard env("PARTCL_DEVICE", std::nullopt);
        CHECK(DeviceFilter::from_environment().text() == "gpu|cpu");
        CHECK(DeviceFilter::from_environment("cpu").text() == "cpu");
    }
    {
        EnvGuard env("PARTCL_DEVICE", std::string("accelerator|1"));
        CHECK(DeviceFilter::from_environment().text() == "accelerator|1");
        CHECK(pick(DeviceFilter::from_environment().text()) == V{3});
        CHECK(DeviceFilter::from_environment("gpu").text() == "gpu");
        CHECK(DeviceFilter::from_environment("").text() == "accelerator|1");
    }
    {
        EnvGuard env("PARTCL_DEVICE", std::string("gpu||cpu"));
        CHECK_THROWS_AS(DeviceFilter::from_environment(), UsageError);
        // A command-line filter wins without even looking at the broken variable.
        CHECK(DeviceFilter::from_environment("cpu").text() == "cpu");
    }
    {
        EnvGuard env("PARTCL_DEVICE", std::nullopt);
        CHECK_THROWS_AS(DeviceFilter::from_environment("gpu|"), UsageError);
    }
}

} // TEST_SUITE
