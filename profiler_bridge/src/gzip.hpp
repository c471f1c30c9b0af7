#pragma once

#include <string>
#include <string_view>

namespace vitals::profiler::detail {
// The bytes of a .gz file holding `data` (zlib, gzip framing).
std::string gzip_compress(std::string_view data);
}  // namespace vitals::profiler::detail
