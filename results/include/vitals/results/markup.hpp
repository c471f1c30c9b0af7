// What the reporters share: escaping for each target, and the cases of several runs.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vitals/results.hpp"

namespace vitals {

// One escaping function per target, for every name, label and message read from a
// file. All show control characters (ESC, CR, LF...) as \xNN, C1 and bidirectional
// controls as \uNNNN and bytes that are no UTF-8 as \xNN, so that no text can move a
// cursor, forge a line or row, or reorder what is shown.

// Text for HTML content and attribute values: also & < > " ' as entities.
std::string escape_html(std::string_view text);
// Text for XML 1.0 content and attribute values (JUnit files): as escape_html, and
// U+FFFE and U+FFFF, which XML 1.0 forbids, as \uNNNN too, so that any name gives a
// well-formed document.
std::string escape_xml(std::string_view text);
// Prose for a markdown line or table cell: also < > & as HTML entities (no HTML tag
// passes), and \ ` * _ | [ ] ~ backslash-escaped (no emphasis, code, link or cell end).
std::string escape_markdown(std::string_view text);
// Text for a markdown table cell as inline code: '|' escaped, and a backtick fence
// longer than any run inside, so a name can neither end the code span nor start a row.
std::string markdown_code(std::string_view text);
// Text for a terminal.
std::string terminal_safe(std::string_view text);
// A relative change as "+1.23%", or "from 0" when the before median was zero (infinite).
std::string percent_change(double change);

// Each run's cases by name, so that a report of n cases costs about n lookups.
class CaseIndex {
public:
    explicit CaseIndex(const std::vector<NamedResults>& runs);
    // The case of that name in run `run`, or nullptr.
    const CaseSamples* find(std::size_t run, std::string_view name) const;

private:
    std::vector<std::unordered_map<std::string_view, const CaseSamples*>> by_run_;
};

// Case names in first-seen order across all runs.
std::vector<std::string> case_names(const std::vector<NamedResults>& runs);

}  // namespace vitals
