#include <partcl/jit/source.hpp>

#include "jit/embedded_kernels.hpp"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

namespace partcl {

namespace fs = std::filesystem;

namespace {

// Read on every call, so a program (or test) may set it at any time.
std::optional<fs::path> kernel_path() {
    const char* env = std::getenv("PARTCL_KERNEL_PATH");
    if (!env || !*env) return std::nullopt;
    fs::path dir(env);
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw SourceError("PARTCL_KERNEL_PATH='" + dir.string() +
                          "' is not a directory (it should point at partcl's cl/ tree)");
    return dir;
}

std::optional<std::string> read_file(const fs::path& path) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return std::nullopt;
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw SourceError("error reading kernel file '" + path.string() + "'");
    return text.str();
}

// Tree paths are '/'-separated and relative to cl/; ".." may not leave the tree.
std::optional<std::string> tree_path(const std::string& path) {
    const fs::path normal = fs::path(path).lexically_normal();
    if (normal.empty() || normal.is_absolute()) return std::nullopt;
    const std::string text = normal.generic_string();
    if (text == ".." || text.rfind("../", 0) == 0) return std::nullopt;
    return text;
}

struct Found {
    std::string id;    // identity for include-once
    std::string name;  // what messages call it
    std::string text;
    std::string directory;
    bool in_tree;
};

std::optional<Found> find_in_tree(const std::string& path) {
    const auto rel = tree_path(path);
    if (!rel) return std::nullopt;
    const std::string directory = fs::path(*rel).parent_path().generic_string();
    if (const auto dir = kernel_path()) {
        const fs::path file = *dir / *rel;
        if (auto text = read_file(file))
            return Found{"tree:" + *rel, file.string(), std::move(*text), directory, true};
        return std::nullopt;
    }
    for (std::size_t i = 0; i < detail::embedded_kernel_file_count; ++i) {
        const auto& f = detail::embedded_kernel_files[i];
        if (*rel == f.path)
            return Found{"tree:" + *rel, *rel, std::string(f.data, f.size), directory, true};
    }
    return std::nullopt;
}

std::optional<Found> find_on_disk(const fs::path& file) {
    auto text = read_file(file);
    if (!text) return std::nullopt;
    std::error_code ec;
    const fs::path canonical = fs::weakly_canonical(file, ec);
    const fs::path normal = file.lexically_normal();
    return Found{"disk:" + (ec ? normal : canonical).string(), normal.string(), std::move(*text),
                 normal.parent_path().string(), false};
}

std::string quoted(const std::string& name) {
    std::string text = "\"";
    for (char c : name) {
        if (c == '"' || c == '\\') text += '\\';
        text += c;
    }
    return text + "\"";
}

class Expander {
public:
    explicit Expander(const std::vector<fs::path>& include_dirs) : include_dirs_(include_dirs) {}

    void emit(const Found& file) {
        seen_.insert(file.id);
        out_ += "#line 1 " + quoted(file.name) + "\n";
        // Only "..." includes are ours to resolve; <...> ones (a CUDA header inside
        // #ifdef PARTCL_CUDA, say) are left to the compiler.
        static const std::regex include_line(R"re(^\s*#\s*include\s*"([^"]+)".*$)re");
        static const std::regex pragma_once(R"(^\s*#\s*pragma\s+once\b.*$)");
        std::istringstream lines(file.text);
        std::string line;
        std::size_t number = 0;
        std::smatch match;
        while (std::getline(lines, line)) {
            ++number;
            if (!line.empty() && line.back() == '\r') line.pop_back();
            if (std::regex_match(line, match, include_line)) {
                const auto included = resolve(match[1].str(), file);
                if (!included) {
                    // Left for the compiler: it reports a missing file at this very line, and
                    // only if the line survives the preprocessor (includes under #if that is
                    // false are legitimate).
                    out_ += line + "\n";
                } else if (!seen_.count(included->id)) {
                    emit(*included);
                    out_ += "#line " + std::to_string(number + 1) + " " + quoted(file.name) + "\n";
                } else {
                    out_ += "\n";
                }
            } else if (std::regex_match(line, pragma_once)) {
                out_ += "\n";  // each file is inlined once anyway; keep the line count
            } else {
                out_ += line + "\n";
            }
        }
    }

    std::string take() { return std::move(out_); }

private:
    std::optional<Found> resolve(const std::string& target, const Found& from) const {
        if (from.in_tree) {
            const std::string candidate =
                from.directory.empty() ? target : from.directory + "/" + target;
            if (auto f = find_in_tree(candidate)) return f;
        } else if (!from.directory.empty() || from.id.rfind("disk:", 0) == 0) {
            const fs::path candidate = fs::path(from.directory.empty() ? "." : from.directory) / target;
            if (auto f = find_on_disk(candidate)) return f;
        }
        for (const auto& dir : include_dirs_)
            if (auto f = find_on_disk(dir / target)) return f;
        return find_in_tree(target);
    }

    const std::vector<fs::path>& include_dirs_;
    std::set<std::string> seen_;
    std::string out_;
};

} // namespace

Source::Source(Origin origin, std::string name, std::string text, std::string directory)
    : origin_(origin), name_(std::move(name)), text_(std::move(text)),
      directory_(std::move(directory)) {}

Source Source::builtin(const std::string& path) {
    auto found = find_in_tree(path);
    if (!found)
        throw SourceError("no kernel file '" + path + "' in partcl's kernel tree (" +
                          kernel_tree_location() + ")");
    return Source(Origin::tree, path, std::move(found->text), found->directory);
}

Source Source::from_file(const fs::path& path) {
    auto found = find_on_disk(path);
    if (!found) throw SourceError("cannot read kernel file '" + path.string() + "'");
    return Source(Origin::disk, path.string(), std::move(found->text), found->directory);
}

Source Source::from_string(std::string name, std::string text) {
    return Source(Origin::memory, std::move(name), std::move(text), {});
}

std::string Source::expand(const std::vector<fs::path>& include_dirs) const {
    Found self;
    self.text = text_;
    self.directory = directory_;
    self.in_tree = origin_ == Origin::tree;
    switch (origin_) {
    case Origin::tree: {
        self.id = "tree:" + *tree_path(name_);
        const auto dir = kernel_path();
        self.name = dir ? (*dir / name_).string() : name_;
        break;
    }
    case Origin::disk:
        self.id = "disk:" + fs::weakly_canonical(name_).string();
        self.name = name_;
        if (self.directory.empty()) self.directory = ".";
        break;
    case Origin::memory:
        self.id = "memory:" + name_;
        self.name = name_;
        break;
    }
    Expander expander(include_dirs);
    expander.emit(self);
    return expander.take();
}

std::vector<std::string> builtin_kernels() {
    std::vector<std::string> names;
    if (const auto dir = kernel_path()) {
        for (const auto& entry : fs::recursive_directory_iterator(*dir))
            if (entry.is_regular_file() && entry.path().extension() == ".cl")
                names.push_back(entry.path().lexically_relative(*dir).generic_string());
    } else {
        for (std::size_t i = 0; i < detail::embedded_kernel_file_count; ++i) {
            const std::string path = detail::embedded_kernel_files[i].path;
            if (fs::path(path).extension() == ".cl") names.push_back(path);
        }
    }
    std::sort(names.begin(), names.end());
    return names;
}

std::string kernel_tree_location() {
    if (const auto dir = kernel_path()) return "PARTCL_KERNEL_PATH=" + dir->string();
    return "embedded, " + std::to_string(detail::embedded_kernel_file_count) + " files";
}

} // namespace partcl
