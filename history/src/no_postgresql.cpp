// A build without libpq: PostgreSQL locations are refused with the way to get them.
#include "database.hpp"
#include "vitals/history.hpp"

namespace vitals::history {

std::unique_ptr<Database> open_postgresql(const std::string&) {
    throw HistoryError("cannot connect to the history: this vitals was built without PostgreSQL; install libpq-dev and "
                       "rebuild, or give a SQLite file (--db results.sqlite)");
}

}  // namespace vitals::history
