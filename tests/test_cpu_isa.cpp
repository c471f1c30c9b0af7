// VITALS_MAX_CPU_ISA's values: avx2 caps the widest vectors vitals picks, avx512 (or
// nothing) leaves the choice to the CPU, and anything else is refused with a message
// that says what to set.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "vitals/cpu_isa.hpp"

TEST(CpuIsa, MaxCpuIsaTakesAvx2OrAvx512InEitherCase) {
    EXPECT_EQ(vitals::max_cpu_isa_from(nullptr), vitals::MaxCpuIsa::avx512);
    EXPECT_EQ(vitals::max_cpu_isa_from(""), vitals::MaxCpuIsa::avx512);
    EXPECT_EQ(vitals::max_cpu_isa_from("avx2"), vitals::MaxCpuIsa::avx2);
    EXPECT_EQ(vitals::max_cpu_isa_from("AVX2"), vitals::MaxCpuIsa::avx2);
    EXPECT_EQ(vitals::max_cpu_isa_from("avx512"), vitals::MaxCpuIsa::avx512);
    EXPECT_EQ(vitals::max_cpu_isa_from("Avx512"), vitals::MaxCpuIsa::avx512);
}

TEST(CpuIsa, OtherValuesAreRefusedWithWhatToSet) {
    for (const char* bad : {"sse4", "avx2 ", "avx-512", "avx512_core"}) {
        try {
            (void)vitals::max_cpu_isa_from(bad);
            ADD_FAILURE() << "'" << bad << "' was taken";
        } catch (const std::invalid_argument& e) {
            const std::string what = e.what();
            EXPECT_NE(what.find(std::string("VITALS_MAX_CPU_ISA='") + bad + "'"), std::string::npos) << what;
            EXPECT_NE(what.find("set it to avx2"), std::string::npos) << what;
        }
    }
}
