// The yardsticks a bandwidth-bound kernel case is divided by: a memcpy and a plain vector
// copy of the bytes the op moves, timed in turns with it (time_in_turns.hpp). Whether a
// yardstick is sound enough to divide by is yardstick.hpp's rule.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "time_in_turns.hpp"

namespace vitals::benches {

// A copy's source and destination in one allocation, the destination half a page past
// a page boundary from the source. Two separate buffers of 128 KiB or more are mapped
// page-aligned, so every load aliases a store of the same page offset (4 KiB aliasing),
// which slows the copy several times over.
class CopyBuffers {
public:
    explicit CopyBuffers(std::size_t bytes)
        : bytes_(bytes), storage_(2 * round_up(bytes) + kPage + kPage / 2, 1) {}
    const char* from() const { return align(storage_.data()); }
    char* to() { return align(storage_.data()) + round_up(bytes_) + kPage / 2; }
    std::size_t bytes() const { return bytes_; }

private:
    static constexpr std::size_t kPage = 4096;
    static std::size_t round_up(std::size_t n) { return (n + kPage - 1) / kPage * kPage; }
    static char* align(const char* p) {
        const auto address = reinterpret_cast<std::uintptr_t>(p);
        return reinterpret_cast<char*>((address + kPage - 1) / kPage * kPage);
    }
    std::size_t bytes_;
    std::vector<char> storage_;
};

// memcpy of buffers.bytes(): it moves twice that (it reads and writes each byte).
inline void copy_with_memcpy(CopyBuffers& buffers) {
    std::memcpy(buffers.to(), buffers.from(), buffers.bytes());
    benchmark::ClobberMemory();
}

// The second yardstick: a plain loop of 32-byte vector copies, which the compiler keeps as
// loads and stores (a libc memcpy may pick non-temporal stores, or a slow path, at some
// sizes). Each ratio is taken against the faster of the two.
inline void copy_with_vectors(CopyBuffers& buffers) {
    using Lane = std::uint64_t __attribute__((vector_size(32), aligned(1)));
    const char* from = buffers.from();
    char* to = buffers.to();
    const std::size_t whole = buffers.bytes() / sizeof(Lane) * sizeof(Lane);
    for (std::size_t i = 0; i < whole; i += sizeof(Lane)) {
        *reinterpret_cast<Lane*>(to + i) = *reinterpret_cast<const Lane*>(from + i);
    }
    std::memcpy(to + whole, from + whole, buffers.bytes() - whole);
    benchmark::ClobberMemory();
}

// The counters a bandwidth case reports beside its own bytes per second: its yardsticks'.
inline constexpr const char* kMemcpyCounter = "memcpy_bytes_per_second";
inline constexpr const char* kVectorCopyCounter = "vector_copy_bytes_per_second";

// Times op() (which returns the bytes it read and wrote) in turns with a memcpy and a
// vector copy of as many bytes, whose bytes per second are the case's counters.
template <class Op>
void time_against_copies(benchmark::State& state, Op&& op) {
    const std::int64_t bytes = op();  // sizes the copies (a hit count's bytes vary with the mask)
    CopyBuffers buffers(static_cast<std::size_t>(bytes / 2));
    const auto [memcpy_seconds, vector_seconds] =
        time_in_turns(state, op, [&] { copy_with_memcpy(buffers); }, [&] { copy_with_vectors(buffers); });
    state.SetBytesProcessed(state.iterations() * bytes);
    state.counters["bytes_moved"] = benchmark::Counter(static_cast<double>(bytes));
    state.counters[kMemcpyCounter] = benchmark::Counter(static_cast<double>(bytes) / std::max(memcpy_seconds, 1e-12));
    state.counters[kVectorCopyCounter] = benchmark::Counter(static_cast<double>(bytes) / std::max(vector_seconds, 1e-12));
}

}  // namespace vitals::benches
