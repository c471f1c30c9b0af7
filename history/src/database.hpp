// One connection to the history's database, SQLite or PostgreSQL, behind the few calls
// the store needs. Internal to the history part.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vitals/history.hpp"

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

// "postgresql://..." or "postgres://..." (libpq's URI), else a SQLite file's path (to
// write: created when absent, as every output of vitals; to read: opened read-only, and
// it must exist). Throws HistoryError saying why it cannot be opened.
std::unique_ptr<Database> open_database(const std::string& location, Access access);

std::unique_ptr<Database> open_sqlite(const std::string& path, Access access);
std::unique_ptr<Database> open_postgresql(const std::string& uri);
// `text` (a message of libpq's) with every secret of `uri` in it, as written or decoded,
// replaced by ***.
std::string without_secrets(std::string text, const std::string& uri);
// HistoryError for a URI that libpq would misread (a raw '@' or '/' in its password).
void check_postgresql_uri(const std::string& uri);

}  // namespace vitals::history
