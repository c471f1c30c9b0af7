// vitals history add|show|detect|check|export: runs kept in a database, followed across
// commits.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <re2/re2.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/accumulators/accumulators.hpp>
#include <boost/accumulators/statistics/rolling_mean.hpp>
#include <boost/accumulators/statistics/rolling_variance.hpp>
#include <boost/accumulators/statistics/stats.hpp>
#include <cmath>

#include "../command.hpp"
#include "../git.hpp"
#include "../flags.hpp"
#include "../output_flag.hpp"
#include "vitals/atomic_file.hpp"
#include "vitals/change_points.hpp"
#include "vitals/history.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/significance.hpp"
#include "vitals/stats.hpp"

namespace vitals::cli {
namespace {

using history::Series;

history::Store open_store(const std::string& db, history::Access access) {
    try {
        return history::Store(db, access);
    } catch (const history::HistoryError& e) {
        throw_history_error(e);
    }
}

// The series whose case matches `filter` (RE2, partial match).
std::vector<Series> matching(std::vector<Series> all, const std::optional<std::string>& filter) {
    if (!filter) return all;
    RE2::Options options;
    options.set_log_errors(false);
    const RE2 re(*filter, options);
    if (!re.ok()) throw UsageError(fmt::format("invalid case filter '{}': {}", *filter, re.error()));
    std::erase_if(all, [&](const Series& s) { return !RE2::PartialMatch(s.case_name, re); });
    return all;
}

std::vector<double> medians_of(const Series& s, std::size_t count) {
    std::vector<double> out;
    for (std::size_t i = 0; i < count && i < s.points.size(); ++i) out.push_back(s.points[i].median);
    return out;
}

// A commit as tables show it: its first 10 characters, made safe for a terminal (any
// writer of a shared history chose them).
std::string short_commit(const std::string& commit) { return terminal_safe(commit.size() > 10 ? commit.substr(0, 10) : commit); }

// The detector's options from the flags the subcommands share.
struct DetectFlags {
    double p_value = stats::ChangePointOptions{}.p_value;
    double min_step_percent = 0;
    void declare(CLI::App& app) {
        app.add_option("--p-value", p_value,
                       fmt::format("A change point's significance: its step's two-sided p-value below this (default {:g})",
                                   p_value))
            ->transform(open_unit_interval());
        app.add_option("--min-step", min_step_percent, "Report steps of at least this many percent only (default 0)")
            ->transform(finite_non_negative());
    }
    stats::ChangePointOptions options() const { return {.p_value = p_value, .min_step = min_step_percent / 100}; }
};

class HistoryCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.require_subcommand(1);
        add_ = app.add_subcommand("add", "Record results files as one run of a commit");
        add_->add_option("files", files_, "Results files (ours or Google Benchmark's JSON)")->required();
        add_->add_option("--commit", commit_, "The commit measured (default: git rev-parse HEAD here)");
        add_->add_option("--branch", branch_, "Its branch (default: git's current branch here)");
        add_->add_option("--time", time_, "The commit's time, ISO 8601 with a zone (default: git's commit time here)");
        add_->add_flag("--replace", replace_, "Replace this commit's earlier results for the same cases and machine");

        show_ = app.add_subcommand("show", "Per case, the medians by commit and the change points");
        show_->add_option("filter", filter_, "Cases matching this regex (RE2; default: all)");

        detect_ = app.add_subcommand("detect", "The change points of every case, machine and branch");
        detect_->add_option("filter", filter_, "Cases matching this regex (RE2; default: all)");

        check_ = app.add_subcommand("check", "Is this commit a regression against the history of its branch?");
        check_->add_option("--commit", commit_, "The commit to check (default: git rev-parse HEAD here)");
        check_->add_option("--lookback", lookback_, "Compare with at most this many earlier commits (default 30)")
            ->transform(decimal_integer(2, 100000));
        markdown_.declare(*check_, "--markdown", "Also write the verdicts as markdown (e.g. - for a CI summary)");
        report_.declare(*check_);
        fail_on_.declare(*check_);

        report_cmd_ = app.add_subcommand("report", "A trend plot per case: an HTML page");
        report_cmd_->add_option("filter", filter_, "Cases matching this regex (RE2; default: all)");
        html_.declare(*report_cmd_, "--html", "Write the page here")->required();

        export_ = app.add_subcommand("export", "Every result as CSV, one row per case, machine, branch and commit");
        csv_.declare(*export_, "--csv", "Write the CSV here (- for standard output)")->required();

        for (CLI::App* sub : {add_, show_, detect_, check_, report_cmd_, export_}) {
            sub->add_option("--db", db_, "The history: a SQLite file (created when absent) or postgresql://user@host/db")
                ->required();
            if (sub != add_) {
                sub->add_option("--machine", machine_, "One machine's series: its fingerprint or host name");
                if (sub != check_) sub->add_option("--branch", branch_, "One branch's series");
            }
        }
        for (CLI::App* sub : {show_, detect_, check_, report_cmd_}) detect_flags_.declare(*sub);
    }

    void run(const CommandContext&) override {
        if (add_->parsed()) return add();
        if (show_->parsed()) return show();
        if (detect_->parsed()) return detect();
        if (check_->parsed()) return check();
        if (report_cmd_->parsed()) return report_html();
        if (export_->parsed()) return export_csv();
    }

private:
    void add() {
        const auto [commit, branch, time] = git_revision(commit_, branch_, time_);
        if (!history::utc_time(time)) {
            throw UsageError(fmt::format("--time '{}' is no ISO 8601 time with a zone; e.g. 2026-12-04T18:00:00Z", terminal_safe(time)));
        }
        // Every file read before the database is touched: a bad file writes nothing.
        std::vector<std::pair<std::string, ResultsFile>> files;
        for (const std::string& path : files_) {
            std::vector<std::string> warnings;
            ResultsFile file = read_results_file_or_usage_error(path, warnings);
            for (const std::string& w : warnings) fmt::print(stderr, "vitals: warning: {}\n", terminal_safe(w));
            files.emplace_back(path, std::move(file));
        }
        history::Store store = open_store(db_, history::Access::write);
        // Every file in one transaction: a refused file writes nothing of the others.
        std::vector<history::RunInfo> runs;
        for (auto& [path, file] : files) runs.push_back({commit, branch, time, history::machine_of_results(file), path});
        std::vector<history::Store::RunCases> to_add;
        for (std::size_t i = 0; i < files.size(); ++i) to_add.push_back({&runs[i], &files[i].second.cases});
        std::vector<std::size_t> recorded;
        try {
            recorded = store.add(to_add, replace_);
        } catch (const history::HistoryError& e) {
            throw_history_error(e);
        } catch (const ResultsFileError& e) {
            throw UsageError(e.what());
        }
        for (std::size_t i = 0; i < files.size(); ++i) {
            fmt::print("{}: {} case{} of commit {} ({}, {}) recorded in {}\n", terminal_safe(files[i].first), recorded[i],
                       recorded[i] == 1 ? "" : "s", short_commit(commit), terminal_safe(branch),
                       terminal_safe(runs[i].machine.fingerprint()), terminal_safe(store.shown_location()));
        }
    }

    std::vector<Series> read_series(bool with_blocks = false) {
        history::Store store = open_store(db_, history::Access::read);
        try {
            return matching(store.series({.machine = machine_, .branch = branch_, .with_blocks = with_blocks}), filter_);
        } catch (const history::HistoryError& e) {
            throw_history_error(e);
        }
    }

    std::vector<stats::ChangePoint> change_points(const Series& s) const {
        return stats::detect_change_points(medians_of(s, s.points.size()), detect_flags_.options());
    }

    void show() {
        const std::vector<Series> all = read_series();
        if (all.empty()) {
            fmt::print("no results{} in {}\n", filter_ ? " of cases matching '" + terminal_safe(*filter_) + "'" : "",
                       terminal_safe(history::shown_location(db_)));
        }
        for (const Series& s : all) {
            const std::vector<stats::ChangePoint> points = change_points(s);
            fmt::print("{}  [{}; branch {}]: {} commit{}\n", terminal_safe(s.title()), terminal_safe(s.machine),
                       terminal_safe(s.branch), s.points.size(), s.points.size() == 1 ? "" : "s");
            fmt::print("  {:<10}  {:<20}  {:>11}  {:>25}\n", "commit", "time (UTC)", "median", "interquartile range");
            for (std::size_t i = 0; i < s.points.size(); ++i) {
                const history::Point& p = s.points[i];
                std::string mark;
                for (const stats::ChangePoint& c : points) {
                    if (c.index == i) mark = fmt::format("  <- step {} (p {:.2g})", percent_change(c.step), c.p_value);
                }
                fmt::print("  {:<10}  {:<20}  {:>11}  {:>25}{}\n", short_commit(p.commit), terminal_safe(p.time), stats::format_seconds(p.median),
                           stats::format_seconds(p.p25) + " .. " + stats::format_seconds(p.p75), mark);
            }
        }
    }

    void detect() {
        const std::vector<Series> all = read_series();
        std::size_t found = 0;
        std::string table;
        for (const Series& s : all) {
            for (const stats::ChangePoint& c : change_points(s)) {
                const history::Point& at = s.points[c.index];
                table += fmt::format("{}  {}  {}  {}  {}  {:+.2f}%  {:.2g}\n", terminal_safe(s.title()), terminal_safe(s.machine),
                                     terminal_safe(s.branch), short_commit(at.commit), terminal_safe(at.time), c.step * 100, c.p_value);
                ++found;
            }
        }
        fmt::print("{} change point{} in {} series (E-divisive candidates, local step test at p < {:g}{})\n", found,
                   found == 1 ? "" : "s", all.size(), detect_flags_.p_value,
                   detect_flags_.min_step_percent > 0 ? fmt::format(", steps of {:g}% or more", detect_flags_.min_step_percent) : "");
        if (found > 0) fmt::print("case  machine  branch  commit  time  step  p-value\n{}", table);
    }

    struct Verdict {
        std::string case_name;
        double before = 0, after = 0, change = 0, p_value = 1;
        stats::Verdict verdict = stats::Verdict::same;
        std::string how;
    };

    void check() {
        const std::string commit = commit_ ? *commit_ : git_revision(std::nullopt, std::string(), std::string()).commit;
        const std::optional<OutputFile> markdown = markdown_.prepare({});
        history::Store store = open_store(db_, history::Access::read);
        std::vector<std::string> machines = store.machines_with(commit);
        if (machines.empty()) {
            throw UsageError(fmt::format("the history {} has no run of commit {}", terminal_safe(store.shown_location()),
                                         terminal_safe(commit)));
        }
        if (machine_) {
            std::erase_if(machines, [&](const std::string& m) { return m != *machine_ && m.rfind(*machine_ + ",", 0) != 0; });
            if (machines.empty()) {
                throw UsageError(fmt::format("commit {} has no run on machine '{}'", terminal_safe(commit), terminal_safe(*machine_)));
            }
        } else if (machines.size() > 1) {
            throw UsageError(fmt::format("commit {} ran on {} machines ({}); choose one with --machine", terminal_safe(commit),
                                         machines.size(), terminal_safe(fmt::format("{}", fmt::join(machines, "; ")))));
        }
        std::vector<Series> all;
        try {
            all = store.series({.machine = machines.front(), .with_blocks = true});
        } catch (const history::HistoryError& e) {
            throw_history_error(e);
        }
        // The commit's own branch: where its run was recorded.
        std::vector<Verdict> verdicts;
        std::string branch;
        for (const Series& s : all) {
            const auto at = std::find_if(s.points.begin(), s.points.end(), [&](const history::Point& p) { return p.commit == commit; });
            if (at == s.points.end()) continue;
            branch = s.branch;
            verdicts.push_back(check_case(s, static_cast<std::size_t>(at - s.points.begin())));
        }
        const ReportOptions report = report_.options();
        std::string text = fmt::format("commit {} on {}, branch {}: {} case{} against the commits before it (at most {}; "
                                       "two-sided Mann-Whitney U test, alpha {}, changes under {:.1f}% count as same)\n",
                                       short_commit(commit), terminal_safe(machines.front()), terminal_safe(branch),
                                       verdicts.size(), verdicts.size() == 1 ? "" : "s", lookback_, report.alpha,
                                       report.noise_floor * 100);
        std::string md = fmt::format("**{}** against its history ({}, branch {})\n\n| case | before | this commit | change | "
                                     "p-value | verdict | by |\n|---|---:|---:|---:|---:|---|---|\n",
                                     markdown_code(short_commit(commit)), escape_markdown(machines.front()),
                                     escape_markdown(branch));
        for (const Verdict& v : verdicts) {
            const std::string before = v.before > 0 ? stats::format_seconds(v.before) : "-";
            text += fmt::format("  {}  {}  {}  {}  {}  {}  ({})\n", terminal_safe(v.case_name), before,
                                stats::format_seconds(v.after), v.before > 0 ? percent_change(v.change) : "-",
                                fmt::format("{:.4f}", v.p_value), stats::verdict_name(v.verdict), v.how);
            md += fmt::format("| {} | {} | {} | {} | {:.4f} | {} | {} |\n", markdown_code(v.case_name), before,
                              stats::format_seconds(v.after), v.before > 0 ? percent_change(v.change) : "-", v.p_value,
                              stats::verdict_name(v.verdict), escape_markdown(v.how));
        }
        if (markdown) markdown->write(md);
        fmt::print("{}", text);
        std::fflush(stdout);
        std::vector<std::pair<std::string, stats::Verdict>> named;
        for (const Verdict& v : verdicts) named.emplace_back(v.case_name, v.verdict);
        fail_on_.check(named);
    }

    // One case at the commit's point: a change point there, else its run against the last
    // stable stretch before it (after the last change point, at most --lookback commits).
    Verdict check_case(const Series& s, std::size_t index) const {
        namespace acc = boost::accumulators;
        const ReportOptions report = report_.options();
        const history::Point& point = s.points[index];
        Verdict v{s.title(), 0, point.median, 0, 1, stats::Verdict::same, ""};
        const std::vector<stats::ChangePoint> all_points = change_points(s);
        for (const stats::ChangePoint& c : all_points) {
            if (c.index != index) continue;
            v.before = c.level_before;
            v.after = c.level_after;
            v.change = c.step;
            v.p_value = c.p_value;
            if (std::fabs(c.step) > report.noise_floor) v.verdict = c.step > 0 ? stats::Verdict::slower : stats::Verdict::faster;
            v.how = "a change point at this commit";
            return v;
        }
        std::size_t from = 0;
        for (const stats::ChangePoint& c : all_points) {
            if (c.index < index) from = std::max(from, c.index);
        }
        from = std::max(from, index > lookback_ ? index - lookback_ : 0);
        if (index - from < 2) {
            v.verdict = stats::Verdict::untested;
            v.how = index == 0 ? "no earlier commit" : "fewer than 2 earlier commits since the last change point";
            return v;
        }
        // The stretch's medians, through a rolling window the size of the lookback.
        acc::accumulator_set<double, acc::stats<acc::tag::rolling_mean, acc::tag::rolling_variance>> window(
            acc::tag::rolling_window::window_size = lookback_);
        std::vector<double> before;
        for (std::size_t i = from; i < index; ++i) {
            window(s.points[i].median);
            before.push_back(s.points[i].median);
        }
        const std::vector<double> after = point.processes >= kMinProcessesForCheck ? point.process_medians() : point.seconds;
        const stats::Change change = stats::test_change(before, after, report.alpha, report.noise_floor);
        v.before = change.before_median;
        v.after = change.after_median;
        v.change = change.change;
        v.p_value = change.p_value;
        v.verdict = change.verdict;
        v.how = fmt::format("against {} commits, mean {} +/- {}; this commit's {}", before.size(),
                            stats::format_seconds(acc::rolling_mean(window)),
                            stats::format_seconds(std::sqrt(acc::rolling_variance(window))),
                            point.processes >= kMinProcessesForCheck ? fmt::format("{} per-process medians", point.processes)
                                                                     : fmt::format("{} blocks", point.seconds.size()));
        return v;
    }

    void report_html() {
        const std::optional<OutputFile> out = html_.prepare({});
        std::vector<history::TrendSeries> trends;
        for (Series& s : read_series()) {
            std::vector<stats::ChangePoint> points = change_points(s);
            trends.push_back({std::move(s), std::move(points)});
        }
        out->write(history::trend_report_html(trends, "vitals history: " + history::shown_location(db_)));
        fmt::print(stderr, "{} series drawn into {}\n", trends.size(), html_.path());
    }

    void export_csv() {
        const std::optional<OutputFile> out = csv_.prepare({});
        const std::vector<Series> all = read_series();
        const auto field = [](const std::string& s) {
            if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
            std::string q = "\"";
            for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
            return q + "\"";
        };
        std::string csv = "case,machine,branch,commit,time,median_seconds,p25_seconds,p75_seconds,blocks,processes,cache\n";
        for (const Series& s : all) {
            for (const history::Point& p : s.points) {
                csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", field(s.case_name), field(s.machine), field(s.branch),
                                   field(p.commit), p.time, p.median, p.p25, p.p75, p.blocks, p.processes,
                                   CaseSamples::cache_state(s.cold));
            }
        }
        out->write(csv);
    }

    static constexpr std::size_t kMinProcessesForCheck = 3;

    CLI::App *add_ = nullptr, *show_ = nullptr, *detect_ = nullptr, *check_ = nullptr, *report_cmd_ = nullptr, *export_ = nullptr;
    std::string db_;
    std::vector<std::string> files_;
    std::optional<std::string> commit_, branch_, time_, machine_, filter_;
    bool replace_ = false;
    std::size_t lookback_ = 30;
    DetectFlags detect_flags_;
    ReportFlags report_;
    FailOnFlag fail_on_;
    OutputFlag markdown_, csv_, html_;
};

}  // namespace

std::unique_ptr<Command> make_history_command() { return std::make_unique<HistoryCommand>(); }

}  // namespace vitals::cli
