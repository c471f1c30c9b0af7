// The history: every recorded run kept in a database (a SQLite file, or a PostgreSQL
// server for a team), keyed by commit, branch, time, machine and case, so that a case's
// medians can be followed across commits and its change points found
// (<vitals/change_points.hpp>). `vitals history` is the command line over it.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vitals/change_points.hpp"
#include "vitals/results.hpp"

namespace vitals::history {

// The schema this vitals writes; a history of a newer one is refused (upgrade vitals), an
// older one is read as it is and brought up to this one by the first write (version 2
// added each result's cache state), after which older vitals refuse it.
inline constexpr int kSchemaVersion = 2;

// Bad history input: it cannot be opened, is no vitals history or a newer one, a write
// that would repeat a commit's result. The message says what to do.
class HistoryError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};
// The database failed, not the input: a full disk, an I/O error, a lost connection, a
// lock held past the wait. `vitals history` exits 1 on it, and 2 on other HistoryErrors.
class HistoryFailure : public HistoryError {
public:
    using HistoryError::HistoryError;
};

// What tells machines apart: results of one case on two machines are two series.
struct Machine {
    std::string host, cpu_model, isa;
    int cores = 0;
    // "host, cpu model, isa, N cores" (the parts known).
    std::string fingerprint() const;
};

// This machine, as a results file written here describes it (machine_of_results).
Machine this_machine();

// The machine a results file was measured on, from its context (host_name, num_cpus,
// vitals_cpu_model, vitals_max_cpu_isa); what the context lacks stays empty.
Machine machine_of_results(const ResultsFile& file);

struct RunInfo {
    std::string commit;  // the commit's hash (or any name of it)
    std::string branch;
    std::string time;    // ISO 8601 with a zone ("2026-12-04T18:00:00+01:00"); stored in UTC
    Machine machine;
    std::string source;  // where the results came from (a file's path)
};

// One commit's result for one case.
struct Point {
    std::string commit, time;  // time in UTC, "2026-12-04T17:00:00Z"
    double median = 0, p25 = 0, p75 = 0;  // seconds per call, over all blocks
    std::size_t blocks = 0, processes = 1;
    std::vector<double> seconds;  // every block (with Store::series' with_blocks)
    std::vector<int> process;     // per block, its process
    // The median of each process's blocks (one value with one process).
    std::vector<double> process_medians() const;
};

// One case on one machine and branch, measured warm or cold (run --cold), oldest commit
// first. A cold result is a series of its own: it is not the warm one slowed down.
struct Series {
    std::string case_name, machine, branch;
    bool cold = false;
    std::vector<Point> points;
    // The case as reports name the series: "name", or "name (cold caches)".
    std::string title() const;
};

struct SeriesFilter {
    std::optional<std::string> machine;  // a fingerprint, or a host name
    std::optional<std::string> branch;
    std::optional<std::string> up_to_commit;  // points up to this commit's time (its own included)
    bool with_blocks = false;
};

// The history's location as messages show it: a PostgreSQL URI with its password (in the
// user part, or a password= parameter) written ***; a SQLite path as it is. Every message
// of the history and of `vitals history` names the location through this.
std::string shown_location(const std::string& location);

// What a Store is opened for. A reader changes nothing: a SQLite file is opened read-only
// and must exist, a database without a vitals history is refused, not given its tables.
enum class Access { write, read };

class Store {
public:
    // Opens the history at `location` ("postgresql://user@host/db", else a SQLite file).
    // To write, a SQLite file is created when absent, under the rules of every output of
    // vitals (<vitals/atomic_file.hpp>: no planted link followed, no other user's file in a
    // folder anyone may write), and a new history is given its tables. HistoryError when it
    // cannot be opened, is missing or empty (to read), holds tables that are no vitals
    // history, or has a newer schema.
    explicit Store(const std::string& location, Access access = Access::write);
    ~Store();
    Store(Store&&) noexcept;
    Store& operator=(Store&&) noexcept;

    // Records the measured cases of one run in one transaction: all or none. A case that
    // already has a result for this commit on this machine, with the same cache state
    // (CaseSamples::cold), is refused (HistoryError,
    // nothing written) unless `replace`, which replaces it. Returns the cases recorded.
    std::size_t add(const RunInfo& run, const std::vector<CaseSamples>& cases, bool replace = false);
    // Records several runs (history add A.json B.json) in one transaction: all or none. A
    // refusal names the run's source; a case given twice for one commit, machine and cache
    // state is refused even with `replace`. Returns the cases recorded per run, in order.
    struct RunCases {
        const RunInfo* run;                      // both outlive the call
        const std::vector<CaseSamples>* cases;
    };
    std::vector<std::size_t> add(const std::vector<RunCases>& runs, bool replace = false);

    std::vector<Series> series(const SeriesFilter& filter = {});
    // The machines (fingerprints) that have a result for this commit.
    std::vector<std::string> machines_with(const std::string& commit);
    std::string location() const { return location_; }
    std::string shown_location() const { return history::shown_location(location_); }

private:
    int schema_version();
    void upgrade();
    std::size_t add_in_transaction(const RunInfo& run, const std::string& time, const std::vector<CaseSamples>& cases,
                                   bool replace);

    struct Impl;
    std::unique_ptr<Impl> impl_;
    std::string location_;
};

// A series with its change points, for the trend page.
struct TrendSeries {
    Series series;
    std::vector<stats::ChangePoint> change_points;
};
// One self-contained HTML page (inline SVG, no scripts): per series, the medians by commit
// with their interquartile band, change points marked and labelled with commit and step.
std::string trend_report_html(const std::vector<TrendSeries>& trends, const std::string& title);

// "2026-12-04T18:00:00+01:00" -> "2026-12-04T17:00:00Z" (fractions of a second dropped);
// nullopt for text that is no such time.
std::optional<std::string> utc_time(const std::string& iso8601);

}  // namespace vitals::history
