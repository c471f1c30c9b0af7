// Fuzzes --filter: any pattern selects cases or is refused with exit 2, in linear time
// (RE2), never a crash or a hang, over a registry of many names.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vitals/vitals.hpp>

namespace {
vitals::Registry& registry() {
    static vitals::Registry* r = [] {
        auto* reg = new vitals::Registry;
        for (int i = 0; i < 64; ++i) {
            reg->add({"op" + std::to_string(i % 7) + "/" + std::to_string(i) + "x" + std::to_string(64 - i) + "/cpu-f32",
                      []() -> vitals::Timer { throw vitals::SkipCase("fuzzing"); }});
        }
        return reg;
    }();
    return *r;
}
}  // namespace

// Run with -close_fd_mask=3 to silence the listing.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string pattern(reinterpret_cast<const char*>(data), size);
    if (pattern.find('\0') != std::string::npos) return 0;  // not an argument a shell can pass
    std::string list = "list", flag = "--filter", program = "vitals";
    char* argv[] = {program.data(), list.data(), flag.data(), pattern.data(), nullptr};
    const int code = vitals::run_main(4, argv, registry());
    if (code != 0 && code != 2) std::abort();
    return 0;
}
