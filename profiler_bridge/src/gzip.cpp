#include "gzip.hpp"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace vitals::profiler::detail {
namespace {

constexpr int kGzipWindowBits = 15 + 16;            // 32 KiB window, gzip header and trailer
constexpr std::size_t kChunk = std::size_t{1} << 30;  // bytes handed to zlib per call: fits its uInt

}  // namespace

std::string gzip_compress(std::string_view data) {
    z_stream stream{};
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        throw std::runtime_error("gzip: cannot initialise zlib");
    }
    std::string out;
    std::size_t consumed = 0;
    int status = Z_OK;
    std::string buffer(std::size_t{1} << 20, '\0');
    do {
        const std::size_t in = std::min(kChunk, data.size() - consumed);
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data() + consumed));
        stream.avail_in = static_cast<uInt>(in);
        const int flush = consumed + in == data.size() ? Z_FINISH : Z_NO_FLUSH;
        do {
            stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
            stream.avail_out = static_cast<uInt>(buffer.size());
            status = deflate(&stream, flush);
            if (status == Z_STREAM_ERROR) break;
            out.append(buffer.data(), buffer.size() - stream.avail_out);
        } while (stream.avail_out == 0);
        consumed += in - stream.avail_in;
    } while (status != Z_STREAM_END && status != Z_STREAM_ERROR);
    deflateEnd(&stream);
    if (status != Z_STREAM_END) throw std::runtime_error("gzip: compression failed");
    return out;
}

bool looks_gzipped(std::string_view bytes) {
    return bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
}

std::string gzip_decompress(std::string_view bytes, const std::string& name, std::size_t max_bytes,
                            std::string_view past_cap) {
    z_stream stream{};
    if (inflateInit2(&stream, kGzipWindowBits) != Z_OK) throw std::runtime_error("gzip: cannot initialise zlib");
    std::string out;
    std::string buffer(std::size_t{1} << 20, '\0');
    std::size_t consumed = 0;
    const auto fail = [&](const std::string& why) {
        inflateEnd(&stream);
        throw std::runtime_error(fmt::format("cannot read '{}': {}", name, why));
    };
    while (consumed < bytes.size()) {
        const std::size_t in = std::min(kChunk, bytes.size() - consumed);
        stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + consumed));
        stream.avail_in = static_cast<uInt>(in);
        int status = Z_OK;
        do {
            stream.next_out = reinterpret_cast<Bytef*>(buffer.data());
            stream.avail_out = static_cast<uInt>(buffer.size());
            status = inflate(&stream, Z_NO_FLUSH);
            if (status != Z_OK && status != Z_STREAM_END && status != Z_BUF_ERROR) {
                fail(fmt::format("the gzip data is corrupt ({})", stream.msg != nullptr ? stream.msg : "zlib error"));
            }
            // Refused before the text grows past the cap, and never given room past it: a
            // gzip bomb costs at most the cap (and one copy while it grows), not twice it.
            const std::size_t produced = buffer.size() - stream.avail_out;
            if (out.size() + produced > max_bytes) fail(fmt::format("it expands past {} bytes{}", max_bytes, past_cap));
            if (out.size() + produced > out.capacity()) {
                out.reserve(std::min(max_bytes, std::max(out.size() + produced, 2 * out.capacity())));
            }
            out.append(buffer.data(), produced);
            if (status == Z_STREAM_END) break;
        } while (stream.avail_out == 0 || stream.avail_in > 0);
        consumed += in - stream.avail_in;
        if (status == Z_STREAM_END) {
            if (consumed == bytes.size()) break;
            inflateReset(&stream);  // another member follows
        } else if (stream.avail_in == 0 && consumed == bytes.size()) {
            fail("the gzip data ends early");
        }
    }
    inflateEnd(&stream);
    return out;
}

}  // namespace vitals::profiler::detail

namespace vitals::profiler::detail {

std::size_t max_trace_bytes() {
    const char* text = std::getenv("VITALS_MAX_TRACE_BYTES");
    if (text == nullptr || *text == '\0') return kDefaultMaxTraceBytes;
    const std::string_view value(text);
    std::size_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    std::size_t scale = 1;
    const std::string_view unit(end, static_cast<std::size_t>(value.data() + value.size() - end));
    if (unit == "K") scale = std::size_t{1} << 10;
    if (unit == "M") scale = std::size_t{1} << 20;
    if (unit == "G") scale = std::size_t{1} << 30;
    const bool unit_known = unit.empty() || scale > 1;
    if (error != std::errc() || end == value.data() || !unit_known || number == 0 ||
        number > std::numeric_limits<std::size_t>::max() / scale) {
        throw std::invalid_argument(fmt::format(
            "VITALS_MAX_TRACE_BYTES='{}' is not a size; give a whole number of bytes above 0, optionally with K, M or G "
            "(KiB, MiB, GiB), e.g. VITALS_MAX_TRACE_BYTES=4G",
            value));
    }
    return number * scale;
}

}  // namespace vitals::profiler::detail
