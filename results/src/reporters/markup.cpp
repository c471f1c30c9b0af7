#include "vitals/results/markup.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_set>

namespace vitals {

namespace {

// A C0 control or DEL: what a terminal acts on (ESC starts a sequence, CR and LF
// move the cursor) and what ends a markdown row.
bool is_control(unsigned char u) { return u < 0x20 || u == 0x7f; }

// The length of the UTF-8 sequence at text[i] and its code point, or 0 when the bytes
// there are no valid sequence (a stray byte such as 0x9b, an 8-bit terminal's CSI).
std::size_t utf8_at(std::string_view text, std::size_t i, char32_t& code) {
    const auto u = static_cast<unsigned char>(text[i]);
    const std::size_t length = u >= 0xc2 && u <= 0xdf ? 2 : u >= 0xe0 && u <= 0xef ? 3 : u >= 0xf0 && u <= 0xf4 ? 4 : 0;
    if (length == 0 || i + length > text.size()) return 0;
    code = u & (0x7f >> length);
    for (std::size_t k = 1; k < length; ++k) {
        const auto c = static_cast<unsigned char>(text[i + k]);
        if ((c & 0xc0) != 0x80) return 0;
        code = (code << 6) | (c & 0x3f);
    }
    const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
    if (overlong || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return 0;
    return length;
}

// Code points a reader must see rather than have acted on: C1 controls (U+009B is a
// CSI too) and the bidirectional overrides and isolates that reorder what is shown.
bool is_hidden_control(char32_t code) {
    return (code >= 0x80 && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069);
}

// `text` with control characters as \xNN, C1 and bidirectional controls as \uNNNN,
// bytes that are no UTF-8 as \xNN; `pipes`: '|' as \| too (a markdown table cell).
std::string shown(std::string_view text, bool pipes) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
        const auto u = static_cast<unsigned char>(text[i]);
        if (u < 0x80) {
            if (is_control(u)) {
                out += fmt::format("\\x{:02x}", u);
            } else if (pipes && u == '|') {
                out += "\\|";
            } else {
                out += static_cast<char>(u);
            }
            ++i;
            continue;
        }
        char32_t code = 0;
        const std::size_t length = utf8_at(text, i, code);
        if (length == 0) {
            out += fmt::format("\\x{:02x}", u);
            ++i;
        } else if (is_hidden_control(code)) {
            out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(code));
            i += length;
        } else {
            out.append(text.substr(i, length));
            i += length;
        }
    }
    return out;
}

}  // namespace

std::string escape_html(std::string_view text) {
    std::string out;
    for (const char c : shown(text, false)) {
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

std::string escape_xml(std::string_view text) {
    std::string out;
    const std::string html = escape_html(text);  // valid UTF-8 now, with no C0 or C1 control
    for (std::size_t i = 0; i < html.size(); ++i) {
        // U+FFFE and U+FFFF (EF BF BE, EF BF BF) are valid UTF-8 that XML 1.0 forbids.
        if (i + 2 < html.size() && html.compare(i, 2, "\xef\xbf") == 0 &&
            (html[i + 2] == '\xbe' || html[i + 2] == '\xbf')) {
            out += html[i + 2] == '\xbe' ? "\\ufffe" : "\\uffff";
            i += 2;
            continue;
        }
        out += html[i];
    }
    return out;
}

std::string escape_markdown(std::string_view text) {
    std::string out;  // the markup escaped first, so that the \xNN of controls stay as they are
    for (const char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '|': case '\\': case '*': case '_': case '`': case '[': case ']': case '~':
                out += '\\';
                out += c;
                break;
            default: out += c;
        }
    }
    return shown(out, false);
}

std::string percent_change(double change) {
    if (!std::isfinite(change)) return "from 0";
    return fmt::format("{:+.2f}%", change * 100);
}

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
