// The history on a PostgreSQL server (libpq), for a team's shared history.
#include <fmt/format.h>
#include <libpq-fe.h>

#include <cstring>
#include <string_view>

#include "database.hpp"
#include "vitals/history.hpp"

namespace vitals::history {
namespace {

std::string trimmed(const char* message) {
    std::string s = message ? message : "";
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
    return s;
}

class PostgresqlDatabase final : public Database {
public:
    explicit PostgresqlDatabase(const std::string& uri) : shown_(shown_location(uri)) {
        connection_ = PQconnectdb(uri.c_str());
        if (connection_ == nullptr || PQstatus(connection_) != CONNECTION_OK) {
            const std::string why = connection_ ? without_secrets(trimmed(PQerrorMessage(connection_)), uri) : "out of memory";
            PQfinish(connection_);
            throw HistoryError(fmt::format("cannot connect to the history {}: {}; check that the server runs and accepts "
                                           "this user",
                                           shown_, why));
        }
        query("SET client_min_messages TO WARNING");  // no NOTICE lines for IF NOT EXISTS
    }
    ~PostgresqlDatabase() override { PQfinish(connection_); }

    const char* dialect() const override { return "postgresql"; }

    std::vector<Row> run(const std::string& sql, const std::vector<Text>& parameters) override {
        std::vector<const char*> values;
        for (const Text& p : parameters) values.push_back(p ? p->c_str() : nullptr);
        PGresult* result = PQexecParams(connection_, sql.c_str(), static_cast<int>(values.size()), nullptr, values.data(),
                                        nullptr, nullptr, 0);
        struct Clear {
            PGresult* r;
            ~Clear() { PQclear(r); }
        } clear{result};
        const ExecStatusType status = PQresultStatus(result);
        if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
            const std::string message = fmt::format("the history {}: {}", shown_, trimmed(PQresultErrorMessage(result)));
            // Connection lost, out of resources (a full disk), the server stopping or failing:
            // the database's failure, not the input's.
            const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
            const std::string_view kind = state != nullptr && std::strlen(state) >= 2 ? std::string_view(state, 2) : "";
            if (PQstatus(connection_) != CONNECTION_OK || kind == "08" || kind == "53" || kind == "57" || kind == "58") {
                throw HistoryFailure(message);
            }
            throw HistoryError(message);
        }
        std::vector<Row> rows;
        for (int r = 0; r < PQntuples(result); ++r) {
            Row row;
            for (int c = 0; c < PQnfields(result); ++c) {
                if (PQgetisnull(result, r, c)) {
                    row.emplace_back(std::nullopt);
                } else {
                    row.emplace_back(std::string(PQgetvalue(result, r, c), static_cast<std::size_t>(PQgetlength(result, r, c))));
                }
            }
            rows.push_back(std::move(row));
        }
        return rows;
    }

    // Writers take turns on one lock of the database: two first writers to an empty one
    // would otherwise race to create the same tables (CREATE TABLE IF NOT EXISTS is not
    // safe against a concurrent twin), and a run is short to write.
    void begin_write() override {
        query("BEGIN");
        query("SELECT pg_advisory_xact_lock(7438019251)");  // vitals' lock number, any constant
    }

    std::vector<std::string> tables() override {
        std::vector<std::string> out;
        for (const Row& row : query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")) {
            out.push_back(row[0].value_or(""));
        }
        return out;
    }

private:
    std::string shown_;
    PGconn* connection_ = nullptr;
};

}  // namespace

std::unique_ptr<Database> open_postgresql(const std::string& uri) { return std::make_unique<PostgresqlDatabase>(uri); }

}  // namespace vitals::history
