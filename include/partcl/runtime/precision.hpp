#pragma once
// The floating-point type of programs and buffers, defined with the backends whose algorithms
// take it (partcl/backend/precision.hpp).
#include <partcl/backend/precision.hpp>
