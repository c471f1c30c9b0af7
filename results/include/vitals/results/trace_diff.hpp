// `vitals compare` of two traces: self CPU time per operator, before and after.
#pragma once

#include <string>

namespace vitals {

// Whether a file is a Chrome trace (a profile) rather than a results file.
bool looks_like_trace(const std::string& path);
// Per operator, self CPU time before, after and the change, sorted by absolute change.
std::string profile_diff_report(const std::string& before_path, const std::string& after_path);

}  // namespace vitals
