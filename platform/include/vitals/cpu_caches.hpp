// The caches of core 0 as the kernel describes them in /sys: one instance each, as this
// core sees it (glibc's sysconf reads CPUID, which in a virtual machine can give the
// host's whole L3, every chiplet's added up).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace vitals {

// A cache of core 0 as /sys describes it.
struct CacheInfo {
    std::string type;  // "Data", "Instruction" or "Unified"
    int level = 0;
    std::int64_t bytes = 0;
    int cores_sharing = 1;
};
// Every cache of core 0, instruction caches included, in /sys's order (what a results
// file's context lists); empty where /sys does not say.
std::vector<CacheInfo> core0_caches();

}  // namespace vitals
