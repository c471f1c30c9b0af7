// Reports of results files for people: one self-contained HTML page (inline SVG box
// plots, no scripts) and markdown for pull requests. Internal to the runner.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "vitals/results.hpp"

namespace vitals::detail {

using NamedResults = std::pair<std::string, std::vector<CaseSamples>>;

// With two files, the second is "after" the first: verdicts and changes are shown.
std::string html_report(const std::vector<NamedResults>& files);
std::string markdown_report(const std::vector<NamedResults>& files);

}  // namespace vitals::detail
