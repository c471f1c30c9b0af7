#include "vitals/cpu_isa.hpp"

#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace vitals {

MaxCpuIsa max_cpu_isa_from(const char* value) {
    if (value == nullptr || *value == '\0') return MaxCpuIsa::avx512;
    std::string lower(value);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "avx2") return MaxCpuIsa::avx2;
    if (lower == "avx512") return MaxCpuIsa::avx512;
    throw std::invalid_argument("VITALS_MAX_CPU_ISA='" + std::string(value) +
                                "' is not an instruction set vitals knows: set it to avx2 (to run the AVX2 paths on a "
                                "CPU with AVX-512) or avx512, or unset it");
}

MaxCpuIsa max_cpu_isa() {
    // A bad value throws out of the initialiser, so it is not cached: every call reports it.
    static const MaxCpuIsa cap = max_cpu_isa_from(std::getenv("VITALS_MAX_CPU_ISA"));
    return cap;
}

}  // namespace vitals
