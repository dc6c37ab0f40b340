// Profile: every kernel, copy, fill and library call recorded by name and device while one
// records, their counts exact and their device times summed; nothing recorded otherwise.
#include <doctest/doctest.h>

#include <partcl/algorithm/reduce.hpp>
#include <partcl/algorithm/scan.hpp>
#include <partcl/algorithm/sort_by_key.hpp>
#include <partcl/jit/kernel.hpp>
#include <partcl/jit/program_cache.hpp>
#include <partcl/runtime/profile.hpp>

#include <cmath>
#include <map>
#include <numeric>
#include <string>
#include <vector>

#include "support.hpp"

using namespace partcl;
using namespace partcl_test;

namespace {

// name -> (count, seconds) on device 0; every entry checked to be of device 0 and finite.
std::map<std::string, std::pair<std::size_t, double>> by_name(Profile& profile) {
    std::map<std::string, std::pair<std::size_t, double>> found;
    const std::vector<Profile::Entry> entries = profile.entries();
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const Profile::Entry& e = entries[i];
        INFO(e.name);
        CHECK(e.device == 0);
        CHECK(std::isfinite(e.seconds));
        CHECK(e.seconds >= 0);
        if (i > 0) CHECK(entries[i - 1].seconds >= e.seconds);  // the longest first
        found[e.name] = {e.count, e.seconds};
    }
    return found;
}

const char* const add_one_source = R"CL(#include "common/real.h"
KERNEL void add_one(GLOBAL uint* values, const uint n) {
    const uint i = global_id(0);
    if (i < n) values[i] += 1u;
}
)CL";

} // namespace

TEST_SUITE("profile") {

TEST_CASE("a Profile counts every command by name while it records, and only then") {
    Context& context = test_context();
    Queue& queue = context.queue(0);
    const Program program =
        build_program(context, Source::from_string("add_one.cl", add_one_source), {}, memory_cache());
    Kernel kernel(program, "add_one");
    const std::size_t n = 5000;
    std::vector<std::uint32_t> host(n);
    std::iota(host.begin(), host.end(), 0u);
    Buffer<std::uint32_t> values(context, host), other(context, n);
    SortByKey library_sort(context, ProgramCache::global(), std::nullopt, SortMethod::library);
    kernel.args(values, std::uint32_t(n)).launch(queue, n, 64);  // before: not counted
    CHECK(!Profile::recording());
    {
        Profile profile;
        CHECK(Profile::recording());
        CHECK_THROWS_AS(Profile(), UsageError);  // one at a time
        for (int i = 0; i < 3; ++i) kernel.launch(queue, n, 64);
        other.fill(queue, 7u);
        other.fill(queue, 0u);
        values.copy_to(queue, other, n);
        values.write(queue, host);
        exclusive_scan(queue, values, other, n);
        const double sum = reduce(queue, Buffer<float>(context, std::vector<float>(100, 1.0f)), 100, ReduceOp::sum);
        CHECK(sum == 100.0);
        library_sort(queue, other, values, n);
        auto found = by_name(profile);
        CHECK(found["add_one"].first == 3);
        CHECK(found["fill"].first == 2);
        CHECK(found["copy"].first == 1);
        CHECK(found["exclusive_scan (library)"].first == 1);
        CHECK(found["reduce (library)"].first == 1);
        CHECK(found["sort_by_key (library)"].first == 1);
        // The Buffer<float> of the reduction was written: 2 writes in all.
        CHECK(found["write"].first == 2);
        // The kernel's 3 launches over 5000 items took some device time.
        CHECK(found["add_one"].second > 0);

        // clear() forgets; past the events a Profile holds at once, the oldest are summed.
        profile.clear();
        CHECK(profile.entries().empty());
        for (int i = 0; i < 9000; ++i) kernel.launch(queue, 64, 64);
        found = by_name(profile);
        CHECK(found.size() == 1);
        CHECK(found["add_one"].first == 9000);
    }
    CHECK(!Profile::recording());
    kernel.launch(queue, n, 64);  // no Profile: nothing kept, nothing fails
    Profile again;
    CHECK(again.entries().empty());
}

} // TEST_SUITE
