// The cache file's figures read back, for the cache's own messages (from_json puts the
// file's name and the --refresh hint around the reason). Internal.
#pragma once

#include <string_view>

#include "vitals/machine.hpp"

namespace vitals::machine::detail {

// Throws (std::exception of any kind) with the bare reason: a parse error, a missing or
// wrong field, figures check_plausible refuses.
Limits figures_from_json(std::string_view text);

}  // namespace vitals::machine::detail
