// The time as files state it.
#pragma once

#include <string>

namespace vitals {

// Now, as ISO 8601 local time with the offset ("2026-12-04T15:30:00+00:00"), the form of
// Google Benchmark's `date`.
std::string now_iso8601();

}  // namespace vitals
