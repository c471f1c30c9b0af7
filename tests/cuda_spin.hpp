// Host-only face of tests/cuda_spin.cu: a kernel of known length, for timing tests.
#pragma once

struct CUstream_st;

namespace vitals::testing {
CUstream_st* create_stream();
void destroy_stream(CUstream_st* stream);
// Launches one thread that spins for `cycles` GPU clock cycles, asynchronously.
void launch_spin(CUstream_st* stream, long long cycles);
// The device's SM clock rate in kHz (cycles per millisecond).
int clock_rate_khz();
}  // namespace vitals::testing
