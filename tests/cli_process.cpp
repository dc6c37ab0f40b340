#include "cli_process.hpp"

#include <doctest/doctest.h>

#include <csignal>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace partcl_test {

pid_t start_cli(const std::vector<std::string>& args, const std::filesystem::path& log,
                rlim_t file_limit) {
    const pid_t pid = ::fork();
    if (pid == 0) {
        const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (out >= 0) {
            ::dup2(out, 1);
            ::dup2(out, 2);
        }
        if (file_limit) {
            std::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit{file_limit, file_limit};
            ::setrlimit(RLIMIT_FSIZE, &limit);
        }
        std::vector<char*> argv{const_cast<char*>(PARTCL_CLI_PATH)};
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(PARTCL_CLI_PATH, argv.data());
        ::_exit(127);
    }
    REQUIRE(pid > 0);
    return pid;
}

int wait_cli(pid_t pid) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int run_cli(const std::vector<std::string>& args, const std::filesystem::path& log,
            rlim_t file_limit) {
    return wait_cli(start_cli(args, log, file_limit));
}

} // namespace partcl_test
