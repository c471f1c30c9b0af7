// How every JSON document of results is written. Internal to the results part.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace vitals {

// Indented, with a final newline; invalid UTF-8 in names or paths becomes U+FFFD instead
// of failing the whole document at the end of a run.
std::string dump_document(const nlohmann::json& document);

}  // namespace vitals
