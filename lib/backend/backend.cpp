// Backends by name, and whether each is there to use.
#include <partcl/backend/backend.hpp>
#include <partcl/backend/error.hpp>

#include <cstdlib>

#include "backend/interface.hpp"

namespace partcl {

const char* to_string(Backend backend) noexcept {
    switch (backend) {
    case Backend::opencl: return "opencl";
    case Backend::cuda: return "cuda";
    default: return "auto";
    }
}

Backend parse_backend(const std::string& text) {
    if (text == "auto") return Backend::automatic;
    if (text == "opencl") return Backend::opencl;
    if (text == "cuda") return Backend::cuda;
    throw UsageError("unknown backend '" + text + "': use auto, opencl or cuda");
}

Backend backend_from_environment(const std::string& cli) {
    if (!cli.empty()) return parse_backend(cli);
    if (const char* env = std::getenv("PARTCL_BACKEND"); env && *env) return parse_backend(env);
    return Backend::automatic;
}

bool backend_built(Backend backend) noexcept {
    return backend != Backend::cuda || detail::cuda_backend() != nullptr;
}

} // namespace partcl
