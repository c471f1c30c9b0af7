#include "markup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <unordered_set>

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

std::string percent_change(double change) {
    if (!std::isfinite(change)) return "from 0";
    return fmt::format("{:+.2f}%", change * 100);
}

namespace {
std::string shown(std::string_view text, bool pipes) {
    std::string out;
    for (const char c : text) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f) {
            out += fmt::format("\\x{:02x}", u);
        } else if (pipes && c == '|') {
            out += "\\|";
        } else {
            out += c;
        }
    }
    return out;
}
}  // namespace

std::string terminal_safe(std::string_view text) { return shown(text, false); }

std::string markdown_code(std::string_view text) {
    const std::string body = shown(text, true);
    std::size_t longest = 0, run = 0;
    for (const char c : body) {
        run = c == '`' ? run + 1 : 0;
        longest = std::max(longest, run);
    }
    const std::string fence(longest + 1, '`');
    const bool pad = !body.empty() && (body.front() == '`' || body.back() == '`');
    return fence + (pad ? " " : "") + body + (pad ? " " : "") + fence;
}

CaseIndex::CaseIndex(const std::vector<NamedResults>& runs) : by_run_(runs.size()) {
    for (std::size_t r = 0; r < runs.size(); ++r) {
        for (const CaseSamples& c : runs[r].second) by_run_[r].emplace(c.name, &c);
    }
}

const CaseSamples* CaseIndex::find(std::size_t run, std::string_view name) const {
    const auto it = by_run_[run].find(name);
    return it == by_run_[run].end() ? nullptr : it->second;
}

std::vector<std::string> case_names(const std::vector<NamedResults>& files) {
    std::vector<std::string> names;
    std::unordered_set<std::string_view> seen;
    for (const auto& [file, cases] : files) {
        for (const CaseSamples& c : cases) {
            if (seen.insert(c.name).second) names.push_back(c.name);
        }
    }
    return names;
}

}  // namespace vitals
