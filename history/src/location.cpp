// Where a history lives: a PostgreSQL URI or a SQLite file's path; how messages show it.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "database.hpp"
#include "vitals/history.hpp"

namespace vitals::history {
namespace {

bool is_postgresql_uri(const std::string& location) {
    return location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0;
}

// A URI's %XX escapes decoded (a parameter's name may be written escaped).
std::string percent_decoded(std::string_view text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
        if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) && hex(text[i + 2])) {
            out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
            i += 2;
        } else {
            out += text[i];
        }
    }
    return out;
}

// libpq's parameters whose values are secrets.
bool secret_parameter(std::string_view name) {
    const std::string key = percent_decoded(name);
    return key == "password" || key == "sslpassword";
}

// Where a URI's secrets lie: the password of its user part, which ends at the last '@'
// before the parameters (so a raw '@' in it, which libpq would misread, is inside too),
// and the value of each password= or sslpassword= parameter. [begin, end) in the URI.
std::vector<std::pair<std::size_t, std::size_t>> secret_spans(const std::string& uri) {
    std::vector<std::pair<std::size_t, std::size_t>> spans;
    const std::size_t authority = uri.find("://") + 3;
    const std::size_t query = std::min(uri.find('?', authority), uri.size());
    const std::size_t at = uri.rfind('@', query == 0 ? 0 : query - 1), colon = uri.find(':', authority);
    if (at != std::string::npos && at >= authority && colon < at) spans.emplace_back(colon + 1, at);
    for (std::size_t start = query + 1; start < uri.size();) {
        const std::size_t end = std::min(uri.find('&', start), uri.size());
        const std::size_t equals = uri.find('=', start);
        if (equals < end && secret_parameter(std::string_view(uri).substr(start, equals - start))) {
            spans.emplace_back(equals + 1, end);
        }
        start = end + 1;
    }
    return spans;
}

}  // namespace

std::string shown_location(const std::string& location) {
    if (!is_postgresql_uri(location)) return location;
    std::string out;
    std::size_t from = 0;
    for (const auto& [begin, end] : secret_spans(location)) {
        out += location.substr(from, begin - from) + "***";
        from = end;
    }
    return out + location.substr(from);
}

std::string without_secrets(std::string text, const std::string& uri) {
    if (!is_postgresql_uri(uri)) return text;
    std::vector<std::string> secrets;
    for (const auto& [begin, end] : secret_spans(uri)) {
        secrets.push_back(uri.substr(begin, end - begin));
        secrets.push_back(percent_decoded(secrets.back()));
    }
    for (const std::string& secret : secrets) {
        if (secret.empty()) continue;
        for (std::size_t found = text.find(secret); found != std::string::npos; found = text.find(secret, found + 3)) {
            text.replace(found, secret.size(), "***");
        }
    }
    return text;
}

void check_postgresql_uri(const std::string& uri) {
    const std::size_t authority = uri.find("://") + 3;
    const std::size_t query = std::min(uri.find('?', authority), uri.size());
    const std::string_view head(uri.data() + authority, query - authority);
    const std::size_t ats = static_cast<std::size_t>(std::count(head.begin(), head.end(), '@'));
    const std::size_t first_at = head.find('@'), first_slash = head.find('/');
    // libpq ends the user part at the first '@' or '/': a raw one in a password would make
    // the rest of it the host's name, and show it in libpq's messages.
    if (ats > 1 || (ats == 1 && first_slash < first_at)) {
        throw HistoryError(fmt::format("the history {}: the user name or password holds a raw '@' or '/', which libpq "
                                       "reads as the end of it; write them escaped, as %40 and %2F",
                                       shown_location(uri)));
    }
}

std::unique_ptr<Database> open_database(const std::string& location, Access access) {
    if (is_postgresql_uri(location)) {
        check_postgresql_uri(location);
        return open_postgresql(location);
    }
    if (location.empty()) throw HistoryError("give the history: --db results.sqlite, or --db postgresql://user@host/db");
    return open_sqlite(location, access);
}

}  // namespace vitals::history
