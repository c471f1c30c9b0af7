// Honest reports: aggregates-only cases are `untested` in every format and for
// --fail-on, names and messages from files are escaped for each target, and option
// numbers read alike in every locale.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "../runner/src/command.hpp"
#include "../runner/src/flags.hpp"
#include "vitals/results/comparison.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/results/reporters.hpp"
#include "vitals/results/trace_diff.hpp"
#include "decimal_comma_locale.hpp"
#include "vitals/results.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using vitals::CaseSamples;
using vitals::Comparison;
using vitals::NamedResults;

namespace {

// One case of an aggregates-only file: one median of `repetitions`.
CaseSamples aggregated(const std::string& name, double median, std::size_t repetitions = 10) {
    CaseSamples c{.name = name, .seconds = {median}, .process = {0}};
    c.aggregate_of = repetitions;
    return c;
}

CaseSamples blocks(const std::string& name, double each, std::size_t n = 20) {
    CaseSamples c{.name = name};
    for (std::size_t i = 0; i < n; ++i) {
        c.seconds.push_back(each * (1 + 0.001 * static_cast<double>(i)));
        c.process.push_back(0);
    }
    return c;
}

// A real 2x slowdown read from aggregates only, beside one tested on blocks.
std::vector<NamedResults> aggregates_runs() {
    return {{"before.json", {aggregated("agg", 1e-3), blocks("full", 1e-3)}},
            {"after.json", {aggregated("agg", 2e-3), blocks("full", 2e-3)}}};
}

Comparison compare(const std::vector<NamedResults>& runs) {
    return vitals::compare_cases(runs[0].first, runs[0].second, runs[1].first, runs[1].second, {});
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

}  // namespace

TEST(Untested, AnAggregatesOnlySlowdownIsUntestedNotSame) {
    const Comparison c = compare(aggregates_runs());
    ASSERT_EQ(c.cases.size(), 2u);
    EXPECT_EQ(c.find("agg")->change.verdict, vitals::stats::Verdict::untested);
    EXPECT_DOUBLE_EQ(c.find("agg")->change.change, 1.0);  // the direction is still shown
    EXPECT_EQ(c.find("full")->change.verdict, vitals::stats::Verdict::slower);
    EXPECT_EQ(vitals::cases_with_verdict(c, vitals::stats::Verdict::untested), std::vector<std::string>{"agg"});
    EXPECT_EQ(vitals::stats::verdict_name(vitals::stats::Verdict::untested), "untested");
}

TEST(Untested, OneAggregatedSideIsUntestedEvenAgainstManyBlocks) {
    // 1 value against 60: the U test could call this significant, but one median is no sample.
    const std::vector<NamedResults> runs = {{"b", {aggregated("x", 1e-3)}}, {"a", {blocks("x", 2e-3, 60)}}};
    EXPECT_EQ(compare(runs).find("x")->change.verdict, vitals::stats::Verdict::untested);
}

TEST(Untested, EveryFormatSaysUntested) {
    const std::vector<NamedResults> runs = aggregates_runs();
    const Comparison c = compare(runs);

    const std::string text = vitals::render_comparison_text(c);
    std::string agg_row;
    for (std::istringstream lines(text); std::getline(lines, agg_row);) {
        if (agg_row.rfind("agg ", 0) == 0) break;
    }
    EXPECT_NE(agg_row.find("+100.00%"), std::string::npos) << text;
    EXPECT_EQ(agg_row.substr(agg_row.size() - 8), "untested") << text;
    EXPECT_NE(text.find("verdict untested"), std::string::npos) << text;

    const json j = json::parse(vitals::render_comparison_json(c));
    EXPECT_EQ(j.at("cases").at(0).at("name"), "agg");
    EXPECT_EQ(j.at("cases").at(0).at("verdict"), "untested");
    EXPECT_TRUE(j.at("cases").at(0).at("p_value").is_null());
    EXPECT_EQ(j.at("cases").at(1).at("verdict"), "slower");
    EXPECT_EQ(j.at("untested_means"), vitals::kUntestedMeans);

    const std::string md = vitals::markdown_report(runs);
    EXPECT_NE(md.find("| `agg` | 1.00 ms | 2.00 ms | +100.00% | - | untested |"), std::string::npos) << md;
    EXPECT_NE(md.find("`untested`: no test was possible"), std::string::npos) << md;

    const std::string html = vitals::html_report(runs);
    EXPECT_NE(html.find(R"(<td>-</td><td style="color:#975a16;font-weight:600">untested</td>)"), std::string::npos) << html;
    EXPECT_NE(html.find("untested +100.00% (aggregates only: no test)"), std::string::npos);
    EXPECT_EQ(count(html, ">same<"), 0u);
}

// Cold caches on one side only: one warning names the cases and which side was cold.
TEST(CacheState, ColdAgainstWarmIsWarnedInTheReport) {
    CaseSamples cold_before = blocks("mask", 3e-4), warm_after = blocks("mask", 1e-4);
    cold_before.cold = true;
    CaseSamples both_cold_before = blocks("relu", 1e-5), both_cold_after = blocks("relu", 1e-5);
    both_cold_before.cold = both_cold_after.cold = true;
    const Comparison c = compare({{"b", {cold_before, both_cold_before}}, {"a", {warm_after, both_cold_after}}});
    ASSERT_EQ(c.warnings.size(), 1u);
    EXPECT_EQ(c.warnings[0],
              "1 case was measured with cold caches on one side and warm on the other: 'mask' (cold before, warm after); "
              "the change is mostly the caches', so measure both sides alike (with or without run --cold)");
    EXPECT_NE(vitals::render_comparison_text(c).find("warning: 1 case was measured with cold caches"), std::string::npos);
    // Alike on both sides: nothing to say.
    EXPECT_TRUE(compare({{"b", {both_cold_before}}, {"a", {both_cold_after}}}).warnings.empty());
    // Many cases: three named, the rest counted.
    std::vector<CaseSamples> before, after;
    for (const char* name : {"a", "b", "c", "d", "e"}) {
        before.push_back(blocks(name, 1e-4));
        after.push_back(blocks(name, 1e-4));
        after.back().cold = true;
    }
    const Comparison many = compare({{"b", before}, {"a", after}});
    ASSERT_EQ(many.warnings.size(), 1u);
    EXPECT_NE(many.warnings[0].find("5 cases were measured"), std::string::npos) << many.warnings[0];
    EXPECT_NE(many.warnings[0].find("'c' (warm before, cold after) and 2 more;"), std::string::npos) << many.warnings[0];
}

// Tested on processes, the report shows the median of the per-process medians and says so;
// on blocks, the median of all blocks. Uneven processes make the two differ (2 s and 1 s).
TEST(MediansShown, EachReportSaysWhichMedianItShows) {
    const auto uneven = [](const std::string& name, double scale) {
        CaseSamples c{.name = name};
        for (int i = 0; i < 5; ++i) c.seconds.push_back(1.0 * scale), c.process.push_back(0);
        c.seconds.push_back(2.0 * scale), c.process.push_back(1);
        c.seconds.push_back(3.0 * scale), c.process.push_back(2);
        return c;
    };
    const std::vector<NamedResults> runs = {{"b", {uneven("x", 1)}}, {"a", {uneven("x", 2)}}};
    const Comparison by_process = compare(runs);
    ASSERT_EQ(by_process.cases.size(), 1u);
    EXPECT_DOUBLE_EQ(by_process.cases[0].change.before_median, 2.0);
    EXPECT_DOUBLE_EQ(by_process.cases[0].change.after_median, 4.0);
    const std::string text = vitals::render_comparison_text(by_process);
    EXPECT_NE(text.find("before and after: the median of the per-process medians (a results file's median aggregate"),
              std::string::npos)
        << text;
    const std::string md = vitals::markdown_report(runs);
    EXPECT_NE(md.find("Before and after: the median of the per-process medians"), std::string::npos) << md;
    EXPECT_NE(md.find("| `x` | 2.00 s | 4.00 s |"), std::string::npos) << md;
    const std::string html = vitals::html_report(runs);
    EXPECT_NE(html.find("The table's before and after: the median of the per-process medians"), std::string::npos) << html;
    EXPECT_NE(html.find("thick line: median of all blocks"), std::string::npos) << html;

    const Comparison by_block = compare({{"b", {blocks("x", 1.0)}}, {"a", {blocks("x", 2.0)}}});
    EXPECT_NE(vitals::render_comparison_text(by_block).find("before and after: the median of all blocks\n"), std::string::npos)
        << vitals::render_comparison_text(by_block);
}

TEST(Escaping, TerminalShowsControlsAsVisibleEscapes) {
    using vitals::terminal_safe;
    EXPECT_EQ(terminal_safe("op\x1b[2J\r\nforged"), "op\\x1b[2J\\x0d\\x0aforged");
    EXPECT_EQ(terminal_safe("del\x7f"), "del\\x7f");
    EXPECT_EQ(terminal_safe("csi\xc2\x9b" "31m"), "csi\\u009b31m");          // C1 CSI, in UTF-8
    EXPECT_EQ(terminal_safe("rtl\xe2\x80\xae" "txt"), "rtl\\u202etxt");      // right-to-left override
    EXPECT_EQ(terminal_safe("stray\x9b"), "stray\\x9b");                     // no UTF-8: a byte
    EXPECT_EQ(terminal_safe("over\xc0\xaf"), "over\\xc0\\xaf");              // overlong '/'
    EXPECT_EQ(terminal_safe("cut\xe2\x80"), "cut\\xe2\\x80");                // truncated sequence
    EXPECT_EQ(terminal_safe("\xed\xa0\x80"), "\\xed\\xa0\\x80");             // a surrogate
    EXPECT_EQ(terminal_safe("1.5 \xc2\xb5s caf\xc3\xa9 \xf0\x9f\x93\x88 a|b"), "1.5 \xc2\xb5s caf\xc3\xa9 \xf0\x9f\x93\x88 a|b");
}

TEST(Escaping, MarkdownProseCannotBreakARowOrCarryHtml) {
    EXPECT_EQ(vitals::escape_markdown("a|b\n<script>&`x`*_[l](u)~\\"),
              "a\\|b\\x0a&lt;script&gt;&amp;\\`x\\`\\*\\_\\[l\\](u)\\~\\\\");
    EXPECT_EQ(vitals::markdown_code("n|a\nme"), "`n\\|a\\x0ame`");
    EXPECT_EQ(vitals::markdown_code("a`b"), "``a`b``");
}

TEST(Escaping, HtmlEscapesMarkupAndControls) {
    EXPECT_EQ(vitals::escape_html("<a href='x' title=\"y\">&\x1b"), "&lt;a href=&#39;x&#39; title=&quot;y&quot;&gt;&amp;\\x1b");
}

// An error_message with a newline, pipes and HTML keeps the markdown table one row a
// case, and no tag of it reaches the page.
TEST(Escaping, AFailedCasesMessageStaysInItsMarkdownRow) {
    CaseSamples failed{.name = "broken"};
    failed.not_measured = "failed: boom\n| forged | row |\n<img src=x onerror=alert(1)>";
    const std::vector<NamedResults> runs = {{"b.json", {blocks("ok", 1e-3), failed}}, {"a.json", {blocks("ok", 1e-3), failed}}};
    const std::string md = vitals::markdown_report(runs);
    std::size_t rows = 0;
    std::istringstream lines(md);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("|", 0) != 0) continue;
        ++rows;
        std::size_t cells = 0;  // unescaped pipes
        for (std::size_t i = 0; i < line.size(); ++i) cells += line[i] == '|' && (i == 0 || line[i - 1] != '\\') ? 1 : 0;
        EXPECT_EQ(cells, 7u) << line;
    }
    EXPECT_EQ(rows, 5u) << md;  // header, rule, ok, broken, geomean
    EXPECT_EQ(md.find("<img"), std::string::npos) << md;
    EXPECT_NE(md.find("boom\\x0a\\| forged \\| row \\|\\x0a&lt;img src=x onerror=alert(1)&gt;"), std::string::npos) << md;
    const std::string html = vitals::html_report(runs);
    EXPECT_EQ(html.find("<img"), std::string::npos);
    EXPECT_NE(html.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
}

TEST(Escaping, TheTerminalReportShowsNamesAndReasonsEscaped) {
    CaseSamples failed{.name = "bad\x1b]0;title\x07"};
    failed.not_measured = "failed: line one\n\x1b[1Aforged";
    const std::vector<NamedResults> runs = {{"b", {blocks("c\x1b[31m", 1e-3), failed}}, {"a", {blocks("c\x1b[31m", 1e-3), failed}}};
    const std::string text = vitals::render_comparison_text(compare(runs));
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
    EXPECT_NE(text.find("c\\x1b[31m "), std::string::npos) << text;
    EXPECT_NE(text.find("not compared: bad\\x1b]0;title\\x07 (before, failed: line one\\x0a\\x1b[1Aforged;"),
              std::string::npos)
        << text;
}

// `vitals compare` of two traces: operator names from the files are escaped, and the
// column stays as wide as the escaped name.
TEST(Escaping, TraceDiffOperatorNamesAreEscaped) {
    const fs::path dir = fs::path(::testing::TempDir()) / ("vitals-trace-names-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const auto write = [&](const std::string& file, int dur) {
        std::ofstream(dir / file) << R"({"traceEvents": [)"
                                  << R"({"ph": "X", "cat": "cpu_op", "name": "op\u001b[2J\nforged line", "pid": 1, "tid": 1, "ts": 10, "dur": )"
                                  << dur << R"(},)"
                                  << R"({"ph": "X", "cat": "cpu_op", "name": "relu", "pid": 1, "tid": 1, "ts": 100, "dur": 5}]})";
        return (dir / file).string();
    };
    const std::string before = write("before.json", 10), after = write("after.json", 30);
    ASSERT_TRUE(vitals::looks_like_trace(before));
    const std::string report = vitals::profile_diff_report(before, after);
    fs::remove_all(dir);
    EXPECT_EQ(report.find('\x1b'), std::string::npos) << report;
    EXPECT_EQ(report.find("\nforged"), std::string::npos) << report;
    const std::string shown = "op\\x1b[2J\\x0aforged line";
    EXPECT_NE(report.find(shown + "  "), std::string::npos) << report;
    EXPECT_NE(report.find("\nrelu" + std::string(shown.size() - 4, ' ') + "  "), std::string::npos) << report;
}

// --alpha and --noise-floor read "0.01" in a program switched to a decimal-comma locale
// (CLI11 alone would stop at the '.'), and refuse "0,01" saying how to write it.
TEST(LocaleFreeNumbers, ReportFlagsReadTheSameUnderADecimalCommaLocale) {
    const auto parse = [](std::vector<std::string> args) {
        CLI::App app;
        vitals::cli::ReportFlags flags;
        flags.declare(app);
        std::reverse(args.begin(), args.end());  // CLI11 takes them last first
        app.parse(args);
        return flags;
    };
    const vitals::testing::DecimalCommaLocale locale;
    if (!locale.unavailable.empty()) GTEST_SKIP() << locale.unavailable;
    const vitals::cli::ReportFlags flags = parse({"--alpha", "0.01", "--noise-floor", "2.5"});
    EXPECT_EQ(flags.options().alpha, 0.01);
    EXPECT_EQ(flags.options().noise_floor, 0.025);
    try {
        (void)parse({"--alpha", "0,01"});
        FAIL() << "0,01 was read";
    } catch (const CLI::ValidationError& e) {
        EXPECT_NE(std::string(e.what()).find("got '0,01' (write the decimal point as '.', in every locale)"), std::string::npos)
            << e.what();
    }
}

TEST(LocaleFreeNumbers, ValidatorsReadDecimalPointsAndRefuseTheRest) {
    const auto check = [](const CLI::Validator& v, std::string input) { return v(input); };
    EXPECT_EQ(check(vitals::cli::positive_seconds(), "0.5"), "");
    EXPECT_EQ(check(vitals::cli::positive_seconds(), "+1e-3"), "");
    EXPECT_NE(check(vitals::cli::positive_seconds(), "0"), "");
    EXPECT_NE(check(vitals::cli::positive_seconds(), " 0.5"), "");
    EXPECT_NE(check(vitals::cli::positive_seconds(), "inf"), "");
    EXPECT_NE(check(vitals::cli::open_unit_interval(), "nan"), "");
    EXPECT_NE(check(vitals::cli::finite_non_negative(), "0x10"), "");
    // As a transform, the value is written back in a form strtold reads exactly anywhere.
    std::string input = "0.1";
    EXPECT_EQ(vitals::cli::open_unit_interval().operator()(input), "");
    EXPECT_EQ(std::strtod(input.c_str(), nullptr), 0.1) << input;
    EXPECT_EQ(input.find('.'), std::string::npos) << input;
}

namespace {

struct Outcome {
    int exit_code;
    std::string out, err;
};

class FailOn : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::path(::testing::TempDir()) / ("vitals-fail-on-" + std::to_string(::getpid()) + "-" +
                                                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::create_directories(dir_);
        // An aggregates-only pair (Google Benchmark's --benchmark_report_aggregates_only)
        // with a 2x slowdown, and a pair of every repetition with the same slowdown.
        const auto aggregates = [&](const std::string& file, double ns) {
            std::ofstream(dir_ / file) << R"({"benchmarks": [{"name": "agg_median", "run_name": "agg", "run_type": "aggregate", )"
                                       << R"("aggregate_name": "median", "repetitions": 10, "iterations": 10, "real_time": )" << ns
                                       << R"(, "cpu_time": 1, "time_unit": "ns"}]})";
        };
        const auto repetitions = [&](const std::string& file, double ns) {
            std::ofstream out(dir_ / file);
            out << R"({"benchmarks": [)";
            for (int i = 0; i < 20; ++i) {
                out << (i ? "," : "") << R"({"name": "full", "run_type": "iteration", "iterations": 1, "real_time": )"
                    << ns * (1 + 0.001 * i) << R"(, "cpu_time": 1, "time_unit": "ns"})";
            }
            out << "]}";
        };
        aggregates("agg_before.json", 100);
        aggregates("agg_after.json", 200);
        repetitions("full_before.json", 100);
        repetitions("full_after.json", 200);
    }
    void TearDown() override { fs::remove_all(dir_); }

    Outcome run_vitals(const std::string& args) {
        const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
        const std::string command = "cd '" + dir_.string() + "' && " + VITALS_BINARY_DIR + "/bin/vitals " + args + " >" +
                                    out.string() + " 2>" + err.string() + " </dev/null";
        const int status = std::system(command.c_str());
        EXPECT_TRUE(WIFEXITED(status)) << command;
        const auto slurp = [](const fs::path& p) {
            std::ostringstream s;
            s << std::ifstream(p).rdbuf();
            return s.str();
        };
        return {WEXITSTATUS(status), slurp(out), slurp(err)};
    }

    fs::path dir_;
};

}  // namespace

TEST_F(FailOn, SlowerDoesNotFailOnUntestedUnlessNamed) {
    Outcome r = run_vitals("compare agg_before.json agg_after.json");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("+100.00%          -  untested"), std::string::npos) << r.out;
    r = run_vitals("compare agg_before.json agg_after.json --fail-on slower");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    r = run_vitals("compare agg_before.json agg_after.json --fail-on slower,untested");
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_EQ(r.err, "vitals: --fail-on untested: 1 case untested: agg\n");
    r = run_vitals("compare agg_before.json agg_after.json --fail-on slower --fail-on untested");
    EXPECT_EQ(r.exit_code, 3) << r.err;
}

TEST_F(FailOn, FailsOnTheNamedVerdictsOnly) {
    Outcome r = run_vitals("compare full_before.json full_after.json --fail-on slower --json cmp.json");
    EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
    EXPECT_EQ(r.err, "vitals: --fail-on slower: 1 case slower: full\n");
    EXPECT_NE(r.out.find("slower"), std::string::npos);  // the table is printed all the same
    EXPECT_TRUE(fs::exists(dir_ / "cmp.json"));          // and every output written
    r = run_vitals("compare full_before.json full_after.json --fail-on faster,untested");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    r = run_vitals("compare full_after.json full_before.json --fail-on faster");
    EXPECT_EQ(r.exit_code, 3) << r.err;
    // changed: either direction.
    EXPECT_EQ(run_vitals("compare full_before.json full_after.json --fail-on changed").exit_code, 3);
    EXPECT_EQ(run_vitals("compare full_after.json full_before.json --fail-on changed").exit_code, 3);
    EXPECT_EQ(run_vitals("compare full_before.json full_before.json --fail-on changed").exit_code, 0);
}

TEST_F(FailOn, ReportGivesTheSameGateOnceItsPagesAreWritten) {
    Outcome r = run_vitals("report full_before.json full_after.json --markdown out.md --fail-on slower");
    EXPECT_EQ(r.exit_code, 3) << r.err;
    EXPECT_EQ(r.err, "vitals: --fail-on slower: 1 case slower: full\n");
    EXPECT_TRUE(fs::exists(dir_ / "out.md"));
    EXPECT_EQ(run_vitals("report full_before.json full_after.json --markdown out.md --fail-on faster").exit_code, 0);
    r = run_vitals("report full_before.json --markdown out.md --fail-on slower");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("--fail-on needs two files"), std::string::npos) << r.err;
}

TEST_F(FailOn, CasesInOneFileOnlyAreAddedOrRemovedAndTheCommandSucceeds) {
    const auto write = [&](const std::string& file, const std::string& name, double ns) {
        std::ofstream out(dir_ / file);
        out << R"({"benchmarks": [)";
        for (int i = 0; i < 20; ++i) {
            out << (i ? "," : "") << R"({"name": ")" << name << R"(", "run_type": "iteration", "iterations": 1, "real_time": )"
                << ns * (1 + 0.001 * i) << R"(, "cpu_time": 1, "time_unit": "ns"})";
        }
        out << "]}";
    };
    write("before.json", "mask/cpu-before", 1000);
    write("after.json", "mask/cpu-after", 100);
    Outcome r = run_vitals("compare before.json after.json --fail-on changed");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("only in before.json (removed): mask/cpu-before"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("only in after.json (added): mask/cpu-after"), std::string::npos) << r.out;

    // Paired by name, or by a wildcard: one row, named after both, with its verdict.
    for (const std::string pair : {"'mask/cpu-before=mask/cpu-after'", "'*-before=*-after'"}) {
        r = run_vitals("compare before.json after.json --pair " + pair + " --json cmp.json --fail-on faster");
        EXPECT_EQ(r.exit_code, 3) << pair << r.err;
        EXPECT_NE(r.out.find("mask/cpu-before -> mask/cpu-after"), std::string::npos) << r.out;
        EXPECT_EQ(r.out.find("(removed)"), std::string::npos) << r.out;
        EXPECT_EQ(r.err, "vitals: --fail-on faster: 1 case faster: mask/cpu-before -> mask/cpu-after\n");
    }
    // One file holding both variants, compared with itself.
    {
        std::ofstream out(dir_ / "both.json");
        out << R"({"benchmarks": [)";
        for (int i = 0; i < 20; ++i) {
            out << (i ? "," : "") << R"({"name": "b-before", "run_type": "iteration", "iterations": 1, "real_time": )"
                << 100 * (1 + 0.001 * i) << R"(, "cpu_time": 1, "time_unit": "ns"},)"
                << R"({"name": "b-after", "run_type": "iteration", "iterations": 1, "real_time": )" << 300 * (1 + 0.001 * i)
                << R"(, "cpu_time": 1, "time_unit": "ns"})";
        }
        out << "]}";
    }
    r = run_vitals("compare both.json both.json --pair '*-before=*-after'");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("b-before -> b-after"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("slower"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("(added)"), std::string::npos) << r.out;
}

TEST_F(FailOn, APairNamingAnAbsentCaseIsRefusedWithNearMatches) {
    Outcome r = run_vitals("compare full_before.json full_after.json --pair 'ful=full'");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("the before file has no case named 'ful'; near matches: 'full'"), std::string::npos) << r.err;
    r = run_vitals("compare full_before.json full_after.json --pair 'full=nothing'");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("the after file has no case named 'nothing'; it holds 'full'"), std::string::npos) << r.err;
    r = run_vitals("compare full_before.json full_after.json --pair 'full'");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("BEFORE_CASE=AFTER_CASE"), std::string::npos) << r.err;
    r = run_vitals("compare full_before.json full_after.json --pair '*x=*'");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("no case of the before file matches '*x'"), std::string::npos) << r.err;
    r = run_vitals("compare full_before.json full_after.json --pair '*=full'");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("as many '*'"), std::string::npos) << r.err;
    r = run_vitals("compare full_before.json full_after.json --pair full=full --pair 'f*=f*'");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find("'full' is paired twice"), std::string::npos) << r.err;
}

TEST_F(FailOn, AnUnknownVerdictIsAUsageErrorNamingTheChoices) {
    const Outcome r = run_vitals("compare full_before.json full_after.json --fail-on same");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err.rfind("vitals: error: ", 0), 0u) << r.err;
    EXPECT_NE(r.err.find("--fail-on"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("slower"), std::string::npos) << r.err;
    const Outcome help = run_vitals("compare --help");
    EXPECT_NE(help.out.find("--fail-on"), std::string::npos);
    EXPECT_NE(help.out.find("untested"), std::string::npos);
}
