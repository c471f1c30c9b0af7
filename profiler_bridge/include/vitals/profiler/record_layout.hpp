// The layout of the profiler's records: every bit that RecordFunction and the recorder
// write into a thread's buffer, and how the trace builder reads it back, in one place.
// Internal. In the public include folder only because the recording hot path is inline
// in record_function.hpp; the encoders are as cheap as the bit operations they name.
#pragma once

#include <cstdint>

namespace vitals::profiler::detail {

// 16 bytes: a timestamp and a payload whose top byte says what it is.
struct Record {
    std::int64_t ticks;
    std::uint64_t payload;
};
static_assert(sizeof(Record) == 16);

enum class RecordKind : std::uint8_t {
    begin_literal = 1,  // low 55 bits: const char* name; bit 55: annotation
    begin_copied,       // low 55 bits: index into the thread's copied names; bit 55: annotation
    end,                // low 56 bits: the begin's index in this thread's record stream
    inputs,       // low 56 bits: index into the thread's input lists (for the scope begun last)
    memory,       // low 56 bits: index into the thread's memory records
    correlation,  // low 56 bits: the external id device work of the scope begun last carries
    foreign_end,  // low 56 bits: index into the thread's foreign ends (a scope begun on another thread)
};

namespace record_layout {

constexpr int kKindShift = 56;
constexpr std::uint64_t kValueMask = (std::uint64_t{1} << kKindShift) - 1;
// Begin records only: the scope is a user annotation (else an operator, cpu_op).
constexpr std::uint64_t kAnnotationBit = std::uint64_t{1} << 55;

constexpr std::uint64_t kind_bits(RecordKind kind) { return static_cast<std::uint64_t>(kind) << kKindShift; }

// --- Encoding ---------------------------------------------------------------------------

// A begin named by a literal's address: user-space addresses fit below the annotation
// bit, so the pointer is stored unmasked (a mask would cost every recorded scope).
inline std::uint64_t begin_literal(const char* name, bool annotation) {
    return kind_bits(RecordKind::begin_literal) | (annotation ? kAnnotationBit : 0) |
           reinterpret_cast<std::uintptr_t>(name);
}
// A begin named by the thread's copied name at `name_index`.
constexpr std::uint64_t begin_copied(std::uint64_t name_index, bool annotation) {
    return kind_bits(RecordKind::begin_copied) | (annotation ? kAnnotationBit : 0) | name_index;
}
// The end of the scope whose begin is at `begin` in this thread's record stream.
constexpr std::uint64_t end(std::uint64_t begin) { return kind_bits(RecordKind::end) | (begin & kValueMask); }
// A record that refers to side data (inputs, memory, foreign_end) at `index`.
constexpr std::uint64_t side(RecordKind kind, std::uint64_t index) { return kind_bits(kind) | index; }
// The external id of the device work the scope begun last launches.
constexpr std::uint64_t correlation(std::uint64_t id) { return kind_bits(RecordKind::correlation) | id; }

// --- Decoding ---------------------------------------------------------------------------

constexpr RecordKind kind_of(std::uint64_t payload) { return static_cast<RecordKind>(payload >> kKindShift); }
// The index or id of an end, side or correlation record.
constexpr std::uint64_t value_of(std::uint64_t payload) { return payload & kValueMask; }
// Begin records: whether the scope is a user annotation.
constexpr bool is_annotation(std::uint64_t payload) { return (payload & kAnnotationBit) != 0; }
// begin_literal: the name; begin_copied: the index of the copied name.
inline const char* literal_name(std::uint64_t payload) {
    return reinterpret_cast<const char*>(payload & kValueMask & ~kAnnotationBit);
}
constexpr std::uint64_t copied_name_index(std::uint64_t payload) { return payload & kValueMask & ~kAnnotationBit; }

}  // namespace record_layout
}  // namespace vitals::profiler::detail
