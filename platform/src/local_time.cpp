#include "vitals/local_time.hpp"

#include <ctime>

namespace vitals {

std::string now_iso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char buffer[64];
    const std::size_t length = std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S%z", &local);
    if (length <= 5) return std::string(buffer, length);
    // +0000 -> +00:00, by appends: GCC 12 misreads an insert into the middle of the
    // string as an overlapping copy (-Wrestrict).
    std::string text(buffer, length - 2);
    text += ':';
    text.append(buffer + length - 2, 2);
    return text;
}

}  // namespace vitals
