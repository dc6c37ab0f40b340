#include <partcl/dist/environment.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include <partcl/backend/error.hpp>
#include <partcl/dist/communicator.hpp>

#if PARTCL_WITH_MPI
#include "dist/mpi.hpp"
#endif

namespace partcl::dist {

namespace {
#if PARTCL_WITH_MPI
std::unique_ptr<Communicator> world;
#endif
bool started = false;

#if PARTCL_WITH_MPI
// PoCL's kernel cache is not safe for processes that build the same kernels at once: ranks on
// one node sharing it failed at random with "failed to build the program" (pocl issues 430 and
// 1480). Each node-local rank takes a cache of its own, kept between runs, unless the user chose
// one. Set before MPI starts, since MPI's topology probe may load OpenCL drivers.
void separate_pocl_caches() {
    if (std::getenv("POCL_CACHE_DIR")) return;
    const char* local = nullptr;
    for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
        if ((local = std::getenv(name))) break;
    std::string base;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        base = xdg;
    else if (const char* home = std::getenv("HOME"); home && *home)
        base = std::string(home) + "/.cache";
    if (!local || base.empty()) return;
    setenv("POCL_CACHE_DIR", (base + "/pocl/kcache-rank-" + local).c_str(), 0);
}
#endif
} // namespace

bool Environment::built_with_mpi() noexcept { return PARTCL_WITH_MPI != 0; }

bool Environment::launched() noexcept {
    // Open MPI's mpirun, and launchers speaking PMI or PMIx (Slurm's srun, MPICH's Hydra).
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"})
        if (std::getenv(name)) return true;
    return false;
}

bool Environment::active() noexcept { return started; }

Environment::Environment(int& argc, char**& argv, bool always) {
#if PARTCL_WITH_MPI
    if (started) throw UsageError("dist::Environment: MPI is already running (make one Environment)");
    if (!always && !launched()) return;
    separate_pocl_caches();
    int provided = 0;
    detail::check_mpi(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided),
                      "MPI_Init_thread");
    // Errors come back as codes (checked and thrown), not as MPI's default abort.
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rank = 0, size = 1, node_rank = 0, node_size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm node = MPI_COMM_NULL;
    detail::check_mpi(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                                          MPI_INFO_NULL, &node),
                      "MPI_Comm_split_type");
    MPI_Comm_rank(node, &node_rank);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    auto impl = std::make_shared<Communicator::Impl>();
    impl->comm = MPI_COMM_WORLD;
    world = std::make_unique<Communicator>(std::move(impl), rank, size, node_rank, node_size);
    detail::set_world(world.get());
    started = true;
#else
    (void)argc;
    (void)argv;
    (void)always;
#endif
}

Environment::~Environment() {
#if PARTCL_WITH_MPI
    if (!started) return;
    detail::set_world(nullptr);
    world.reset();
    started = false;
    MPI_Finalize();
#endif
}

void Environment::fail(const std::string& message, int code) {
    const Communicator& w = Communicator::world();
    if (w.size() > 1)
        std::fprintf(stderr, "partcl: rank %d of %d: %s\n", w.rank(), w.size(), message.c_str());
    else
        std::fprintf(stderr, "partcl: %s\n", message.c_str());
    std::fflush(stderr);
#if PARTCL_WITH_MPI
    if (started && w.size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
#endif
    std::exit(code);
}

} // namespace partcl::dist
