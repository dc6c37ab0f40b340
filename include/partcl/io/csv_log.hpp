#pragma once
// CsvLog: a CSV file a run adds one row at a time to, in time linear in the rows however many
// there are (appends, never rewrites), and that a crash cannot lose:
// - open() replaces the file atomically with the text so far (the header, or a resumed run's
//   rows from its checkpoint), so a resumed run's CSV holds exactly the rows of the run it
//   continues, whatever the directory held before;
// - append() writes its row with write(2) before it returns, so a killed process loses no row
//   it appended (at most a part of the one being written when it died);
// - sync() flushes the rows to the disk (fsync); runs call it with every checkpoint, so after a
//   power failure too the file holds at least the rows the last checkpoint holds.
// text() is the whole file as written, which checkpoints keep.
#include <filesystem>
#include <string>

namespace partcl {

class CsvLog {
public:
    CsvLog() = default;
    ~CsvLog();
    CsvLog(const CsvLog&) = delete;
    CsvLog& operator=(const CsvLog&) = delete;

    // `text` is the header line, or the header and rows to continue after (each line ending
    // in '\n'). Errors throw partcl::Error naming the file and the system's reason.
    void open(const std::filesystem::path& file, std::string text);
    void append(const std::string& row);
    void sync();

    const std::string& text() const noexcept { return text_; }

private:
    void close() noexcept;

    std::filesystem::path file_;
    std::string text_;
    int fd_ = -1;
};

} // namespace partcl
