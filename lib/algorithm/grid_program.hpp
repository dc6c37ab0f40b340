#pragma once
// A program of cl/algorithm/ whose kernels find particles' cells on a CellGrid of `dimensions`
// (CELL_LIST_DIMENSIONS) in `precision`: the cell list's and the slab selection's. Private to the
// library.
#include <partcl/jit/compiler.hpp>

namespace partcl::detail {

inline Program build_grid_program(const Context& context, Precision precision, int dimensions,
                                  const char* file, ProgramCache& cache) {
    BuildOptions options;
    options.precision = precision;
    options.define("CELL_LIST_DIMENSIONS", dimensions);
    return build_program(context, Source::builtin(file), options, cache);
}

} // namespace partcl::detail
