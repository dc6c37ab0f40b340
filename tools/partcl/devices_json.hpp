#pragma once
// `partcl devices --json`: the device list as JSON text, apart from the command so a test can
// give it device names no real driver reports.
#include <string>
#include <vector>

#include <partcl/runtime/device.hpp>

namespace partcl::cli {

// A JSON array with one object per device of `devices`; "selected" says whether `chosen` (the
// filter's match) holds it. In drivers' strings, invalid UTF-8 becomes U+FFFD (nlohmann's
// error_handler_t::replace), so the text is always valid JSON.
std::string devices_json(const std::vector<DeviceInfo>& devices,
                         const std::vector<DeviceInfo>& chosen);

} // namespace partcl::cli
