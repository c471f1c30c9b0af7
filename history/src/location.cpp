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

}  // namespace

std::string shown_location(const std::string& location) {
    if (!is_postgresql_uri(location)) return location;
    const std::size_t authority = location.find("://") + 3;
    const std::size_t query = std::min(location.find('?', authority), location.size());
    // The user part ends at the last '@' before the parameters: a raw '@' in a password
    // (which libpq would misread) leaves none of it shown either.
    std::string out = location.substr(0, query);
    const std::size_t at = out.rfind('@');
    if (at != std::string::npos && at >= authority) {
        const std::size_t colon = out.find(':', authority);
        if (colon < at) out = out.substr(0, colon) + ":***" + out.substr(at);
    }
    if (query == location.size()) return out;
    out += '?';
    std::size_t start = query + 1;
    while (start <= location.size()) {
        const std::size_t end = std::min(location.find('&', start), location.size());
        const std::string_view parameter(location.data() + start, end - start);
        const std::size_t equals = parameter.find('=');
        if (equals != std::string_view::npos && secret_parameter(parameter.substr(0, equals))) {
            out += std::string(parameter.substr(0, equals)) + "=***";
        } else {
            out += std::string(parameter);
        }
        if (end == location.size()) break;
        out += '&';
        start = end + 1;
    }
    return out;
}

std::string without_secrets(std::string text, const std::string& uri) {
    if (!is_postgresql_uri(uri)) return text;
    std::vector<std::string> secrets;
    const std::size_t authority = uri.find("://") + 3;
    const std::size_t query = std::min(uri.find('?', authority), uri.size());
    const std::string head = uri.substr(0, query);
    const std::size_t at = head.rfind('@'), colon = head.find(':', authority);
    if (at != std::string::npos && at >= authority && colon < at) secrets.push_back(head.substr(colon + 1, at - colon - 1));
    for (std::size_t start = query + 1; start < uri.size();) {
        const std::size_t end = std::min(uri.find('&', start), uri.size());
        const std::string parameter = uri.substr(start, end - start);
        const std::size_t equals = parameter.find('=');
        if (equals != std::string::npos && secret_parameter(parameter.substr(0, equals))) secrets.push_back(parameter.substr(equals + 1));
        start = end + 1;
    }
    for (std::size_t i = 0, n = secrets.size(); i < n; ++i) secrets.push_back(percent_decoded(secrets[i]));
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
