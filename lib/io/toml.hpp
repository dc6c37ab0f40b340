#pragma once
// toml++, used header-only and privately by the scenario reader (lib/io, and the models'
// schemas in lib/run): nothing of it reaches partcl's headers or its link interface.
//
// toml++ 3.3 checks an internal precondition of its parser that malformed input such as
// "[{x]" or "[[[1]]]" violates (fixed upstream in marzer/tomlplusplus#301): with asserts on the
// program aborts, and with NDEBUG the check becomes an optimiser assumption (undefined behaviour
// with Clang), while the parser itself reports those inputs properly. So its asserts are turned
// into nothing and NDEBUG is hidden from it, which keeps the assumption out in every build type.
#include <cassert>
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 1
#define TOML_ASSERT(expr) static_cast<void>(0)
#ifdef NDEBUG
#define PARTCL_RESTORE_NDEBUG
#undef NDEBUG
#endif
#include <toml++/toml.h>
#ifdef PARTCL_RESTORE_NDEBUG
#define NDEBUG
#undef PARTCL_RESTORE_NDEBUG
#endif
