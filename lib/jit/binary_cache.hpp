#pragma once
// A ProgramCache as the backends' compilers see it (detail::BinaryCache), for the builds of one
// context (or of none: the CUDA compiler's PTX alone).
#include <partcl/jit/program_cache.hpp>

#include "backend/interface.hpp"

namespace partcl::detail {

class ProgramCacheForBackend final : public BinaryCache {
public:
    ProgramCacheForBackend(ProgramCache& cache, const Context* context)
        : cache_(cache), context_(context) {}

    std::string key(const std::string& expanded, const std::string& options,
                    const DeviceInfo& device) const override {
        return ProgramCache::key(expanded, options, device);
    }
    std::optional<std::vector<unsigned char>> load(const std::string& key) const override {
        return cache_.load(key);
    }
    void store(const std::string& key, const std::string& program, const std::string& device,
               const std::string& options, const std::vector<unsigned char>& binary) const override {
        cache_.store(key, CacheEntry{{}, program, device, options}, binary);
    }
    void remove(const std::string& key) const override { cache_.remove(key); }
    std::shared_ptr<ProgramImpl> find(const std::string& key) const override {
        return context_ ? cache_.find(*context_, key) : nullptr;
    }
    void remember(const std::string& key, std::shared_ptr<ProgramImpl> program) const override {
        if (context_) cache_.remember(*context_, key, std::move(program));
    }

private:
    ProgramCache& cache_;
    const Context* context_;
};

} // namespace partcl::detail
