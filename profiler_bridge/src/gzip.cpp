#include "gzip.hpp"

#include <zlib.h>

#include <stdexcept>

namespace vitals::profiler::detail {

std::string gzip_compress(std::string_view data) {
    z_stream stream{};
    constexpr int kGzipWindowBits = 15 + 16;  // 32 KiB window, gzip header and trailer
    if (deflateInit2(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, kGzipWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        throw std::runtime_error("gzip: cannot initialise zlib");
    }
    std::string out(deflateBound(&stream, static_cast<uLong>(data.size())), '\0');
    stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    stream.avail_in = static_cast<uInt>(data.size());
    stream.next_out = reinterpret_cast<Bytef*>(out.data());
    stream.avail_out = static_cast<uInt>(out.size());
    const int status = deflate(&stream, Z_FINISH);
    const std::size_t written = stream.total_out;
    deflateEnd(&stream);
    if (status != Z_STREAM_END) throw std::runtime_error("gzip: compression failed");
    out.resize(written);
    return out;
}

}  // namespace vitals::profiler::detail
