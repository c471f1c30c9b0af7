// The history on a SQLite file.
#include <fmt/format.h>
#include <sqlite3.h>

#include <filesystem>
#include <optional>
#include <stdexcept>

#include "database.hpp"
#include "vitals/atomic_file.hpp"
#include "vitals/history.hpp"

namespace vitals::history {
namespace {

// SQLite numbers its parameters ?1, ?2, ...: the store writes $1, $2, ... as PostgreSQL does.
std::string sqlite_placeholders(const std::string& sql) {
    std::string out;
    for (std::size_t i = 0; i < sql.size(); ++i) {
        const bool placeholder = sql[i] == '$' && i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9';
        out += placeholder ? '?' : sql[i];
    }
    return out;
}

class SqliteDatabase final : public Database {
public:
    SqliteDatabase(const std::string& path, Access access) : path_(path) {
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) {
            throw HistoryError(fmt::format("cannot open the history '{}': it is a folder; give a file (e.g. results.sqlite)", path));
        }
        std::string opened = path;
        int flags = SQLITE_OPEN_FULLMUTEX;
        if (access == Access::read) {
            if (!std::filesystem::exists(path, ec)) {
                throw HistoryError(fmt::format("the history '{}' does not exist; record a run in it first ('vitals history add "
                                               "RESULTS.json --db {}')",
                                               path, path));
            }
            flags |= SQLITE_OPEN_READONLY;
        } else {
            // A history is an output of vitals: checked as every output is, then reached
            // through the folder held by that check.
            try {
                output_.emplace(path);
                opened = output_->in_place_path();
            } catch (const std::runtime_error& e) {
                throw HistoryError(fmt::format("cannot open the history: {}", e.what()));
            }
            flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOFOLLOW;
        }
        if (sqlite3_open_v2(opened.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
            const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
            sqlite3_close(db_);
            throw HistoryError(fmt::format("cannot open the history '{}': {}", path, why));
        }
        // Two writers at once (two CI jobs): the second waits for the first's transaction.
        sqlite3_busy_timeout(db_, 60000);
        query("PRAGMA foreign_keys = ON");
    }
    ~SqliteDatabase() override { sqlite3_close(db_); }

    const char* dialect() const override { return "sqlite"; }

    std::vector<Row> run(const std::string& sql, const std::vector<Text>& parameters) override {
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(db_, sqlite_placeholders(sql).c_str(), -1, &statement, nullptr) != SQLITE_OK) {
            throw_error("cannot run a query");
        }
        struct Finalize {
            sqlite3_stmt* s;
            ~Finalize() { sqlite3_finalize(s); }
        } finalize{statement};
        for (std::size_t i = 0; i < parameters.size(); ++i) {
            const int index = static_cast<int>(i + 1);
            const int rc = parameters[i] ? sqlite3_bind_text(statement, index, parameters[i]->data(),
                                                             static_cast<int>(parameters[i]->size()), SQLITE_TRANSIENT)
                                         : sqlite3_bind_null(statement, index);
            if (rc != SQLITE_OK) throw_error("cannot bind a value");
        }
        std::vector<Row> rows;
        for (;;) {
            const int rc = sqlite3_step(statement);
            if (rc == SQLITE_DONE) break;
            if (rc != SQLITE_ROW) throw_error("a query failed");
            Row row;
            for (int c = 0; c < sqlite3_column_count(statement); ++c) {
                if (sqlite3_column_type(statement, c) == SQLITE_NULL) {
                    row.emplace_back(std::nullopt);
                } else if (sqlite3_column_type(statement, c) == SQLITE_FLOAT) {
                    row.emplace_back(fmt::format("{}", sqlite3_column_double(statement, c)));  // shortest exact text
                } else {
                    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, c));
                    row.emplace_back(std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(statement, c))));
                }
            }
            rows.push_back(std::move(row));
        }
        return rows;
    }

    void begin_write() override { query("BEGIN IMMEDIATE"); }

    std::vector<std::string> tables() override {
        std::vector<std::string> out;
        for (const Row& row : query("SELECT name FROM sqlite_master WHERE type = 'table'")) out.push_back(row[0].value_or(""));
        return out;
    }

private:
    // Throws the error of the last call: HistoryFailure where the database failed (a full
    // disk, an I/O error, a lock held too long), else HistoryError.
    [[noreturn]] void throw_error(const char* what) const {
        const int code = sqlite3_errcode(db_);
        const std::string message = sqlite3_errmsg(db_);
        if (code == SQLITE_NOTADB) {
            throw HistoryError(fmt::format("'{}' is not a vitals history (not a SQLite database: {}); give a history file, "
                                            "or a new path to start one",
                                            path_, message));
        }
        if (code == SQLITE_BUSY) {
            throw HistoryFailure(fmt::format("the history '{}' stayed locked by another writer for 60 s: {}", path_, message));
        }
        if (code == SQLITE_FULL) {
            throw HistoryFailure(fmt::format("the history '{}': {}: the disk that holds it is full ({}); nothing was "
                                              "written: free space there and run again",
                                              path_, what, message));
        }
        if (code == SQLITE_IOERR || code == SQLITE_NOMEM || code == SQLITE_READONLY) {
            throw HistoryFailure(fmt::format("the history '{}': {}: {} (writing to the disk that holds it failed; "
                                              "nothing was written)",
                                              path_, what, message));
        }
        throw HistoryError(fmt::format("the history '{}': {}: {}", path_, what, message));
    }

    std::string path_;
    std::optional<OutputFile> output_;  // to write: the checked file, its folder held
    sqlite3* db_ = nullptr;
};

}  // namespace

std::unique_ptr<Database> open_sqlite(const std::string& path, Access access) {
    return std::make_unique<SqliteDatabase>(path, access);
}

}  // namespace vitals::history
