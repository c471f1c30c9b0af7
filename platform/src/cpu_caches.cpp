#include "vitals/cpu_caches.hpp"

#include <cstdlib>
#include <fstream>
#include <string>

namespace vitals {
namespace {

std::string first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// "48K", "2048K", "260M" -> bytes; 0 when unreadable.
std::int64_t parse_size(const std::string& text) {
    char* end = nullptr;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (end == text.c_str() || value <= 0) return 0;
    switch (*end) {
        case 'K': return value << 10;
        case 'M': return value << 20;
        case 'G': return value << 30;
        default: return value;
    }
}

// "0-3" -> 4, "0,2" -> 2, "5" -> 1.
int count_cpus(const std::string& list) {
    int count = 0;
    std::size_t pos = 0;
    while (pos < list.size()) {
        const std::size_t comma = list.find(',', pos);
        const std::string part = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (const std::size_t dash = part.find('-'); dash != std::string::npos) {
            count += std::atoi(part.c_str() + dash + 1) - std::atoi(part.c_str()) + 1;
        } else if (!part.empty()) {
            ++count;
        }
        if (comma == std::string::npos) break;
        pos = comma + 1;
    }
    return count > 0 ? count : 1;
}

}  // namespace

std::vector<CacheInfo> core0_caches() {
    std::vector<CacheInfo> caches;
    for (int index = 0;; ++index) {
        const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
        const std::string type = first_line(dir + "type");
        if (type.empty()) break;
        caches.push_back({type, std::atoi(first_line(dir + "level").c_str()), parse_size(first_line(dir + "size")),
                          count_cpus(first_line(dir + "shared_cpu_list"))});
    }
    return caches;
}

}  // namespace vitals
