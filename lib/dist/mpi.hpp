#pragma once
// What the MPI side of dist shares between its files: the world communicator an Environment
// made. Only compiled with PARTCL_WITH_MPI.
#include <mpi.h>

#include <string>

#include <partcl/dist/communicator.hpp>

namespace partcl::dist {

struct Communicator::Impl {
    MPI_Comm comm = MPI_COMM_NULL;
};

namespace detail {
// Throws BackendError naming `call` where `status` is not MPI_SUCCESS.
void check_mpi(int status, const char* call);
// The world communicator of the running Environment (set by it, cleared at its end).
void set_world(const Communicator* world);
} // namespace detail

} // namespace partcl::dist
