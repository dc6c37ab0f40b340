#pragma once
// Environment: MPI for the life of a program, when partcl is built with it (PARTCL_MPI) and the
// program runs under mpirun. Made once, first thing in main(); until then, and in programs that
// never make one, Communicator::world() is one rank and nothing speaks MPI:
//
//     int main(int argc, char** argv) {
//         partcl::dist::Environment mpi(argc, argv);
//         try { ...; } catch (const std::exception& e) { mpi.fail(e.what()); }
//     }
//
// MPI is started in MPI_THREAD_FUNNELED (only the main thread calls it) and finalised by the
// destructor. Ranks of one node get PoCL kernel caches of their own (POCL_CACHE_DIR, unless set):
// PoCL's is not safe for processes building at once.
#include <string>

namespace partcl::dist {

class Environment {
public:
    // Starts MPI when built with it and launched by mpirun (launched()), or always where
    // `always` (a test of one rank that still wants MPI's communicator).
    Environment(int& argc, char**& argv, bool always = false);
    ~Environment();
    Environment(const Environment&) = delete;
    Environment& operator=(const Environment&) = delete;

    // partcl was built with MPI (PARTCL_MPI).
    static bool built_with_mpi() noexcept;
    // The process was started by an MPI launcher (Open MPI's, or one speaking PMI/PMIx).
    static bool launched() noexcept;
    // MPI is running (an Environment started it).
    static bool active() noexcept;

    // Ends every rank: prints "partcl: rank R of K: message" on standard error and, where MPI
    // runs with several ranks, aborts them all (MPI_Abort), so the others stop instead of waiting
    // in a collective the failed rank never reaches. Exit status `code` (1 by default).
    [[noreturn]] static void fail(const std::string& message, int code = 1);
};

} // namespace partcl::dist
