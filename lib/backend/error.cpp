#include <partcl/backend/error.hpp>

namespace partcl {

namespace {
std::string message(const std::string& call, const std::string& status_name,
                    const std::string& explanation, const std::string& detail) {
    std::string text = call + " failed: " + status_name + " (" + explanation + ")";
    if (!detail.empty()) text += ": " + detail;
    return text;
}
} // namespace

BackendError::BackendError(std::string call, int status, std::string status_name,
                           const std::string& detail)
    : BackendError(std::move(call), status, std::move(status_name), std::to_string(status),
                   detail) {}

BackendError::BackendError(std::string call, int status, std::string status_name,
                           const std::string& explanation, const std::string& detail)
    : Error(message(call, status_name, explanation, detail)), status_(status),
      status_name_(std::move(status_name)), call_(std::move(call)) {}

BuildError::BuildError(std::string program, std::string device, std::string log)
    : Error("kernel build failed: " + program + " on " + device + ":\n" + log),
      program_(std::move(program)), device_(std::move(device)), log_(std::move(log)) {}

} // namespace partcl
