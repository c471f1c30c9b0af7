// Fuzzes the command line: every argument vector ends in a clean exit code (0, 1, 2)
// and never a crash. Inputs that would write files (output options) are skipped, and
// arguments with '/' are dropped, so fuzzing writes nothing anywhere.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>
#include <vitals/vitals.hpp>

namespace {
vitals::Registry& registry() {
    static vitals::Registry* r = [] {
        auto* reg = new vitals::Registry;
        // Runs nothing (skipped at once), so every command gets past case lookup quickly.
        reg->add({"fuzz/skipped", []() -> vitals::Timer { throw vitals::SkipCase("fuzzing"); }});
        return reg;
    }();
    return *r;
}
}  // namespace

// Run with -close_fd_mask=3 to silence the commands' own output.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> args{"vitals"};
    std::string current;
    for (std::size_t i = 0; i < size && args.size() < 12; ++i) {
        const char c = static_cast<char>(data[i]);
        if (c == '\n') {
            if (current.find('/') == std::string::npos) args.push_back(current);
            current.clear();
        } else if (current.size() < 64) {
            current += c;
        }
    }
    if (!current.empty() && current.find('/') == std::string::npos && args.size() < 12) args.push_back(current);
    // Keep runs short: no measuring for long, no profiling of many steps, and not this
    // machine's limits (`machine`, `--roofline`: seconds of measuring, and a cache file
    // written). Compared as C strings: argv ends an argument at its first NUL.
    for (const std::string& a : args) {
        const std::string_view as_given(a.c_str());
        if (as_given == "machine" || as_given.find("--roofline") == 0 || as_given.find("--refresh") == 0) return 0;
        if (a.find("--min-run-time") == 0 || a.find("--max-run-time") == 0 || a.find("--steps") == 0 ||
            a.find("--number") == 0 || a.find("--instructions") == 0) {
            return 0;
        }
        // Workers are this program started again: here, the fuzzer itself.
        if (a.find("--processes") == 0) return 0;
        // Options that write files ("-o..." covers "-oFILE" and short-option bundles).
        if (a.find("--json") == 0 || a.find("--trace") == 0 || a.find("--html") == 0 || a.find("--markdown") == 0 ||
            a.find("--output") == 0 || a.find("-o") == 0) {
            return 0;
        }
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    const int code = vitals::run_main(static_cast<int>(args.size()), argv.data(), registry());
    if (code != 0 && code != 1 && code != 2) std::abort();
    return 0;
}
