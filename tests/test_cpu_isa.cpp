// VITALS_MAX_CPU_ISA's values: avx2 caps the widest vectors vitals picks, avx512 (or
// nothing) leaves the choice to the CPU, and anything else is refused with a message
// that says what to set.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "vitals/cpu_info.hpp"
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

// /proc/cpuinfo's first CPU: its model, its clock and whether its TSC is invariant; a
// "model" line is not a "model name" line, and the first CPU's values win.
TEST(CpuInfo, ReadsTheFirstCpusModelClockAndTsc) {
    const vitals::CpuInfo info = vitals::parse_cpu_info(
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel\t\t: 1\nmodel name\t: AMD EPYC 7B13\n"
        "cpu MHz\t\t: 2449.998\nflags\t\t: fpu tsc constant_tsc rep_good nonstop_tsc avx2\n\n"
        "processor\t: 1\nmodel name\t: Other\ncpu MHz\t\t: 1000.000\nflags\t\t: fpu\n");
    EXPECT_EQ(info.model, "AMD EPYC 7B13");
    EXPECT_DOUBLE_EQ(info.mhz, 2449.998);
    EXPECT_TRUE(info.invariant_tsc);

    const vitals::CpuInfo bare = vitals::parse_cpu_info("processor\t: 0\nflags\t\t: fpu constant_tsc\ncpu MHz\t\t: n/a\n");
    EXPECT_EQ(bare.model, "unknown CPU");
    EXPECT_EQ(bare.mhz, 0);
    EXPECT_FALSE(bare.invariant_tsc);  // constant but not nonstop
}
