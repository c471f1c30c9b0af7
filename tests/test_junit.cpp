// JUnit XML (results/src/reporters/junit_reporter.cpp) against golden text: the layout CI
// readers expect, the outcomes, and escaping that keeps any name well-formed XML 1.0.
#include <gtest/gtest.h>

#include "vitals/results/junit.hpp"
#include "vitals/results/markup.hpp"

namespace {

vitals::CaseResult measured(std::string name, std::int64_t calls, std::vector<double> blocks) {
    return {.name = std::move(name), .measurement = vitals::Measurement(calls, std::move(blocks), {})};
}

}  // namespace

TEST(JUnit, EscapesWhatXmlForbidsAndShowsIt) {
    EXPECT_EQ(vitals::escape_xml(R"(<a & "b" 'c'>)"), "&lt;a &amp; &quot;b&quot; &#39;c&#39;&gt;");
    // Controls (tab and newline too: an attribute would fold them), bytes that are no
    // UTF-8, and U+FFFE/U+FFFF, which XML 1.0 refuses: shown as text.
    EXPECT_EQ(vitals::escape_xml("a\tb\nc\x01\x7f"), R"(a\x09b\x0ac\x01\x7f)");
    EXPECT_EQ(vitals::escape_xml("x\xff\xc3(y"), R"(x\xff\xc3(y)");
    EXPECT_EQ(vitals::escape_xml("\xef\xbf\xbe\xef\xbf\xbf\xef\xbf\xbd"), "\\ufffe\\uffff\xef\xbf\xbd");
    EXPECT_EQ(vitals::escape_xml("caf\xc3\xa9 \xe2\x80\xae"), "caf\xc3\xa9 \\u202e");
}

TEST(JUnit, ARunIsATestcasePerCaseWithItsOutcome) {
    const std::vector<vitals::CaseResult> results = {
        measured("add/ok", 10, {0.001, 0.003, 0.002}),
        {.name = R"(x<&"'>/fail)", .error = "boom <b> & \"q\"\nline two"},
        {.name = "skip\x01me\xff\xef\xbf\xbf", .skipped = "no GPU"},
    };
    EXPECT_EQ(vitals::render_junit({vitals::junit_of_run(results, "prog.run")}),
              R"xml(<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="prog.run" tests="3" failures="1" skipped="1" errors="0" time="0.006000">
    <testcase classname="prog.run" name="add/ok" time="0.006000">
      <system-out>median 200.00 us per call (3 blocks of 10 calls)</system-out>
    </testcase>
    <testcase classname="prog.run" name="x&lt;&amp;&quot;&#39;&gt;/fail" time="0.000000">
      <failure message="boom &lt;b&gt; &amp; &quot;q&quot;\x0aline two" type="error">boom &lt;b&gt; &amp; &quot;q&quot;
line two</failure>
    </testcase>
    <testcase classname="prog.run" name="skip\x01me\xff\uffff" time="0.000000">
      <skipped message="no GPU"/>
    </testcase>
  </testsuite>
</testsuites>
)xml");
}

TEST(JUnit, AComparisonFailsTheVerdictsNamedAndSaysWhy) {
    vitals::Comparison comparison;
    comparison.before_name = "before.json";
    comparison.after_name = "after.json";
    comparison.cases.push_back({.name = "k/slow",
                                .change = {.before_median = 1e-6, .after_median = 1.1e-6, .change = 0.1, .p_value = 0.0001,
                                           .verdict = vitals::stats::Verdict::slower},
                                .before_interval = std::pair{0.99e-6, 1.01e-6},
                                .after_interval = std::pair{1.08e-6, 1.12e-6}});
    comparison.cases.push_back({.name = "k/same",
                                .change = {.before_median = 1e-6, .after_median = 1.001e-6, .change = 0.001, .p_value = 0.5,
                                           .verdict = vitals::stats::Verdict::same}});
    comparison.not_compared.emplace_back("k/gone", "after, skipped: no GPU");
    const auto slower = [](vitals::stats::Verdict v) { return v == vitals::stats::Verdict::slower; };
    EXPECT_EQ(vitals::render_junit({vitals::junit_of_comparison(comparison, slower, "prog.compare")}),
              R"xml(<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="prog.compare (before.json -&gt; after.json)" tests="3" failures="1" skipped="1" errors="0" time="0.000000">
    <testcase classname="prog.compare" name="k/slow" time="0.000000">
      <failure message="slower: +10.00% (1.00 us [990.00 ns, 1.01 us] -&gt; 1.10 us [1.08 us, 1.12 us], medians with their 95% intervals; p = 0.0001, alpha 0.05, on per-block times)" type="slower">slower: +10.00% (1.00 us [990.00 ns, 1.01 us] -&gt; 1.10 us [1.08 us, 1.12 us], medians with their 95% intervals; p = 0.0001, alpha 0.05, on per-block times)
before: before.json
after: after.json
same means: not significant at alpha 0.05 (two-sided Mann-Whitney U test on per-block times), or a change under 1.0%</failure>
    </testcase>
    <testcase classname="prog.compare" name="k/same" time="0.000000">
      <system-out>same: +0.10% (1.00 us -&gt; 1.00 us; p = 0.5000, alpha 0.05, on per-block times)</system-out>
    </testcase>
    <testcase classname="prog.compare" name="k/gone" time="0.000000">
      <skipped message="not compared: after, skipped: no GPU"/>
    </testcase>
  </testsuite>
</testsuites>
)xml");
    // Without --fail-on nothing fails; the verdict is still said.
    const std::string ungated = vitals::render_junit({vitals::junit_of_comparison(comparison, {}, "prog.compare")});
    EXPECT_EQ(ungated.find("<failure"), std::string::npos) << ungated;
    EXPECT_NE(ungated.find("failures=\"0\""), std::string::npos) << ungated;
    EXPECT_NE(ungated.find("<system-out>slower: +10.00%"), std::string::npos) << ungated;
}

TEST(JUnit, AnAbIsATestcasePerAlternativeAfterTheFirst) {
    vitals::AbResult result;
    result.alternatives.push_back({.name = "a/before", .median = 1e-6});
    result.alternatives.push_back({.name = "a/after",
                                   .median = 1.05e-6,
                                   .ratio = 1.05,
                                   .ratio_interval = std::pair{1.03, 1.07},
                                   .p_value = 0.002,
                                   .verdict = vitals::stats::Verdict::slower});
    result.rounds = {{.block_seconds = {0.01, 0.0105}}, {.block_seconds = {0.01, 0.0105}, .reversed = true}};
    result.stopped_by = vitals::AbStop::precision;
    const auto changed = [](vitals::stats::Verdict v) { return v != vitals::stats::Verdict::same; };
    EXPECT_EQ(vitals::render_junit({vitals::junit_of_ab(result, changed, "prog.ab")}),
              R"xml(<?xml version="1.0" encoding="UTF-8"?>
<testsuites>
  <testsuite name="prog.ab" tests="1" failures="1" skipped="0" errors="0" time="0.021000">
    <testcase classname="prog.ab" name="a/after" time="0.021000">
      <failure message="slower: +5.00% against a/before (ratio 1.0500, 95% interval [1.0300, 1.0700]; p = 0.0020; 1.05 us vs 1.00 us per call)" type="slower">slower: +5.00% against a/before (ratio 1.0500, 95% interval [1.0300, 1.0700]; p = 0.0020; 1.05 us vs 1.00 us per call)
alpha 0.05, noise floor 1.0%; stopped by precision</failure>
    </testcase>
  </testsuite>
</testsuites>
)xml");
}

TEST(JUnit, AnEmptySuiteIsStillADocument) {
    EXPECT_EQ(vitals::render_junit({vitals::JUnitSuite{.name = "prog.run", .cases = {}}}),
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
              "  <testsuite name=\"prog.run\" tests=\"0\" failures=\"0\" skipped=\"0\" errors=\"0\" time=\"0.000000\"/>\n"
              "</testsuites>\n");
}
