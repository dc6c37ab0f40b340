#include <partcl/io/csv_log.hpp>

#include <partcl/backend/error.hpp>
#include <partcl/support/atomic_file.hpp>

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace partcl {

namespace {
[[noreturn]] void fail(const std::filesystem::path& file, const char* what, int error) {
    throw Error(std::string("cannot ") + what + " " + file.string() + ": " + std::strerror(error));
}
} // namespace

CsvLog::~CsvLog() { close(); }

void CsvLog::close() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
}

void CsvLog::open(const std::filesystem::path& file, std::string text) {
    close();
    write_file_atomically(file, text);
    const int fd = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    if (fd < 0) fail(file, "open for appending", errno);
    fd_ = fd;
    file_ = file;
    text_ = std::move(text);
}

void CsvLog::append(const std::string& row) {
    if (fd_ < 0) throw UsageError("CsvLog::append before open()");
    std::size_t done = 0;
    while (done < row.size()) {
        const ssize_t wrote = ::write(fd_, row.data() + done, row.size() - done);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            fail(file_, "append to", errno);
        }
        done += std::size_t(wrote);
    }
    text_ += row;
}

void CsvLog::sync() {
    if (fd_ >= 0 && ::fsync(fd_) != 0) fail(file_, "flush", errno);
}

} // namespace partcl
