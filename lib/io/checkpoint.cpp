#include <partcl/io/checkpoint.hpp>

#include <cmath>

#include <partcl/backend/error.hpp>
#include <partcl/support/atomic_file.hpp>
#include <partcl/support/digest.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace partcl {

namespace fs = std::filesystem;

namespace {

constexpr char magic[8] = {'P', 'A', 'R', 'T', 'C', 'L', 'C', 'K'};
constexpr std::uint32_t version = 3;  // 1: without the PIC and MPS items, 2: without the tree order; still read
constexpr std::size_t header_size = 24;
constexpr std::size_t digest_size = 20;

class Encoder {
public:
    void u32(std::uint32_t v) {
        for (int i = 0; i < 4; ++i) out_.push_back(char((v >> (8 * i)) & 0xff));
    }
    void u64(std::uint64_t v) {
        for (int i = 0; i < 8; ++i) out_.push_back(char((v >> (8 * i)) & 0xff));
    }
    void f64(double v) {
        std::uint64_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        u64(bits);
    }
    void string(const std::string& s) {
        u64(s.size());
        out_ += s;
    }
    void vector(const std::vector<double>& values) {
        u64(values.size());
        for (double v : values) f64(v);
    }
    void vector(const std::vector<std::uint32_t>& values) {
        u64(values.size());
        for (std::uint32_t v : values) u32(v);
    }
    std::string& bytes() { return out_; }

private:
    std::string out_;
};

class Decoder {
public:
    Decoder(const std::string& bytes, std::size_t begin, std::size_t end,
            const std::string& source)
        : bytes_(bytes), at_(begin), end_(end), source_(source) {}

    std::uint64_t u64(const char* what) {
        need(8, what);
        std::uint64_t v = 0;
        for (int i = 0; i < 8; ++i)
            v |= std::uint64_t(static_cast<unsigned char>(bytes_[at_ + std::size_t(i)])) << (8 * i);
        at_ += 8;
        return v;
    }
    double f64(const char* what) {
        const std::uint64_t bits = u64(what);
        double v;
        std::memcpy(&v, &bits, sizeof v);
        return v;
    }
    std::string string(const char* what) {
        const std::uint64_t size = u64(what);
        need(size, what);
        std::string s = bytes_.substr(at_, std::size_t(size));
        at_ += std::size_t(size);
        return s;
    }
    std::vector<double> vector(const char* what) {
        const std::uint64_t count = u64(what);
        if (count > (end_ - at_) / 8) damaged(std::string(what) + " claims " +
                                              std::to_string(count) + " values");
        std::vector<double> values(static_cast<std::size_t>(count));
        for (auto& v : values) v = f64(what);
        return values;
    }
    std::vector<std::uint32_t> vector_u32(const char* what) {
        const std::uint64_t count = u64(what);
        if (count > (end_ - at_) / 4) damaged(std::string(what) + " claims " +
                                              std::to_string(count) + " values");
        std::vector<std::uint32_t> values(static_cast<std::size_t>(count));
        for (auto& v : values) {
            need(4, what);
            v = 0;
            for (int i = 0; i < 4; ++i)
                v |= std::uint32_t(static_cast<unsigned char>(bytes_[at_ + std::size_t(i)])) << (8 * i);
            at_ += 4;
        }
        return values;
    }
    bool done() const { return at_ == end_; }

    [[noreturn]] void damaged(const std::string& what) const {
        throw UsageError("checkpoint " + source_ + " is damaged: " + what);
    }

private:
    void need(std::uint64_t size, const char* what) const {
        if (size > end_ - at_) damaged(std::string("the payload ends inside ") + what);
    }

    const std::string& bytes_;
    std::size_t at_, end_;
    const std::string& source_;
};

} // namespace

std::string encode_checkpoint(const Checkpoint& c) {
    Encoder payload;
    payload.string(c.scenario_toml);
    payload.u64(c.step);
    payload.f64(c.time);
    payload.f64(c.dt);
    payload.string(c.precision);
    payload.string(c.device);
    payload.vector(c.state);
    payload.vector(c.mass);
    payload.u64(c.integrator.vectors.size());
    for (const auto& v : c.integrator.vectors) payload.vector(v);
    payload.vector(c.integrator.scalars);
    payload.vector(c.scheduler_weights);
    payload.vector(c.initial_diagnostics);
    payload.vector(c.particle_types);
    payload.u64(c.series.size());
    for (const auto& v : c.series) payload.vector(v);
    payload.string(c.output_text);
    payload.vector(c.run_state);
    payload.vector(c.tree_order);

    Encoder file;
    file.bytes().append(magic, sizeof magic);
    file.u32(version);
    file.u32(0);
    file.u64(payload.bytes().size());
    file.bytes() += payload.bytes();
    file.bytes() += sha1_digest(payload.bytes().data(), payload.bytes().size());
    return std::move(file.bytes());
}

Checkpoint decode_checkpoint(const std::string& bytes, const std::string& source) {
    const auto fail = [&](const std::string& what) -> void {
        throw UsageError("checkpoint " + source + ": " + what);
    };
    if (bytes.empty()) fail("empty file");
    if (bytes.size() < sizeof magic &&
        std::memcmp(bytes.data(), magic, bytes.size()) == 0)
        fail("truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the header");
    if (bytes.size() < sizeof magic || std::memcmp(bytes.data(), magic, sizeof magic) != 0)
        fail("not a partcl checkpoint (wrong magic)");
    if (bytes.size() < header_size)
        fail("truncated: " + std::to_string(bytes.size()) + " bytes, shorter than the header");
    Decoder header(bytes, 8, header_size, source);
    const std::uint64_t words = header.u64("the header");
    const std::uint32_t file_version = std::uint32_t(words & 0xffffffffu);
    if (file_version < 1 || file_version > version)
        fail("format version " + std::to_string(file_version) + ", this partcl reads versions 1 to " +
             std::to_string(version));
    if ((words >> 32) != 0)
        fail("damaged: the reserved header field is " + std::to_string(words >> 32) +
             ", not 0");
    const std::uint64_t payload_size = header.u64("the header");
    const std::uint64_t available = bytes.size() - header_size;
    if (payload_size > available || available - payload_size < digest_size)
        fail("truncated: " + std::to_string(bytes.size()) + " bytes, the header announces " +
             std::to_string(header_size + payload_size + digest_size));
    if (available - payload_size > digest_size)
        fail("damaged: " + std::to_string(available - payload_size - digest_size) +
             " unexpected bytes after the checksum");
    const std::size_t end = header_size + std::size_t(payload_size);
    if (sha1_digest(bytes.data() + header_size, std::size_t(payload_size)) !=
        bytes.substr(end, digest_size))
        fail("damaged: checksum mismatch");

    Decoder in(bytes, header_size, end, source);
    Checkpoint c;
    c.scenario_toml = in.string("the scenario");
    c.step = in.u64("the step");
    c.time = in.f64("the time");
    c.dt = in.f64("dt");
    c.precision = in.string("the precision");
    c.device = in.string("the device");
    c.state = in.vector("the state");
    c.mass = in.vector("the masses");
    const std::uint64_t vectors = in.u64("the integrator state");
    if (vectors > payload_size / 8) in.damaged("the integrator state claims " +
                                               std::to_string(vectors) + " vectors");
    for (std::uint64_t i = 0; i < vectors; ++i)
        c.integrator.vectors.push_back(in.vector("the integrator state"));
    c.integrator.scalars = in.vector("the integrator scalars");
    c.scheduler_weights = in.vector("the scheduler weights");
    c.initial_diagnostics = in.vector("the initial diagnostics");
    if (file_version >= 2) {
        c.particle_types = in.vector_u32("the particle types");
        const std::uint64_t series = in.u64("the series");
        if (series > payload_size / 8) in.damaged("the series claim " + std::to_string(series) + " vectors");
        for (std::uint64_t i = 0; i < series; ++i) c.series.push_back(in.vector("the series"));
        c.output_text = in.string("the output text");
        c.run_state = in.vector("the run state");
    }
    if (file_version >= 3) c.tree_order = in.vector_u32("the tree order");
    if (!in.done()) in.damaged("unexpected bytes at the end of the payload");
    const std::size_t n = c.particle_types.size();
    if (n == 0 && c.state.size() != 6 * c.mass.size())
        in.damaged("the state has " + std::to_string(c.state.size()) + " values for " +
                   std::to_string(c.mass.size()) + " masses (expected 6 per body)");
    if (n && (!c.mass.empty() || c.state.size() % (2 * n) || c.state.size() / (2 * n) > 3))
        in.damaged("the state has " + std::to_string(c.state.size()) + " values for " +
                   std::to_string(n) + " particles and " + std::to_string(c.mass.size()) +
                   " masses (expected 2, 4 or 6 per particle and no masses)");
    // A run resumed from non-finite numbers fails steps later with a message about its physics;
    // the checkpoint is what is wrong, and the reader says so.
    auto finite = [&](const char* what, double value) {
        if (!std::isfinite(value))
            in.damaged(std::string(what) + " is " + (std::isnan(value) ? "NaN" : "infinite"));
    };
    finite("the time", c.time);
    finite("dt", c.dt);
    if (c.time < 0) in.damaged("the time is negative");
    if (!(c.dt >= 0)) in.damaged("dt is negative");
    auto all_finite = [&](const char* what, const std::vector<double>& values) {
        for (std::size_t i = 0; i < values.size(); ++i)
            if (!std::isfinite(values[i]))
                in.damaged(std::string(what) + " value " + std::to_string(i) + " is " +
                           (std::isnan(values[i]) ? "NaN" : "infinite"));
    };
    all_finite("the state's", c.state);
    all_finite("the masses'", c.mass);
    return c;
}

void write_checkpoint(const fs::path& file, const Checkpoint& checkpoint) {
    write_file_atomically(file, encode_checkpoint(checkpoint));
}

Checkpoint read_checkpoint(const fs::path& file) {
    std::error_code ec;
    if (!fs::exists(file, ec)) throw UsageError("checkpoint " + file.string() + ": no such file");
    if (fs::is_directory(file, ec))
        throw UsageError("checkpoint " + file.string() + ": is a directory");
    std::ifstream in(file, std::ios::binary);
    if (!in)
        throw UsageError("checkpoint " + file.string() + ": cannot open: " +
                         std::strerror(errno));
    std::ostringstream bytes;
    bytes << in.rdbuf();
    if (in.bad()) throw UsageError("checkpoint " + file.string() + ": read error");
    return decode_checkpoint(bytes.str(), file.string());
}

} // namespace partcl
