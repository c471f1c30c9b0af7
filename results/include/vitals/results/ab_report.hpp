// An interleaved A/B comparison (vitals::ab) as text and as JSON.
#pragma once

#include <string>

#include "vitals/ab.hpp"

namespace vitals {

// The table `vitals ab` prints: per alternative its median per call, the ratio to the
// first with its 95% interval, the sign test's p-value and the verdict; a heading with
// the rounds, the order and why it stopped; a footer saying what the figures are.
std::string render_ab_text(const AbResult& result);

// The comparison as a document: the results files' `context`, then `vitals_ab` with the
// options, why it stopped, each alternative's figures and every round's block times
// (docs/before-and-after.md, "Interleaved A/B").
std::string ab_to_json(const AbResult& result, const std::string& executable);

}  // namespace vitals
