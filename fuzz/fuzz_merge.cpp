// Fuzzes merge's input: any file given to `vitals merge` ends in a joined document or a
// clear ResultsFileError, never a crash, a stack overflow (deep nesting) or a blow-up.
// The same file is read as a `run --processes` worker's results, the other reader of a path.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vitals/vitals.hpp>

namespace {
// The input as a file, in the temporary folder (TMPDIR), removed when the fuzzer exits.
struct InputFile {
    std::string path = (std::filesystem::temp_directory_path() / ("vitals-fuzz-merge-" + std::to_string(::getpid()) + ".json")).string();
    ~InputFile() { std::remove(path.c_str()); }
};
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static const InputFile input;
    const std::string& path = input.path;
    if (std::FILE* f = std::fopen(path.c_str(), "wb")) {
        std::fwrite(data, 1, size, f);
        std::fclose(f);
    }
    try {
        const std::string merged = vitals::merge_results({path});
        if (merged.size() > 64 * size + 4096) __builtin_trap();  // output grows with input, not faster
        (void)vitals::parse_results(merged, "merged");
    } catch (const vitals::ResultsFileError&) {
        // a clear error is the right answer to a bad file
    }
    try {
        (void)vitals::read_case_results(path);
    } catch (const vitals::ResultsFileError&) {
    }
    return 0;
}
