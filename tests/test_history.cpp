// The history store on a real database: SQLite always, and PostgreSQL when a server is
// given (tests/postgres/with-server.sh starts one and sets VITALS_TEST_POSTGRESQL). The
// same tests run against both.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "vitals/history.hpp"

#ifdef VITALS_TEST_HAS_POSTGRESQL
#include <libpq-fe.h>
#endif

namespace fs = std::filesystem;
using vitals::CaseSamples;
using vitals::history::HistoryError;
using vitals::history::RunInfo;
using vitals::history::Store;

namespace {

CaseSamples samples(const std::string& name, double seconds, std::size_t blocks = 10, int processes = 1) {
    CaseSamples c;
    c.name = name;
    for (std::size_t i = 0; i < blocks; ++i) {
        c.seconds.push_back(seconds * (1 + 0.001 * static_cast<double>(i)));
        c.process.push_back(static_cast<int>(i % static_cast<std::size_t>(processes)));
    }
    return c;
}

RunInfo run(const std::string& commit, const std::string& time, const std::string& branch = "main") {
    return {commit, branch, time, {"host-a", "Test CPU", "avx2", 8}, "test"};
}

class History : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (GetParam() == "postgresql") {
            const char* uri = std::getenv("VITALS_TEST_POSTGRESQL");
            if (uri == nullptr) GTEST_SKIP() << "no PostgreSQL server given (tests/postgres/with-server.sh gives one)";
            location_ = uri;
#ifdef VITALS_TEST_HAS_POSTGRESQL
            // A clean schema for each test.
            PGconn* c = PQconnectdb(uri);
            ASSERT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
            PQclear(PQexec(c, "DROP SCHEMA public CASCADE"));
            PQclear(PQexec(c, "CREATE SCHEMA public"));
            PQfinish(c);
#else
            GTEST_SKIP() << "this build has no PostgreSQL (libpq-dev)";
#endif
        } else {
            // One folder (a parameterised test's name holds a '/').
            std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
            std::replace(name.begin(), name.end(), '/', '-');
            dir_ = fs::temp_directory_path() / ("vitals-history-" + std::to_string(::getpid()) + "-" + name);
            fs::remove_all(dir_);
            fs::create_directories(dir_);
            location_ = (dir_ / "h.sqlite").string();
        }
    }
    void TearDown() override {
        if (!dir_.empty()) fs::remove_all(dir_);
    }
    // Runs SQL on the history behind the Store's back, as an older vitals or a person would.
    void execute(const std::string& sql) {
        if (GetParam() == "sqlite") {
            sqlite3* db = nullptr;
            ASSERT_EQ(sqlite3_open(location_.c_str(), &db), SQLITE_OK);
            char* error = nullptr;
            EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error), SQLITE_OK) << (error ? error : "");
            sqlite3_free(error);
            sqlite3_close(db);
            return;
        }
#ifdef VITALS_TEST_HAS_POSTGRESQL
        PGconn* c = PQconnectdb(location_.c_str());
        ASSERT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
        PGresult* r = PQexec(c, sql.c_str());
        EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(c);
        PQclear(r);
        PQfinish(c);
#endif
    }
    // The schema version the history says it has, read behind the Store's back.
    std::string stored_schema_version() {
        const char* sql = "SELECT value FROM vitals_meta WHERE key = 'schema_version'";
        std::string value;
        if (GetParam() == "sqlite") {
            sqlite3* db = nullptr;
            sqlite3_stmt* statement = nullptr;
            if (sqlite3_open(location_.c_str(), &db) == SQLITE_OK &&
                sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) == SQLITE_OK && sqlite3_step(statement) == SQLITE_ROW) {
                value = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
            }
            sqlite3_finalize(statement);
            sqlite3_close(db);
            return value;
        }
#ifdef VITALS_TEST_HAS_POSTGRESQL
        PGconn* c = PQconnectdb(location_.c_str());
        PGresult* r = PQexec(c, sql);
        if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) value = PQgetvalue(r, 0, 0);
        PQclear(r);
        PQfinish(c);
#endif
        return value;
    }
    std::string location_;
    fs::path dir_;
};

}  // namespace

TEST_P(History, RunsComeBackAsSeriesByCaseMachineAndBranchInTimeOrder) {
    Store store(location_);
    // Recorded out of order, with zones: the series is in UTC time order.
    EXPECT_EQ(store.add(run("c2", "2026-12-02T12:00:00+02:00"), {samples("a", 2e-6), samples("b", 5e-6)}), 2u);
    EXPECT_EQ(store.add(run("c1", "2026-12-01T10:00:00Z"), {samples("a", 1e-6)}), 1u);
    EXPECT_EQ(store.add(run("c3", "2026-12-03T00:00:00-05:00"), {samples("a", 3e-6)}), 1u);
    EXPECT_EQ(store.add(run("f1", "2026-12-02T00:00:00Z", "feature"), {samples("a", 9e-6)}), 1u);
    const auto series = store.series();
    ASSERT_EQ(series.size(), 3u);  // a on feature, a on main, b on main
    EXPECT_EQ(series[0].case_name, "a");
    EXPECT_EQ(series[0].branch, "feature");
    EXPECT_EQ(series[1].branch, "main");
    ASSERT_EQ(series[1].points.size(), 3u);
    EXPECT_EQ(series[1].points[0].commit, "c1");
    EXPECT_EQ(series[1].points[1].commit, "c2");
    EXPECT_EQ(series[1].points[1].time, "2026-12-02T10:00:00Z");
    EXPECT_EQ(series[1].points[2].time, "2026-12-03T05:00:00Z");
    EXPECT_EQ(series[1].machine, "host-a, Test CPU, avx2, 8 cores");
    // The aggregates of 10 blocks at 1e-6 * (1 + 0.001 i): median 1.0045e-6.
    EXPECT_NEAR(series[1].points[0].median, 1.0045e-6, 1e-18);
    EXPECT_NEAR(series[1].points[0].p25, 1.00225e-6, 1e-18);
    EXPECT_NEAR(series[1].points[0].p75, 1.00675e-6, 1e-18);
    EXPECT_EQ(series[1].points[0].blocks, 10u);
    EXPECT_EQ(store.series({.branch = "main"}).size(), 2u);
    EXPECT_EQ(store.series({.machine = "host-a"}).size(), 3u);
    EXPECT_TRUE(store.series({.machine = "host-b"}).empty());
    const auto up_to = store.series({.branch = "main", .up_to_commit = "c2"});
    EXPECT_EQ(up_to[0].points.size(), 2u);
    EXPECT_THROW(store.series({.up_to_commit = "nope"}), HistoryError);
}

TEST_P(History, EveryBlockAndItsProcessComeBack) {
    Store store(location_);
    store.add(run("c1", "2026-12-01T00:00:00Z"), {samples("a", 1e-3, 12, 3)});
    const auto series = store.series({.with_blocks = true});
    const auto& p = series.at(0).points.at(0);
    ASSERT_EQ(p.seconds.size(), 12u);
    EXPECT_DOUBLE_EQ(p.seconds[11], 1e-3 * 1.011);  // exact: stored as shortest round-trip text
    EXPECT_EQ(p.process, (std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}));
    EXPECT_EQ(p.processes, 3u);
    // Process 0 holds blocks 0, 3, 6, 9: median (1.003 + 1.006) / 2 ms.
    EXPECT_NEAR(p.process_medians().at(0), 1e-3 * 1.0045, 1e-15);
}

TEST_P(History, ACommitRecordedTwiceIsRefusedWholeUnlessReplaced) {
    Store store(location_);
    store.add(run("c1", "2026-12-01T00:00:00Z"), {samples("a", 1e-6)});
    try {
        store.add(run("c1", "2026-12-01T00:00:00Z"), {samples("b", 1e-6), samples("a", 2e-6)});
        FAIL() << "a repeated commit was accepted";
    } catch (const HistoryError& e) {
        EXPECT_NE(std::string(e.what()).find("commit c1 already has a warm result for 'a'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("--replace"), std::string::npos) << e.what();
    }
    // Nothing of the refused run was written: no series for b.
    EXPECT_EQ(store.series().size(), 1u);
    EXPECT_EQ(store.add(run("c1", "2026-12-01T00:00:00Z"), {samples("a", 2e-6)}, true), 1u);
    const auto series = store.series();
    ASSERT_EQ(series.at(0).points.size(), 1u);
    EXPECT_NEAR(series[0].points[0].median, 2.009e-6, 1e-17);
    // The same commit on another machine is another series' point, no repeat.
    RunInfo other = run("c1", "2026-12-01T00:00:00Z");
    other.machine.host = "host-b";
    EXPECT_EQ(store.add(other, {samples("a", 1e-6)}), 1u);
}

TEST_P(History, BadTimesAndCasesWithoutBlocks) {
    Store store(location_);
    EXPECT_THROW(store.add(run("c1", "yesterday"), {samples("a", 1e-6)}), HistoryError);
    EXPECT_THROW(store.add(run("", "2026-12-01T00:00:00Z"), {samples("a", 1e-6)}), HistoryError);
    CaseSamples skipped;
    skipped.name = "gpu";
    skipped.not_measured = "skipped: no GPU";
    EXPECT_EQ(store.add(run("c1", "2026-12-01T00:00:00Z"), {skipped, samples("a", 1e-6)}), 1u);
    EXPECT_EQ(store.series().size(), 1u);
}

// Both start on an empty database: the first creation of the tables is raced too.
TEST_P(History, TwoWritersAtOnceBothLand) {
    const auto writer = [&](const std::string& prefix) {
        Store store(location_);
        for (int i = 0; i < 20; ++i) {
            store.add(run(prefix + std::to_string(i), "2026-12-01T00:00:" + std::string(i < 10 ? "0" : "") + std::to_string(i) + "Z"),
                      {samples("shared", 1e-6), samples(prefix, 1e-6)});
        }
    };
    std::thread a(writer, "a"), b(writer, "b");
    a.join();
    b.join();
    Store store(location_);
    const auto series = store.series();
    ASSERT_EQ(series.size(), 3u);  // a, b, shared
    EXPECT_EQ(series[2].case_name, "shared");
    EXPECT_EQ(series[2].points.size(), 40u);
}

TEST_P(History, ANewerSchemaIsRefused) {
    if (GetParam() != "sqlite") GTEST_SKIP() << "the schema row is written the same way on both; checked on SQLite";
    { Store create(location_); }
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(location_.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, "UPDATE vitals_meta SET value = '99' WHERE key = 'schema_version'", nullptr, nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(db);
    try {
        Store again(location_);
        FAIL() << "a newer schema was accepted";
    } catch (const HistoryError& e) {
        EXPECT_NE(std::string(e.what()).find("schema version 99, newer than this vitals reads (" +
                                             std::to_string(vitals::history::kSchemaVersion) + ")"),
                  std::string::npos)
            << e.what();
    }
}

// A server that refuses the login is named with the server's reason, and nothing is opened.
TEST_P(History, ALoginTheServerRefusesIsAClearError) {
    if (GetParam() != "postgresql") GTEST_SKIP() << "SQLite has no login";
    const std::size_t user = location_.find("user=");
    ASSERT_NE(user, std::string::npos) << location_;
    const std::string refused = location_.substr(0, user) + "user=vitals_no_such_role";
    try {
        Store store(refused);
        FAIL() << "a login the server refuses was accepted";
    } catch (const HistoryError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("cannot connect to the history"), std::string::npos) << what;
        EXPECT_NE(what.find("vitals_no_such_role"), std::string::npos) << what;  // the server's reason
        EXPECT_NE(what.find("accepts this user"), std::string::npos) << what;
    }
}

// On a real server (which takes the password and, trusting this socket, ignores it): no
// message and no location the store gives shows it.
TEST_P(History, APasswordInTheLocationIsNeverShown) {
    if (GetParam() != "postgresql") GTEST_SKIP() << "SQLite has no password";
    const std::string with_password = location_ + "&password=SECRET-PW";
    {
        Store store(with_password);
        EXPECT_EQ(store.shown_location().find("SECRET-PW"), std::string::npos) << store.shown_location();
        store.add(run("c1", "2026-12-01T00:00:00Z"), {samples("a", 1e-6)});
        try {
            store.series({.up_to_commit = "no-such-commit"});
            FAIL() << "a commit the history lacks was found";
        } catch (const HistoryError& e) {
            EXPECT_EQ(std::string(e.what()).find("SECRET-PW"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("password=***"), std::string::npos) << e.what();
        }
    }
    execute("DROP TABLE vitals_meta");
    try {
        Store again(with_password, vitals::history::Access::read);
        FAIL() << "a database of other tables was accepted";
    } catch (const HistoryError& e) {
        EXPECT_NE(std::string(e.what()).find("is not a vitals history"), std::string::npos) << e.what();
        EXPECT_EQ(std::string(e.what()).find("SECRET-PW"), std::string::npos) << e.what();
    }
}

// A reader of an empty database refuses it, and gives it no tables.
TEST_P(History, AReaderOfAnEmptyDatabaseCreatesNoTables) {
    if (GetParam() != "postgresql") GTEST_SKIP() << "HistoryFile.AReaderCreatesNothing covers SQLite";
    try {
        Store reader(location_, vitals::history::Access::read);
        FAIL() << "an empty database was read as a history";
    } catch (const HistoryError& e) {
        EXPECT_NE(std::string(e.what()).find("is empty: no run was recorded in it"), std::string::npos) << e.what();
    }
    EXPECT_EQ(stored_schema_version(), "");
}

// Several runs added together are one transaction: one refused run writes none of them.
TEST_P(History, RunsAddedTogetherLandTogetherOrNotAtAll) {
    Store store(location_);
    store.add(run("c1", "2026-12-01T10:00:00Z"), {samples("x", 1e-6)});
    const RunInfo fresh = run("c2", "2026-12-02T10:00:00Z");
    RunInfo repeated = run("c1", "2026-12-01T10:00:00Z");
    repeated.source = "again.json";
    const std::vector<CaseSamples> fresh_cases = {samples("x", 1e-6), samples("y", 2e-6)};
    const std::vector<CaseSamples> repeated_cases = {samples("x", 1e-6)};
    try {
        store.add({{&fresh, &fresh_cases}, {&repeated, &repeated_cases}});
        FAIL() << "a repeated commit was recorded";
    } catch (const HistoryError& e) {
        EXPECT_EQ(std::string(e.what()).rfind("again.json: commit c1 already has a warm result for 'x'", 0), 0u) << e.what();
    }
    ASSERT_EQ(store.series().size(), 1u);  // no series of y: c2 was not written
    EXPECT_EQ(store.series()[0].points.size(), 1u);
    const std::vector<std::size_t> recorded = store.add({{&fresh, &fresh_cases}, {&repeated, &repeated_cases}}, true);
    EXPECT_EQ(recorded, (std::vector<std::size_t>{2, 1}));
    EXPECT_EQ(store.series().size(), 2u);
    // One case twice in one batch: refused even with `replace`, which would keep one silently.
    RunInfo twice = fresh;
    twice.source = "twice.json";
    try {
        store.add({{&fresh, &fresh_cases}, {&twice, &fresh_cases}}, true);
        FAIL() << "a case given twice in one batch was recorded";
    } catch (const HistoryError& e) {
        EXPECT_NE(std::string(e.what()).find("'x' of commit c2 (warm) is in both test and twice.json"), std::string::npos)
            << e.what();
    }
}

// A case measured cold is a series of its own beside the warm one, and each cache state
// of a commit is recorded once.
TEST_P(History, ColdResultsAreASeriesOfTheirOwn) {
    Store store(location_);
    CaseSamples cold = samples("x", 9e-6);
    cold.cold = true;
    store.add(run("c1", "2026-12-01T10:00:00Z"), {samples("x", 1e-6)});
    store.add(run("c1", "2026-12-01T10:05:00Z"), {cold});
    store.add(run("c2", "2026-12-02T10:00:00Z"), {samples("x", 1e-6)});
    const auto series = store.series();
    ASSERT_EQ(series.size(), 2u);
    EXPECT_FALSE(series[0].cold);
    EXPECT_EQ(series[0].title(), "x");
    EXPECT_EQ(series[0].points.size(), 2u);
    EXPECT_TRUE(series[1].cold);
    EXPECT_EQ(series[1].title(), "x (cold caches)");
    ASSERT_EQ(series[1].points.size(), 1u);
    EXPECT_NEAR(series[1].points[0].median, 9e-6 * 1.0045, 1e-12);
    try {
        store.add(run("c1", "2026-12-03T10:00:00Z"), {cold});
        FAIL() << "a second cold result of c1 was accepted";
    } catch (const HistoryError& e) {
        EXPECT_NE(std::string(e.what()).find("commit c1 already has a cold result for 'x'"), std::string::npos) << e.what();
    }
    EXPECT_EQ(store.add(run("c1", "2026-12-03T10:00:00Z"), {cold}, /*replace=*/true), 1u);
    EXPECT_EQ(store.series()[0].points.size(), 2u);  // the warm results stay
}

// A history written by a vitals of schema version 1 (no cache column) is brought up to
// this one when opened: its results read as warm, and cold ones can be added.
TEST_P(History, AnOlderSchemaIsReadAsItIsAndUpgradedByTheFirstWrite) {
    {
        Store create(location_);
        create.add(run("c1", "2026-12-01T10:00:00Z"), {samples("x", 1e-6)});
    }
    execute("ALTER TABLE results DROP COLUMN cache");
    execute("UPDATE vitals_meta SET value = '1' WHERE key = 'schema_version'");
    {
        // Read only: its results are warm ones, and the history stays at version 1 for
        // the older vitals that may still write to it.
        Store reader(location_);
        const auto series = reader.series();
        ASSERT_EQ(series.size(), 1u);
        EXPECT_FALSE(series[0].cold);
        EXPECT_THROW(reader.add(run("", "2026-12-01T10:05:00Z"), {samples("x", 1e-6)}), HistoryError);  // no commit
    }
    EXPECT_EQ(stored_schema_version(), "1");
    Store store(location_);
    CaseSamples cold = samples("x", 9e-6);
    cold.cold = true;
    store.add(run("c1", "2026-12-01T10:05:00Z"), {cold});
    const auto series = store.series();
    ASSERT_EQ(series.size(), 2u);
    EXPECT_FALSE(series[0].cold);
    EXPECT_EQ(series[0].points.at(0).commit, "c1");
    EXPECT_TRUE(series[1].cold);
    EXPECT_EQ(stored_schema_version(), std::to_string(vitals::history::kSchemaVersion));
    // Opened again: already upgraded, nothing to do.
    Store again(location_);
    EXPECT_EQ(again.series().size(), 2u);
}

TEST(HistoryFiles, WhatIsNoHistoryIsRefused) {
    const fs::path dir = fs::temp_directory_path() / ("vitals-history-files-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "text.sqlite") << "this is not a database, just some text that is long enough to have a header...";
    try {
        Store s((dir / "text.sqlite").string());
        FAIL() << "a text file was accepted";
    } catch (const HistoryError& e) {
        EXPECT_NE(std::string(e.what()).find("is not a vitals history"), std::string::npos) << e.what();
    }
    try {
        Store s(dir.string());
        FAIL() << "a folder was accepted";
    } catch (const HistoryError& e) {
        EXPECT_NE(std::string(e.what()).find("it is a folder"), std::string::npos) << e.what();
    }
    try {
        Store s("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2");
        FAIL() << "a server that is down was accepted";
    } catch (const HistoryError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("cannot connect to the history", 0), 0u) << what;
    }
    fs::remove_all(dir);
}

TEST(HistoryTimes, IsoTimesWithZonesBecomeUtc) {
    using vitals::history::utc_time;
    EXPECT_EQ(utc_time("2026-12-04T18:00:00Z"), "2026-12-04T18:00:00Z");
    EXPECT_EQ(utc_time("2026-12-04T18:00:00.123+01:30"), "2026-12-04T16:30:00Z");
    EXPECT_EQ(utc_time("2026-01-01T01:00:00+02:00"), "2025-12-31T23:00:00Z");
    EXPECT_EQ(utc_time("2024-02-29T12:00:00-14:00"), "2024-03-01T02:00:00Z");  // a leap day, the last zone
    EXPECT_EQ(utc_time("2000-02-29T00:00:00+14:00"), "2000-02-28T10:00:00Z");  // 2000 is a leap year
    EXPECT_FALSE(utc_time("2026-12-04 18:00:00"));
    EXPECT_FALSE(utc_time("2026-12-04T18:00:00"));  // no zone
    EXPECT_FALSE(utc_time("2026-13-04T18:00:00Z"));
}

// Only real times: each field its digits, a day the month has, a zone within 14 hours,
// nothing before or after, a UTC year of four digits.
TEST(HistoryTimes, WhatIsNoTimeIsRefused) {
    using vitals::history::utc_time;
    for (const char* text : {"2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-12-00T00:00:00Z",
                             "2026-12-04T24:00:00Z", "2026-12-04T18:60:00Z", "2026-12-04T18:00:60Z",
                             "2026-12-04T18:00:00+15:00", "2026-12-04T18:00:00+14:30", "2026-12-04T18:00:00+01:60",
                             "2026-12-04T18:00:00+0100", "2026-12-04T18:00:00Zjunk", "2026-12-04T18:00:00.Z",
                             " 2026-12-04T18:00:00Z", "2026-1-04T18:00:00Z", "2026-12-04T18:0:00Z", "+2026-12-04T18:00:00Z",
                             "20261-12-04T18:00:00Z", "0000-06-01T00:00:00Z", "0001-01-01T00:00:00+01:00",
                             "9999-12-31T23:30:00-01:00", "2026-12-04T18:00:00\x1b[2J"}) {
        EXPECT_FALSE(utc_time(text)) << text;
    }
    EXPECT_EQ(utc_time("0001-01-01T01:00:00+01:00"), "0001-01-01T00:00:00Z");
    EXPECT_EQ(utc_time("9999-12-31T23:59:59Z"), "9999-12-31T23:59:59Z");
}

TEST(HistoryLocation, PasswordsAreNeverShown) {
    using vitals::history::shown_location;
    EXPECT_EQ(shown_location("postgresql://bench:SECRET@127.0.0.1:5432/hist"), "postgresql://bench:***@127.0.0.1:5432/hist");
    EXPECT_EQ(shown_location("postgres://bench:SE@CR@ET@db.example/hist"), "postgres://bench:***@db.example/hist");
    EXPECT_EQ(shown_location("postgresql://bench:SECRET@/hist?host=/run/pg&password=SECRET2&sslmode=require"),
              "postgresql://bench:***@/hist?host=/run/pg&password=***&sslmode=require");
    EXPECT_EQ(shown_location("postgresql://h/db?pass%77ord=SECRET&sslpassword=KEY"), "postgresql://h/db?pass%77ord=***&sslpassword=***");
    EXPECT_EQ(shown_location("postgresql://bench@h/db?user=x"), "postgresql://bench@h/db?user=x");  // no password: as it is
    EXPECT_EQ(shown_location("postgresql://h/db?"), "postgresql://h/db?");
    EXPECT_EQ(shown_location("team:secret@results.sqlite"), "team:secret@results.sqlite");  // a file's name, not a URI
}

// A password libpq would misread (a raw '@' or '/' ends its user part) is refused before
// connecting, and no part of it is shown.
TEST(HistoryLocation, ARawAtOrSlashInAPasswordIsRefusedUnshown) {
    for (const std::string uri : {"postgresql://bench:SE@CRET@127.0.0.1:1/hist", "postgresql://bench:SE/CRET@127.0.0.1:1/hist"}) {
        try {
            Store s(uri);
            FAIL() << uri << " was accepted";
        } catch (const HistoryError& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find("write them escaped, as %40 and %2F"), std::string::npos) << what;
            EXPECT_EQ(what.find("SE"), std::string::npos) << what;
            EXPECT_EQ(what.find("CRET"), std::string::npos) << what;
        }
    }
    // libpq's own message never carries the password either (here, in a parameter).
    try {
        Store s("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2&password=SECRET-PW");
        FAIL() << "a server that is down was accepted";
    } catch (const HistoryError& e) {
        EXPECT_EQ(std::string(e.what()).find("SECRET-PW"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("password=***"), std::string::npos) << e.what();
    }
}

class HistoryFile : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("vitals-history-file-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    static std::string refusal(const std::string& location, vitals::history::Access access) {
        try {
            Store s(location, access);
        } catch (const HistoryError& e) {
            return e.what();
        }
        return "";
    }
    fs::path dir_;
};

// Reading a history changes nothing: a missing file is not created, an empty one is not
// given tables.
TEST_F(HistoryFile, AReaderCreatesNothing) {
    using vitals::history::Access;
    const fs::path missing = dir_ / "missing.sqlite";
    const std::string why = refusal(missing.string(), Access::read);
    EXPECT_NE(why.find("the history '" + missing.string() + "' does not exist; record a run in it first"), std::string::npos) << why;
    EXPECT_FALSE(fs::exists(missing));
    const fs::path empty = dir_ / "empty.sqlite";
    std::ofstream{empty};
    const std::string empty_why = refusal(empty.string(), Access::read);
    EXPECT_NE(empty_why.find("is empty: no run was recorded in it"), std::string::npos) << empty_why;
    EXPECT_EQ(fs::file_size(empty), 0u);
    { Store writer(empty.string()); }
    EXPECT_GT(fs::file_size(empty), 0u);
    Store reader(empty.string(), Access::read);
    EXPECT_TRUE(reader.series().empty());
}

// A history file is an output: no device, no other user's file or link in a folder
// anyone may write (whatever fs.protected_* say, and for root too).
TEST_F(HistoryFile, TheOutputRuleHolds) {
    EXPECT_NE(refusal("/dev/null", vitals::history::Access::write).find("cannot open the history: cannot write '/dev/null'"),
              std::string::npos);
    const fs::path open_to_all = dir_ / "open.sqlite";
    { Store create(open_to_all.string()); }
    fs::permissions(open_to_all, fs::perms::others_write, fs::perm_options::add);
    EXPECT_NE(refusal(open_to_all.string(), vitals::history::Access::write).find("any user may write it (mode 06"), std::string::npos)
        << refusal(open_to_all.string(), vitals::history::Access::write);
    const fs::path shared = dir_ / "shared";
    fs::create_directories(shared);
    fs::permissions(shared, fs::perms::all | fs::perms::sticky_bit);
    const fs::path mine = dir_ / "mine.sqlite";
    { Store create(mine.string()); }
    const std::uintmax_t size = fs::file_size(mine);
    fs::create_symlink(mine, shared / "team.sqlite");
    fs::create_symlink(dir_ / "nowhere.sqlite", shared / "dangling.sqlite");
    std::ofstream(shared / "theirs.sqlite") << "";
    const uid_t other = ::geteuid() == 65534 ? 65533 : 65534;
    if (::lchown((shared / "team.sqlite").c_str(), other, other) != 0 || ::lchown((shared / "dangling.sqlite").c_str(), other, other) != 0 ||
        ::chown((shared / "theirs.sqlite").c_str(), other, other) != 0) {
        GTEST_SKIP() << "cannot give a file to another user here (not root)";
    }
    for (const char* name : {"team.sqlite", "dangling.sqlite"}) {
        const std::string why = refusal((shared / name).string(), vitals::history::Access::write);
        EXPECT_NE(why.find("protected_symlinks rule"), std::string::npos) << name << ": " << why;
    }
    const std::string why = refusal((shared / "theirs.sqlite").string(), vitals::history::Access::write);
    EXPECT_NE(why.find("protected_regular rule"), std::string::npos) << why;
    EXPECT_EQ(fs::file_size(mine), size);
    EXPECT_FALSE(fs::exists(dir_ / "nowhere.sqlite"));
    EXPECT_EQ(fs::file_size(shared / "theirs.sqlite"), 0u);
}

TEST_F(HistoryFile, ASchemaVersionThatIsNoWholeNumberIsRefused) {
    const std::string path = (dir_ / "h.sqlite").string();
    { Store create(path); }
    for (const char* version : {"2.5", "abc", "0", "1e3", ""}) {
        sqlite3* db = nullptr;
        ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
        const std::string sql = std::string("UPDATE vitals_meta SET value = '") + version + "' WHERE key = 'schema_version'";
        ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
        sqlite3_close(db);
        EXPECT_NE(refusal(path, vitals::history::Access::read).find("has no schema version it can read ('" + std::string(version) + "')"),
                  std::string::npos)
            << version;
    }
}

INSTANTIATE_TEST_SUITE_P(Databases, History, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });
