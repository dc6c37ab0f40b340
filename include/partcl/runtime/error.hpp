#pragma once
// partcl's errors, defined with the backends that throw them (partcl/backend/error.hpp).
#include <partcl/backend/error.hpp>
