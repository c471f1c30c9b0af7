#include "vitals/number_text.hpp"

#include <charconv>
#include <system_error>
#include <utility>

namespace vitals {
namespace {

// The number at the start of `text` (after one optional '+', which from_chars refuses)
// and how many characters it took; nullopt for none or one out of range.
std::optional<std::pair<double, std::size_t>> read_number(std::string_view text) {
    std::size_t skip = 0;
    if (!text.empty() && text.front() == '+') {
        skip = 1;
        if (text.size() > 1 && (text[1] == '-' || text[1] == '+')) return std::nullopt;  // "+-1" is no number
    }
    double value = 0;
    const char* first = text.data() + skip;
    const auto [end, error] = std::from_chars(first, text.data() + text.size(), value, std::chars_format::general);
    if (error != std::errc()) return std::nullopt;
    return std::pair{value, static_cast<std::size_t>(end - text.data())};
}

}  // namespace

std::optional<double> parse_double(std::string_view text) {
    const auto number = read_number(text);
    if (!number || number->second != text.size()) return std::nullopt;
    return number->first;
}

std::optional<double> parse_leading_double(std::string_view text) {
    const std::size_t start = text.find_first_not_of(" \t");
    if (start == std::string_view::npos) return std::nullopt;
    const auto number = read_number(text.substr(start));
    if (!number) return std::nullopt;
    return number->first;
}

std::string shortest_text(double value) {
    char text[64];
    const auto [end, error] = std::to_chars(text, text + sizeof text, value);
    return error == std::errc() ? std::string(text, end) : std::string("?");
}

}  // namespace vitals
