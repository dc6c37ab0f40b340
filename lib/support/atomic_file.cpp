#include <partcl/support/atomic_file.hpp>
#include <partcl/support/error.hpp>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

namespace partcl {

namespace fs = std::filesystem;

namespace {

std::string reason(int error) { return std::strerror(error); }

[[noreturn]] void fail(const fs::path& target, const std::string& what, int error) {
    throw Error("cannot write " + target.string() + ": " + what +
                (what.empty() ? "" : ": ") + reason(error));
}

fs::path temporary_for(const fs::path& target) {
    static std::atomic<unsigned long long> counter{0};
    return fs::path(target.string() + ".tmp." + std::to_string(::getpid()) + "." +
                    std::to_string(counter++));
}

// Removes the temporary unless released; never throws.
class TemporaryGuard {
public:
    explicit TemporaryGuard(fs::path path) : path_(std::move(path)) {}
    ~TemporaryGuard() {
        if (!released_) ::unlink(path_.c_str());
    }
    void release() { released_ = true; }

private:
    fs::path path_;
    bool released_ = false;
};

void fsync_file(const fs::path& target, const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail(target, "cannot reopen the temporary file " + path.string(), errno);
    if (::fsync(fd) != 0) {
        const int error = errno;
        ::close(fd);
        fail(target, "fsync", error);
    }
    ::close(fd);
}

// Makes the rename itself durable; best effort (some file systems refuse fsync on a directory).
void fsync_directory(const fs::path& directory) {
    const int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)::fsync(fd);
    ::close(fd);
}

fs::path directory_of(const fs::path& target) {
    return target.has_parent_path() ? target.parent_path() : fs::path(".");
}

} // namespace

void write_file_atomically(const fs::path& target,
                           const std::function<void(const fs::path& temporary)>& write) {
    if (target.empty()) throw Error("cannot write a file with an empty name");
    const fs::path directory = directory_of(target);
    struct stat info{};
    if (::stat(directory.c_str(), &info) != 0)
        fail(target, "directory " + directory.string(), errno);
    if (!S_ISDIR(info.st_mode))
        throw Error("cannot write " + target.string() + ": " + directory.string() +
                    " is not a directory");
    if (::stat(target.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
        throw Error("cannot write " + target.string() + ": it is a directory");

    const fs::path temporary = temporary_for(target);
    TemporaryGuard guard(temporary);
    write(temporary);

    if (::stat(temporary.c_str(), &info) != 0)
        fail(target, "the writer left no file at " + temporary.string(), errno);
    fsync_file(target, temporary);
    if (::rename(temporary.c_str(), target.c_str()) != 0) fail(target, "rename", errno);
    guard.release();
    fsync_directory(directory);
}

void write_file_atomically(const fs::path& target, const std::string& contents) {
    write_file_atomically(target, [&](const fs::path& temporary) {
        const int fd =
            ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd < 0) fail(target, "cannot create " + temporary.string(), errno);
        const char* data = contents.data();
        std::size_t left = contents.size();
        while (left > 0) {
            const ssize_t written = ::write(fd, data, left);
            if (written < 0) {
                if (errno == EINTR) continue;
                const int error = errno;
                ::close(fd);
                fail(target, "", error);
            }
            data += written;
            left -= std::size_t(written);
        }
        if (::close(fd) != 0) fail(target, "", errno);
    });
}

bool is_atomic_temporary(const fs::path& path) {
    // <name>.tmp.<digits>.<digits>
    const std::string name = path.filename().string();
    const auto tmp = name.rfind(".tmp.");
    if (tmp == std::string::npos || tmp == 0) return false;
    const std::string rest = name.substr(tmp + 5);
    const auto dot = rest.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 == rest.size()) return false;
    for (std::size_t i = 0; i < rest.size(); ++i)
        if (i != dot && (rest[i] < '0' || rest[i] > '9')) return false;
    return true;
}

std::size_t remove_stale_temporaries(const fs::path& directory) {
    std::error_code ec;
    std::vector<fs::path> stale;
    for (const auto& item : fs::directory_iterator(directory, ec)) {
        const fs::path& path = item.path();
        if (!is_atomic_temporary(path) || !item.is_regular_file(ec)) continue;
        const std::string name = path.filename().string();
        const std::string rest = name.substr(name.rfind(".tmp.") + 5);
        const std::string digits = rest.substr(0, rest.find('.'));
        if (digits.size() > 9) continue;  // no process id
        const long pid = std::stol(digits);
        // Only a dead writer's: a live process (another run in the same directory) may be
        // about to rename its temporary into place.
        if (pid > 0 && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
            stale.push_back(path);
    }
    std::size_t removed = 0;
    for (const auto& path : stale) removed += fs::remove(path, ec);
    return removed;
}

} // namespace partcl
