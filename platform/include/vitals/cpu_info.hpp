// What /proc/cpuinfo says of this machine's CPUs: the one place vitals reads it.
#pragma once

#include <string>
#include <string_view>

namespace vitals {

struct CpuInfo {
    std::string model = "unknown CPU";  // "model name" of the first CPU
    double mhz = 0;                     // "cpu MHz" of the first CPU; 0 when not said
    bool invariant_tsc = false;         // the flags name constant_tsc and nonstop_tsc
};

// /proc/cpuinfo read now (on another system, or unreadable: the defaults).
CpuInfo cpu_info();
// The same from a text in /proc/cpuinfo's layout.
CpuInfo parse_cpu_info(std::string_view text);

}  // namespace vitals
