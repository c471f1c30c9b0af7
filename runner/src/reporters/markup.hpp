// What the HTML and markdown reporters share: escaping, and the cases of several runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vitals/results.hpp"

namespace vitals {

std::string escape_html(std::string_view text);
std::string escape_markdown(std::string_view text);
// Case names in first-seen order across all runs.
std::vector<std::string> case_names(const std::vector<NamedResults>& runs);

}  // namespace vitals
