// One connection to the history's database, SQLite or PostgreSQL, behind the few calls
// the store needs. Internal to the history part.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace vitals::history {

// A parameter or a column value. Columns come back as text (PostgreSQL's text format, and
// SQLite's own conversion), so one parser serves both; NULL is nullopt.
using Text = std::optional<std::string>;
using Row = std::vector<Text>;

class Database {
public:
    virtual ~Database() = default;
    // "sqlite" or "postgresql".
    virtual const char* dialect() const = 0;
    // Runs a statement with parameters written $1, $2, ...; returns its rows. Throws
    // HistoryError with the database's own message.
    std::vector<Row> query(const std::string& sql, const std::vector<Text>& parameters = {}) { return run(sql, parameters); }
    // A transaction that writers queue for: SQLite takes the write lock at once (BEGIN
    // IMMEDIATE, waiting up to the busy timeout), PostgreSQL begins.
    virtual void begin_write() = 0;
    void commit() { query("COMMIT"); }
    void rollback() { query("ROLLBACK"); }
    // The names of the tables in the database (its current schema for PostgreSQL).
    virtual std::vector<std::string> tables() = 0;

protected:
    virtual std::vector<Row> run(const std::string& sql, const std::vector<Text>& parameters) = 0;
};

// "postgresql://..." or "postgres://..." (libpq's URI), else a SQLite file's path (created
// when absent). Throws HistoryError saying why it cannot be opened.
std::unique_ptr<Database> open_database(const std::string& location);

std::unique_ptr<Database> open_sqlite(const std::string& path);
std::unique_ptr<Database> open_postgresql(const std::string& uri);

}  // namespace vitals::history
