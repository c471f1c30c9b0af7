// How deeply a JSON text nests, found by one linear scan (strings skipped), so a reader
// can refuse a hostile document before parsing it: nlohmann's parser is iterative, but
// freeing a deep document recurses, and its depth-checking callback slows parsing many
// times over.
#pragma once

#include <cstddef>
#include <string_view>

namespace vitals {

// The deepest nesting of '[' and '{' in `text`, outside strings.
std::size_t json_nesting_depth(std::string_view text);

}  // namespace vitals
