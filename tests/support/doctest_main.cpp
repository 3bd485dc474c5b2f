// The doctest runner shared by every test executable. Several meson tests
// run one program each with a filter (--source-file=...: the cases of one
// source file), so a run in which no case passed the filters fails: a
// filter that no longer matches must not pass as green. doctest counts the
// other files' cases as skipped; what this run left out of its own files (a
// --test-case-exclude) it prints as "[floe] cases left out: N", which
// tests/support/count_results.py reports instead.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <set>
#include <string>
#include <vector>

namespace {

// How many cases passed the filters; -1 until a run (not a query such as
// --list-test-cases) has ended.
long cases_run = -1;
// The files of the cases run, and of the cases the filters left out.
std::set<std::string> files_run;
std::vector<std::string> files_left_out;

struct count_cases : doctest::IReporter {
  explicit count_cases(doctest::ContextOptions const&) {}
  void report_query(doctest::QueryData const&) override {}
  void test_run_start() override {}
  void test_run_end(doctest::TestRunStats const& stats) override {
    cases_run = stats.numTestCasesPassingFilters;
  }
  void test_case_start(doctest::TestCaseData const& tc) override { files_run.insert(tc.m_file.c_str()); }
  void test_case_reenter(doctest::TestCaseData const&) override {}
  void test_case_end(doctest::CurrentTestCaseStats const&) override {}
  void test_case_exception(doctest::TestCaseException const&) override {}
  void subcase_start(doctest::SubcaseSignature const&) override {}
  void subcase_end() override {}
  void log_assert(doctest::AssertData const&) override {}
  void log_message(doctest::MessageData const&) override {}
  void test_case_skipped(doctest::TestCaseData const& tc) override {
    files_left_out.emplace_back(tc.m_file.c_str());
  }
};

REGISTER_LISTENER("floe-count-cases", 1, count_cases);

}  // namespace

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  int const status = context.run();
  if (context.shouldExit() || cases_run < 0) return status;
  if (cases_run == 0) {
    std::fputs("doctest: no test case passed the filters given; a test that runs nothing fails\n",
               stderr);
    return 1;
  }
  long left_out = 0;
  for (auto const& f : files_left_out) left_out += files_run.count(f);
  std::printf("[floe] cases left out: %ld\n", left_out);
  return status;
}
