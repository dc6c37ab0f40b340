// The test runner of partcl_tests. CTest runs one doctest suite per test (`-ts=SUITE`), so each
// CTest entry is its own process with its own environment (PARTCL_KERNEL_PATH, POCL_DEVICES).
// The shared test context goes before main returns: device objects released by static
// destructors meet drivers already tearing themselves down. Under mpirun (the `mpi` tests) MPI
// runs for the whole process, and every rank runs the suites it is given.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <partcl/dist/environment.hpp>

#include "support.hpp"

int main(int argc, char** argv) {
    partcl::dist::Environment mpi(argc, argv);
    doctest::Context context(argc, argv);
    const int status = context.run();
    partcl_test::release_shared_objects();
    return status;
}
