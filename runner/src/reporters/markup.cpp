#include "markup.hpp"

#include <algorithm>

namespace vitals {

std::string escape_html(std::string_view text) {
    std::string out;
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string escape_markdown(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '|' || c == '\\' || c == '*' || c == '_' || c == '`') out += '\\';
        out += c;
    }
    return out;
}

std::vector<std::string> case_names(const std::vector<NamedResults>& files) {
    std::vector<std::string> names;
    for (const auto& [file, cases] : files) {
        for (const CaseSamples& c : cases) {
            if (std::find(names.begin(), names.end(), c.name) == names.end()) names.push_back(c.name);
        }
    }
    return names;
}

}  // namespace vitals
