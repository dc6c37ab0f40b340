// A user's program, as small as one is: its own Context in main, one device algorithm, a check
// of the result, and a normal return, after which the process's exit releases whatever partcl
// and its libraries still hold. CTest runs it under tests/oclgrind.sh for each algorithm
// (label oclgrind), which fails on a diagnostic or an exit status other than 0. Before partcl
// released Boost.Compute's programs with their context, sort_by_key and reduce_max aborted here
// at exit (status 134, "corrupted double-linked list" in clReleaseProgram).
//
//   partcl_user_program sort_by_key|reduce_max|reduce_min|reduce_sum|exclusive_scan|cell_list
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include <partcl/partcl.hpp>

using namespace partcl;

namespace {

bool run(const std::string& algorithm) {
    Context context = Context::from_filter(DeviceFilter::from_environment());
    Queue& queue = context.queue(0);
    const std::size_t n = 37;
    std::vector<std::uint32_t> keys(n), index(n);
    for (std::size_t i = 0; i < n; ++i) keys[i] = std::uint32_t((i * 7919) % 10);
    std::iota(index.begin(), index.end(), 0u);
    if (algorithm == "sort_by_key") {
        std::vector<std::uint32_t> order = index;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
        Buffer<std::uint32_t> dkeys(context, keys), dvalues(context, index);
        SortByKey sort(context);
        sort(queue, dkeys, dvalues, n);
        return dvalues.read(queue) == order;
    }
    if (algorithm == "reduce_max" || algorithm == "reduce_min" || algorithm == "reduce_sum") {
        // Halves: every partial sum is exact in float, so the sum is too, in any order.
        std::vector<double> values(n);
        for (std::size_t i = 0; i < n; ++i) values[i] = double((i * 13) % 17) - 3.5;
        RealBuffer dvalues(context, Precision::float32, n);
        dvalues.write(queue, values);
        if (algorithm == "reduce_max")
            return reduce_max(queue, dvalues, n) == *std::max_element(values.begin(), values.end());
        if (algorithm == "reduce_min")
            return reduce_min(queue, dvalues, n) == *std::min_element(values.begin(), values.end());
        return reduce_sum(queue, dvalues, n) == std::accumulate(values.begin(), values.end(), 0.0);
    }
    if (algorithm == "exclusive_scan") {
        std::vector<std::uint32_t> sums(n);
        std::exclusive_scan(keys.begin(), keys.end(), sums.begin(), 0u);
        Buffer<std::uint32_t> din(context, keys), dout(context, n);
        exclusive_scan(queue, din, dout, n);
        return dout.read(queue) == sums;
    }
    if (algorithm == "cell_list") {
        // Particles on a 2-D lattice inside the unit square, none on a cell boundary.
        std::vector<double> positions(2 * n);
        for (std::size_t i = 0; i < n; ++i) {
            positions[i] = (double(i % 6) + 0.5) / 6.0;
            positions[n + i] = (double(i / 6) + 0.5) / 7.0;
        }
        RealBuffer dpositions(context, Precision::float32, 2 * n);
        dpositions.write(queue, positions);
        CellList cells(context, Precision::float32, CellGrid::covering(2, {0, 0, 0}, {1, 1, 0}, 0.3));
        cells.build(queue, dpositions, n, n);
        const auto order = cells.order().read(queue);
        std::vector<std::uint32_t> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        return sorted == index;  // a permutation of the particles
    }
    std::fprintf(stderr, "partcl_user_program: unknown algorithm '%s'\n", algorithm.c_str());
    return false;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: partcl_user_program "
                     "sort_by_key|reduce_max|reduce_min|reduce_sum|exclusive_scan|cell_list\n");
        return 2;
    }
    try {
        if (!run(argv[1])) {
            std::fprintf(stderr, "partcl_user_program: %s gave a wrong result\n", argv[1]);
            return 1;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "partcl_user_program: %s\n", e.what());
        return 1;
    }
    std::printf("%s: right\n", argv[1]);
    return 0;
}
