#pragma once

#include <cstdint>

#include "vitals/code.hpp"

struct CUstream_st;

namespace vitals::detail {

// Times `number` calls of stmt on a CUDA stream: start event, calls, stop event,
// synchronise on the stop event, elapsed time. Seconds. Throws std::runtime_error with
// CUDA's own message on failure, or when the program has no CUDA parts (vitals::cuda).
double time_block_on_stream(CUstream_st* stream, const Code& stmt, std::int64_t number);

// Waits for the work queued on `stream` (nothing without vitals::cuda).
void synchronize_stream(CUstream_st* stream);

}  // namespace vitals::detail
