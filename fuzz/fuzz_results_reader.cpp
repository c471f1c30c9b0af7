// Fuzzes the results-file reader (ours and Google Benchmark's layout) and the reports
// drawn from whatever it accepts.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vitals/vitals.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const std::vector<vitals::CaseSamples> cases = vitals::parse_results(text, "fuzz.json");
        (void)vitals::html_report({{"before", cases}, {"after", cases}});
        (void)vitals::markdown_report({{"one", cases}});
    } catch (const vitals::ResultsFileError&) {
        // a clear error is the right answer to a bad file
    }
    return 0;
}
