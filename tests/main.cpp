// The test runner of partcl_tests. CTest runs one doctest suite per test (`-ts=SUITE`), so each
// CTest entry is its own process with its own environment (PARTCL_KERNEL_PATH, POCL_DEVICES).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
