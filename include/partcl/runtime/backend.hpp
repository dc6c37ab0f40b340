#pragma once
// Which compute API runs partcl's kernels (partcl/backend/backend.hpp).
#include <partcl/backend/backend.hpp>
