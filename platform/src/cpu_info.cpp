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

}  // namespace

CpuInfo parse_cpu_info(std::string_view text) {
    CpuInfo info;
    bool model = false, mhz = false, flags = false;
    while (!text.empty() && !(model && mhz && flags)) {
        const auto end = text.find('\n');
        const std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
        std::string_view value;
        if (!model && value_of(line, "model name", value)) {
            info.model = std::string(value);
            model = true;
        } else if (!mhz && value_of(line, "cpu MHz", value)) {
            double v = 0;
            if (std::from_chars(value.data(), value.data() + value.size(), v).ec == std::errc()) info.mhz = v;
            mhz = true;
        } else if (!flags && value_of(line, "flags", value)) {
            std::istringstream words{std::string(value)};
            bool constant = false, nonstop = false;
            for (std::string w; words >> w;) {
                constant = constant || w == "constant_tsc";
                nonstop = nonstop || w == "nonstop_tsc";
            }
            info.invariant_tsc = constant && nonstop;
            flags = true;
        }
    }
    return info;
}

CpuInfo cpu_info() {
    std::ifstream in("/proc/cpuinfo");
    std::ostringstream text;
    text << in.rdbuf();
    return parse_cpu_info(text.str());
}

}  // namespace vitals
