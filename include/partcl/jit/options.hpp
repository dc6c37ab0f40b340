#pragma once
// BuildOptions, defined with the backends' compilers that take them (partcl/backend/build.hpp).
#include <partcl/backend/build.hpp>
