#pragma once
// The partcl tool run as a user runs it, from the tests that check whole runs (test_faults.cpp,
// test_run.cpp): only in builds with the tools, where PARTCL_CLI_PATH names the built binary.
#include <filesystem>
#include <string>
#include <vector>

#include <sys/resource.h>
#include <sys/types.h>

namespace partcl_test {

// Starts `partcl ARGS...` with stdout and stderr into `log`; `file_limit` > 0 caps the size of
// any file it writes (RLIMIT_FSIZE, SIGXFSZ ignored: writes past it fail with EFBIG).
pid_t start_cli(const std::vector<std::string>& args, const std::filesystem::path& log,
                rlim_t file_limit = 0);
// Its exit status, or 128 + the signal that ended it.
int wait_cli(pid_t pid);
int run_cli(const std::vector<std::string>& args, const std::filesystem::path& log,
            rlim_t file_limit = 0);

} // namespace partcl_test
