#pragma once
// DeviceFilter: which devices a run uses, as one string (CLI `--device`, env `PARTCL_DEVICE`).
//
//   filter      := alternative ('|' alternative)*   first alternative that selects anything wins
//   alternative := group (',' group)*               union, in enumeration order
//   group       := term ('&' term)*                 intersection
//   term        := 'all' | '*' | 'cpu' | 'gpu' | 'accelerator' | 'fp64'
//                | INDEX                           a number from `partcl devices`
//                | WORD                            case-insensitive substring of the device
//                                                  name, vendor or platform name
//
// Examples: "gpu|cpu" (the default), "all", "1", "0,2", "nvidia&gpu", "gpu&fp64|cpu",
// "pthread". Whitespace around operators is ignored.
#include <string>
#include <vector>

#include <partcl/runtime/device.hpp>

namespace partcl {

class DeviceFilter {
public:
    static constexpr const char* default_text = "gpu|cpu";
    static constexpr const char* environment_variable = "PARTCL_DEVICE";

    // Throws UsageError naming the position of a malformed filter. `backend` says which
    // backend's devices select() chooses among.
    explicit DeviceFilter(const std::string& text = default_text,
                          Backend backend = Backend::automatic);

    // The filter a program should use: `cli` when not empty, else PARTCL_DEVICE when set,
    // else the default; the backend from `cli_backend`, else PARTCL_BACKEND, else automatic.
    static DeviceFilter from_environment(const std::string& cli = {},
                                         const std::string& cli_backend = {});

    const std::string& text() const noexcept { return text_; }
    Backend backend() const noexcept { return backend_; }

    // The devices the filter picks from `available`, in enumeration order.
    std::vector<DeviceInfo> match(const std::vector<DeviceInfo>& available) const;

    // As match(), over real devices; throws Unsupported when nothing matches, with a message
    // that lists the devices that exist and says how to get a CPU device (PoCL).
    std::vector<Device> select(const std::vector<Device>& available) const;
    std::vector<Device> select() const { return select(enumerate_devices(backend_)); }

private:
    struct Term {
        enum Kind { any, of_type, with_fp64, at_index, name_part } kind = any;
        DeviceType device_type = DeviceType::other;
        std::size_t index = 0;
        std::string word; // lower case
    };
    using Group = std::vector<Term>;         // intersection
    using Alternative = std::vector<Group>;  // union

    static bool matches(const Term& term, const DeviceInfo& info);
    static bool matches(const Alternative& alternative, const DeviceInfo& info);

    std::string text_;
    Backend backend_ = Backend::automatic;
    std::vector<Alternative> alternatives_;
};

} // namespace partcl
