// Fuzzes profiler schedules: any five counts either validate or are refused with a
// clear error, and asking an action of any schedule never crashes.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vitals/profiler/profile.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::int64_t v[6] = {};
    std::memcpy(v, data, std::min(size, sizeof v));
    const vitals::profiler::Schedule s{v[0], v[1], v[2], v[3], v[4]};
    bool valid = true;
    try {
        s.validate();
    } catch (const std::invalid_argument&) {
        valid = false;
    }
    for (std::int64_t step = 0; step < 64; ++step) (void)s.action(step);
    (void)s.action(v[5]);
    if (valid && s.action(s.skip_first + s.wait + s.warmup + s.active - 1) != vitals::profiler::ProfilerAction::record_and_save) {
        __builtin_trap();  // the last active step of the first cycle must save
    }
    return 0;
}
