// partcl cache path|list|clear: the on-disk program cache (see partcl/jit/program_cache.hpp).
#include "commands.hpp"
#include "text.hpp"

#include <iostream>

#include <partcl/partcl.hpp>

namespace partcl::cli {

CLI::App* add_cache(CLI::App& app, CacheCommands& commands) {
    auto* command = app.add_subcommand("cache", "Show or clear the on-disk program cache");
    commands.path = command->add_subcommand("path", "Print the cache directory");
    commands.list = command->add_subcommand("list", "List the cached programs");
    commands.clear = command->add_subcommand("clear", "Remove every cached program");
    command->require_subcommand(0, 1);  // none: main() reports it after parsing
    command->footer("Location: PARTCL_CACHE_DIR, else $XDG_CACHE_HOME/partcl, else "
                    "~/.cache/partcl. PARTCL_CACHE=off stops programs from using it.");
    return command;
}

int run_cache(const CacheCommands& commands) {
    const ProgramCache& cache = ProgramCache::global();
    const std::string directory = cache.directory().string();
    // The commands still work on the directory when the cache is off, so it can be cleared.
    if (!cache.disk_enabled())
        std::cerr << "partcl: note: PARTCL_CACHE=off, programs do not use this cache now\n";

    if (*commands.path) {
        std::cout << directory << '\n';
        return 0;
    }
    if (*commands.list) {
        const auto entries = cache.list();
        if (entries.empty()) {
            std::cout << "no cached programs in " << directory << '\n';
            return 0;
        }
        std::vector<std::vector<std::string>> rows{
            {"entry", "size", "state", "device", "program", "options"}};
        std::uintmax_t total = 0;
        std::size_t damaged = 0;
        for (const auto& e : entries) {
            total += e.bytes;
            if (!e.valid) ++damaged;
            // The first 12 hex digits of the key name an entry well enough to read the list.
            rows.push_back({e.file.stem().string().substr(0, 12), format_bytes(e.bytes),
                            e.valid ? "ok" : "damaged", e.device, e.program, e.options});
        }
        print_table(std::cout, rows, {1});
        std::cout << "\n" << entries.size() << " entries, " << format_bytes(total) << ", in "
                  << directory << '\n';
        if (damaged > 0)
            std::cout << damaged << " damaged (the next build that needs one rebuilds and "
                                    "replaces it)\n";
        return 0;
    }
    const std::size_t removed = cache.clear();
    std::cout << "removed " << removed << (removed == 1 ? " entry" : " entries") << " from "
              << directory << '\n';
    return 0;
}

} // namespace partcl::cli
