// What the HTML and markdown reporters share: escaping, and the cases of several runs.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "vitals/results.hpp"

namespace vitals {

std::string escape_html(std::string_view text);
std::string escape_markdown(std::string_view text);
// A relative change as "+1.23%", or "from 0" when the before median was zero (infinite).
std::string percent_change(double change);
// Text for a markdown table cell as inline code: '|' escaped, line breaks and control
// characters shown as \xNN, and a backtick fence longer than any run inside, so a
// name can neither end the code span nor start a row.
std::string markdown_code(std::string_view text);
// Text for a terminal: control characters (escape sequences, line breaks) shown as
// \xNN, so names read from files cannot move the cursor or forge lines.
std::string terminal_safe(std::string_view text);

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
