// `partcl devices --json` (tools/partcl/devices_json.cpp): what it writes parses back, with
// every field, whatever bytes a driver puts in its strings.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "../tools/partcl/devices_json.hpp"

#include <partcl/runtime/device.hpp>

using partcl::DeviceInfo;
using partcl::cli::devices_json;

TEST_SUITE("devices_json") {

TEST_CASE("every device of the machine, parsed back field by field") {
    std::vector<DeviceInfo> devices;
    for (const auto& d : partcl::enumerate_devices()) devices.push_back(d.info());
    REQUIRE(!devices.empty());
    const std::vector<DeviceInfo> chosen{devices.front()};
    const auto list = nlohmann::json::parse(devices_json(devices, chosen));
    REQUIRE(list.is_array());
    REQUIRE(list.size() == devices.size());
    for (std::size_t i = 0; i < devices.size(); ++i) {
        const auto& d = devices[i];
        const auto& j = list[i];
        CHECK(j.size() == 19);
        CHECK(j.at("index") == d.index);
        CHECK(j.at("selected") == (i == 0 || d.index == devices.front().index));
        CHECK(j.at("type") == partcl::to_string(d.type));
        CHECK(j.at("name") == d.name);
        CHECK(j.at("vendor") == d.vendor);
        CHECK(j.at("platform") == d.platform);
        CHECK(j.at("platform_index") == d.platform_index);
        CHECK(j.at("platform_version") == d.platform_version);
        CHECK(j.at("device_version") == d.device_version);
        CHECK(j.at("driver_version") == d.driver_version);
        CHECK(j.at("opencl_c_version") == d.opencl_c_version);
        CHECK(j.at("compute_units") == d.compute_units);
        CHECK(j.at("clock_mhz") == d.clock_mhz);
        CHECK(j.at("global_memory_bytes") == d.global_memory);
        CHECK(j.at("local_memory_bytes") == d.local_memory);
        CHECK(j.at("max_allocation_bytes") == d.max_allocation);
        CHECK(j.at("max_work_group_size") == d.max_work_group_size);
        CHECK(j.at("fp64") == d.fp64);
        CHECK(j.at("backend") == partcl::to_string(d.backend));
    }
}

TEST_CASE("no device is an empty array") {
    CHECK(nlohmann::json::parse(devices_json({}, {})) == nlohmann::json::array());
}

TEST_CASE("escapes and valid UTF-8 pass through, invalid UTF-8 becomes U+FFFD") {
    DeviceInfo d;
    d.name = "quote \" backslash \\ tab \t bell \x07 \xc3\xa9t\xc3\xa9 \xe2\x82\xac";
    // A lone continuation byte, a truncated sequence, an overlong '/', a surrogate.
    d.vendor = std::string("a\x80" "b\xe2\x82" "c\xc0\xaf" "d\xed\xa0\x80" "e");
    const std::string text = devices_json({d}, {});
    const auto j = nlohmann::json::parse(text).at(0);
    CHECK(j.at("name") == d.name);
    CHECK(j.at("selected") == false);
    // nlohmann's error_handler_t::replace: one U+FFFD per invalid sequence it stops in.
    const std::string r = "\xef\xbf\xbd";
    CHECK(j.at("vendor") == "a" + r + "b" + r + "c" + r + r + "d" + r + r + r + "e");
}

} // TEST_SUITE
