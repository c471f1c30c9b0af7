#include "vitals/local_time.hpp"

#include <ctime>

namespace vitals {

std::string now_iso8601() {
    const std::time_t now = std::time(nullptr);
    std::tm local{};
    localtime_r(&now, &local);
    char buffer[64];
    const std::size_t length = std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%S%z", &local);
    std::string text(buffer, length);
    if (text.size() > 5) text.insert(text.size() - 2, ":");  // +0000 -> +00:00
    return text;
}

}  // namespace vitals
