// Fuzzes the trace reader; whatever it accepts must survive a table and a round trip
// through our own writer (which must produce JSON the reader accepts).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>
#include <vitals/profiler/trace.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    vitals::profiler::Trace trace;
    try {
        trace = vitals::profiler::parse_chrome_trace(text, "fuzz.json");
    } catch (const std::runtime_error&) {
        return 0;  // a clear error for a bad trace
    }
    (void)trace.key_averages({.group_by_input_shape = true}).table({.sort_by = "self_cpu_time_total"});
    const std::string written = trace.chrome_trace_json();
    try {
        (void)vitals::profiler::parse_chrome_trace(written, "round-trip.json");
    } catch (const std::runtime_error&) {
        std::abort();  // we wrote a trace we cannot read back: a bug
    }
    return 0;
}
