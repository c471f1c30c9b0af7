#include "vitals/cpu_info.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

namespace vitals {
namespace {

// Whether `line` is "KEY<blanks>: VALUE" for this key; the value, leading blanks dropped.
bool value_of(std::string_view line, std::string_view key, std::string_view& value) {
    if (line.substr(0, key.size()) != key) return false;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || line.find_first_not_of(" \t", key.size()) != colon) return false;
    value = line.substr(colon + 1);
    const auto first = value.find_first_not_of(' ');
    value = first == std::string_view::npos ? std::string_view() : value.substr(first);
    return true;
}

// Reads lines until the first CPU's three facts are found, so that reading /proc/cpuinfo
// stops there: the kernel writes the rest (every other CPU's) only when it is read.
class Reader {
public:
    // False once nothing more is wanted.
    bool feed(std::string_view line) {
        std::string_view value;
        if (!model_ && value_of(line, "model name", value)) {
            info_.model = std::string(value);
            model_ = true;
        } else if (!mhz_ && value_of(line, "cpu MHz", value)) {
            double v = 0;
            if (std::from_chars(value.data(), value.data() + value.size(), v).ec == std::errc()) info_.mhz = v;
            mhz_ = true;
        } else if (!flags_ && value_of(line, "flags", value)) {
            std::istringstream words{std::string(value)};
            bool constant = false, nonstop = false;
            for (std::string w; words >> w;) {
                constant = constant || w == "constant_tsc";
                nonstop = nonstop || w == "nonstop_tsc";
            }
            info_.invariant_tsc = constant && nonstop;
            flags_ = true;
        }
        return !(model_ && mhz_ && flags_);
    }
    const CpuInfo& info() const { return info_; }

private:
    CpuInfo info_;
    bool model_ = false, mhz_ = false, flags_ = false;
};

}  // namespace

CpuInfo parse_cpu_info(std::string_view text) {
    Reader reader;
    while (!text.empty()) {
        const auto end = text.find('\n');
        if (!reader.feed(text.substr(0, end))) break;
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    }
    return reader.info();
}

CpuInfo cpu_info() {
    std::ifstream in("/proc/cpuinfo");
    Reader reader;
    for (std::string line; std::getline(in, line) && reader.feed(line);) {
    }
    return reader.info();
}

}  // namespace vitals
