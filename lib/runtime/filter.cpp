#include <partcl/backend/error.hpp>
#include <partcl/runtime/filter.hpp>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace partcl {

namespace {

std::string lower(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return text;
}

// Splits on `separator`, keeping each piece's offset into the filter text for error messages.
std::vector<std::pair<std::string, std::size_t>> split(const std::string& text, std::size_t offset,
                                                       char separator) {
    std::vector<std::pair<std::string, std::size_t>> pieces;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        if (i == text.size() || text[i] == separator) {
            pieces.emplace_back(text.substr(start, i - start), offset + start);
            start = i + 1;
        }
    }
    return pieces;
}

std::string trim(const std::string& text) {
    const char* blanks = " \t\r\n\v\f";
    const auto first = text.find_first_not_of(blanks);
    if (first == std::string::npos) return {};
    const auto last = text.find_last_not_of(blanks);
    return text.substr(first, last - first + 1);
}

} // namespace

DeviceFilter::DeviceFilter(const std::string& text, Backend backend)
    : text_(text), backend_(backend) {
    auto fail = [&](std::size_t position, const std::string& why) {
        throw UsageError("bad device filter '" + text_ + "' at character " +
                         std::to_string(position + 1) + ": " + why +
                         " (grammar: terms all, cpu, gpu, accelerator, fp64, an index or a name "
                         "substring, joined by & (and), , (or), | (fall back))");
    };
    if (trim(text_).empty()) fail(0, "empty filter");

    for (const auto& [alternative_text, alternative_at] : split(text_, 0, '|')) {
        Alternative alternative;
        for (const auto& [group_text, group_at] : split(alternative_text, alternative_at, ',')) {
            Group group;
            for (const auto& [term_raw, term_at] : split(group_text, group_at, '&')) {
                const std::string word = lower(trim(term_raw));
                if (word.empty()) fail(term_at, "empty term");
                Term term;
                term.kind = Term::name_part;
                if (word == "all" || word == "*") {
                    term.kind = Term::any;
                } else if (word == "cpu" || word == "gpu" || word == "accelerator") {
                    term.kind = Term::of_type;
                    term.device_type = word == "cpu"   ? DeviceType::cpu
                                       : word == "gpu" ? DeviceType::gpu
                                                       : DeviceType::accelerator;
                } else if (word == "fp64") {
                    term.kind = Term::with_fp64;
                } else if (std::all_of(word.begin(), word.end(),
                                       [](unsigned char c) { return std::isdigit(c); })) {
                    if (word.size() > 9) fail(term_at, "device index too large");
                    term.kind = Term::at_index;
                    term.index = std::stoul(word);
                } else {
                    term.word = word;
                }
                group.push_back(std::move(term));
            }
            alternative.push_back(std::move(group));
        }
        alternatives_.push_back(std::move(alternative));
    }
}

DeviceFilter DeviceFilter::from_environment(const std::string& cli, const std::string& cli_backend) {
    const Backend backend = backend_from_environment(cli_backend);
    if (!cli.empty()) return DeviceFilter(cli, backend);
    if (const char* env = std::getenv(environment_variable); env && *env)
        return DeviceFilter(env, backend);
    return DeviceFilter(default_text, backend);
}

bool DeviceFilter::matches(const Term& term, const DeviceInfo& info) {
    switch (term.kind) {
    case Term::any: return true;
    case Term::of_type: return info.type == term.device_type;
    case Term::with_fp64: return info.fp64;
    case Term::at_index: return info.index == term.index;
    case Term::name_part:
        return lower(info.name).find(term.word) != std::string::npos ||
               lower(info.vendor).find(term.word) != std::string::npos ||
               lower(info.platform).find(term.word) != std::string::npos;
    }
    return false;
}

bool DeviceFilter::matches(const Alternative& alternative, const DeviceInfo& info) {
    return std::any_of(alternative.begin(), alternative.end(), [&](const Group& group) {
        return std::all_of(group.begin(), group.end(),
                           [&](const Term& term) { return matches(term, info); });
    });
}

std::vector<DeviceInfo> DeviceFilter::match(const std::vector<DeviceInfo>& available) const {
    for (const auto& alternative : alternatives_) {
        std::vector<DeviceInfo> chosen;
        for (const auto& info : available)
            if (matches(alternative, info)) chosen.push_back(info);
        if (!chosen.empty()) return chosen;
    }
    return {};
}

std::vector<Device> DeviceFilter::select(const std::vector<Device>& available) const {
    std::vector<DeviceInfo> infos;
    for (const auto& d : available) infos.push_back(d.info());
    std::vector<Device> chosen;
    for (const auto& info : match(infos))
        for (const auto& d : available)
            if (d.info().index == info.index) chosen.push_back(d);
    if (!chosen.empty()) return chosen;

    const std::string kind = backend_ == Backend::cuda ? "CUDA" : "OpenCL";
    std::string message;
    if (available.empty()) {
        message = backend_ == Backend::cuda
                      ? "no CUDA device found on this machine (no NVIDIA driver, or no GPU)."
                      : "no OpenCL device found on this machine (no platform is installed).";
    } else {
        message = "no " + kind + " device matches the filter '" + text_ +
                  "' (from --device or PARTCL_DEVICE). Devices on this machine:\n" +
                  describe(available);
    }
    if (backend_ == Backend::cuda)
        message += "\nChoose another backend with --backend or PARTCL_BACKEND (auto, opencl).";
    else
        message += "\nA CPU device for any machine comes with PoCL: apt-get install "
                   "pocl-opencl-icd. Run `partcl devices` to list devices.";
    throw Unsupported(message);
}

} // namespace partcl
