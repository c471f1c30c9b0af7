// The measuring loops: streaming kernels over buffers and FMA chains, each built for
// the widest vector unit the CPU has, or the VITALS_MAX_CPU_ISA cap (vitals/cpu_isa.hpp)
// below it, as the kernels are: chosen at run time. Internal.
#pragma once

#include <cstddef>
#include <cstdint>

namespace vitals::machine::detail {

// Part of the machine cache's key: bump it when a kernel changes what it measures, so that
// figures cached from the kernels before are measured anew.
inline constexpr int kProbesVersion = 3;

// "avx512", "avx2" or "scalar": what the FMA chains run on this CPU.
const char* vector_isa();

// The vector widths the streaming kernels are built for. The measurement runs the widest
// this CPU has (capped); the tests run every one it has, so an AVX-512 machine checks the
// AVX2 loops too.
enum class Isa { baseline, avx2, avx512 };
Isa widest_isa();  // throws std::invalid_argument on a bad VITALS_MAX_CPU_ISA
bool runs(Isa isa);  // whether this CPU runs the loops built for `isa`
bool capped();       // whether VITALS_MAX_CPU_ISA keeps widest_isa() below what the CPU runs

// Streaming kernels over n elements, built for `isa` (which this CPU must run). The read
// loads every element and returns a value for the caller to keep alive: the sum where
// it is plain C++ (baseline); with x86 vectors the loads are volatile asm, and only the
// elements past the last whole round of eight vectors are summed.
std::uint64_t read_kernel(const std::uint64_t* a, std::size_t n, Isa isa = widest_isa());
void copy_kernel(std::uint64_t* __restrict dst, const std::uint64_t* __restrict src, std::size_t n, Isa isa = widest_isa());
void triad_kernel(double* __restrict a, const double* __restrict b, const double* __restrict c, double s, std::size_t n,
                  Isa isa = widest_isa());

// `iterations` rounds of independent FMA chains; returns their sum. Floating-point
// operations done: iterations * fma_chain_flops_per_iteration(...).
float fma_chain_f32(std::int64_t iterations);
double fma_chain_f64(std::int64_t iterations);
double fma_flops_per_iteration(bool f64);

}  // namespace vitals::machine::detail
