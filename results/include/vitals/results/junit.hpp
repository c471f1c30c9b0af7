// JUnit XML, in the layout of Ant's junit task that Jenkins, GitLab, Azure Pipelines and
// the GitHub Actions test reporters read: a <testcase> per benchmark case, so that CI
// shows failed, skipped and regressed cases as tests.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "vitals/ab.hpp"
#include "vitals/results.hpp"
#include "vitals/results/comparison.hpp"

namespace vitals {

enum class JUnitOutcome { passed, failed, skipped };

struct JUnitCase {
    std::string name;       // the case's name
    std::string classname;  // groups the cases: "<program>.<command>"
    double seconds = 0;
    JUnitOutcome outcome = JUnitOutcome::passed;
    std::string type;       // failed: the failure's type attribute (a verdict, "error")
    std::string message;    // failed: the failure's one-line message; skipped: why
    std::string details;    // failed: the body of <failure>; passed: <system-out>, if any
};

struct JUnitSuite {
    std::string name;
    std::vector<JUnitCase> cases;
};

// One <testsuites> document holding each suite: its counts (tests, failures, skipped;
// errors is always 0, a failed case being a failure), time (the sum of its cases'), and
// its testcases. Every name and message is escaped for XML 1.0 (escape_xml), so any
// case name gives a well-formed file.
std::string render_junit(const std::vector<JUnitSuite>& suites);

// A run's cases: failed with the error, skipped with the reason, else passed; time is the
// case's measured time (the sum of its timed blocks; one call for run --dry-run), and
// <system-out> says its median per call.
JUnitSuite junit_of_run(const std::vector<CaseResult>& results, const std::string& classname);

// Whether a verdict fails the gate (run's --fail-on).
using VerdictFails = std::function<bool(stats::Verdict)>;

// A comparison's cases: a testcase per case compared, failed when `fails` its verdict,
// with the verdict, the change, the medians' 95% intervals and the p-value in the
// message; cases in both runs but not compared are skipped with why.
JUnitSuite junit_of_comparison(const Comparison& comparison, const VerdictFails& fails, const std::string& classname);

// An interleaved A/B: a testcase per alternative after the first (each is compared
// with the first), failed when `fails` its verdict, with the ratio's interval; time is
// its share of the rounds' block times.
JUnitSuite junit_of_ab(const AbResult& result, const VerdictFails& fails, const std::string& classname);

}  // namespace vitals
