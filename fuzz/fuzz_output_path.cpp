// Fuzzes output paths: checking any path (and any path against inputs) ends in success or
// a clear std::runtime_error, and never creates, replaces or removes anything.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vitals/atomic_file.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string path(reinterpret_cast<const char*>(data), size);
    if (path.find('\0') != std::string::npos) return 0;  // not a path a shell can pass
    try {
        vitals::check_output_path(path);
    } catch (const std::runtime_error&) {
    }
    try {
        vitals::check_outputs_are_not_inputs({path}, {path, "/dev/null", "."});
    } catch (const std::runtime_error&) {
    }
    return 0;
}
