// gzip framing for traces, in bounded chunks (zlib's counts are 32-bit), so traces of
// any size go through whole.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace vitals::profiler::detail {
// The bytes of a .gz file holding `data`.
std::string gzip_compress(std::string_view data);
// Whether bytes start as a gzip stream does (1f 8b).
bool looks_gzipped(std::string_view bytes);
// The data a .gz file holds (several members are joined, as gunzip does). Throws
// std::runtime_error naming `name` for a corrupt stream, or one that expands past
// max_bytes (a "zip bomb"), with `past_cap` after the cap in the message. Memory stays
// within max_bytes and one 1 MiB buffer however far the stream would expand.
std::string gzip_decompress(std::string_view bytes, const std::string& name, std::size_t max_bytes,
                            std::string_view past_cap = {});

// The most bytes a gzipped trace may expand to: VITALS_MAX_TRACE_BYTES when set (a whole
// number of bytes, K/M/G suffixes for KiB/MiB/GiB), otherwise kDefaultMaxTraceBytes.
// Throws std::invalid_argument naming the variable for a value that is not one.
constexpr std::size_t kDefaultMaxTraceBytes = std::size_t{1} << 30;
std::size_t max_trace_bytes();
}  // namespace vitals::profiler::detail
