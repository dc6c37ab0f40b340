// The test runner of partcl_tests. CTest runs one doctest suite per test (`-ts=SUITE`), so each
// CTest entry is its own process with its own environment (PARTCL_KERNEL_PATH, POCL_DEVICES).
// The shared test context goes before main returns: device objects released by static
// destructors meet drivers already tearing themselves down. Under mpirun (the `mpi` tests) MPI
// runs for the whole process, every rank runs the suites it is given, and a failed test case
// on any rank ends them all (RankFailure).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <iostream>
#include <string>

#include <partcl/dist/communicator.hpp>
#include <partcl/dist/environment.hpp>

#include "support.hpp"

namespace {

// Under mpirun, a rank whose test case fails (an exception, a REQUIRE) may leave it while the
// others wait in one of its collectives: every rank is ended at once, naming the test case,
// instead of hanging until CTest's timeout.
class RankFailure : public doctest::IReporter {
public:
    explicit RankFailure(const doctest::ContextOptions&) {}
    void report_query(const doctest::QueryData&) override {}
    void test_run_start() override {}
    void test_run_end(const doctest::TestRunStats&) override {}
    void test_case_start(const doctest::TestCaseData& data) override { name_ = data.m_name; }
    void test_case_reenter(const doctest::TestCaseData&) override {}
    void test_case_end(const doctest::CurrentTestCaseStats& stats) override {
        if (stats.testCaseSuccess || !partcl::dist::Environment::active() ||
            partcl::dist::Communicator::world().size() < 2)
            return;
        std::cout.flush();
        std::cerr.flush();
        partcl::dist::Environment::fail("test case \"" + name_ + "\" failed on this rank; ending every rank");
    }
    void test_case_exception(const doctest::TestCaseException&) override {}
    void subcase_start(const doctest::SubcaseSignature&) override {}
    void subcase_end() override {}
    void log_assert(const doctest::AssertData&) override {}
    void log_message(const doctest::MessageData&) override {}
    void test_case_skipped(const doctest::TestCaseData&) override {}

private:
    std::string name_;
};
REGISTER_LISTENER("rank_failure", 1, RankFailure);

} // namespace

int main(int argc, char** argv) {
    partcl::dist::Environment mpi(argc, argv);
    doctest::Context context(argc, argv);
    const int status = context.run();
    partcl_test::release_shared_objects();
    return status;
}
