// The widest vectors vitals's own code picks by itself: the kernels' paths and the
// machine's probes. From the environment variable VITALS_MAX_CPU_ISA (as oneDNN's
// ONEDNN_MAX_CPU_ISA): `avx2` keeps a CPU that has AVX-512 on the AVX2 paths, which is
// how to measure here what a CPU without it runs; `avx512`, empty or unset leave the
// choice to the CPU. Either case.
#pragma once

namespace vitals {

enum class MaxCpuIsa { avx2, avx512 };

// The cap a value of VITALS_MAX_CPU_ISA asks for (nullptr: unset). Any other value
// throws std::invalid_argument naming the variable and what it takes.
MaxCpuIsa max_cpu_isa_from(const char* value);

// The cap this process was started with: read once, so a run measures one path
// throughout. Throws as max_cpu_isa_from, on every call while the value is bad.
MaxCpuIsa max_cpu_isa();

}  // namespace vitals
