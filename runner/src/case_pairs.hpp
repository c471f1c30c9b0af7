// compare's --pair BEFORE=AFTER: cases of different names compared with each other.
// Internal to the runner.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "vitals/results.hpp"

namespace vitals::cli {

// The (before name, after name) pairs that the specs name. A spec is BEFORE=AFTER with
// literal names, or with '*' wildcards ('*-before=*-after'): each before case matching
// the left side pairs with the right side where each '*' takes what the left one matched.
// UsageError for a spec without one '=', different wildcard counts, a literal name absent
// from its file (naming its near matches), a wildcard matching no case, a paired name
// absent from the after file, or a case in two pairs.
std::vector<std::pair<std::string, std::string>> resolve_pairs(const std::vector<std::string>& specs,
                                                                const std::vector<CaseSamples>& before,
                                                                const std::vector<CaseSamples>& after);

// The name a pair is compared under: "BEFORE -> AFTER".
std::string pair_name(const std::pair<std::string, std::string>& pair);

// The two sides with each pair's cases renamed to its pair_name; every other case named in
// a pair, on either side, is left out (a file holding both variants pairs them, rather
// than listing each as added or removed).
void apply_pairs(const std::vector<std::pair<std::string, std::string>>& pairs, std::vector<CaseSamples>& before,
                 std::vector<CaseSamples>& after);

}  // namespace vitals::cli
