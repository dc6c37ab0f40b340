// The extension module partcl._partcl; the package partcl (python/partcl/__init__.py) is its
// public face.
#include "bindings.hpp"

#include <partcl/version.hpp>

NB_MODULE(_partcl, m) {
    using namespace partcl::python;
    m.doc() = "partcl: particle-simulation kernels on any OpenCL or CUDA device";
    m.attr("__version__") = PARTCL_VERSION_STRING;
    bind_errors(m);
    bind_runtime(m);
    bind_buffers(m);
    bind_kernels(m);
    bind_gravity(m);
    bind_simulation(m);
}
