// Host side of hold.cu. Internal to vitals::cuda.
#pragma once

#include <driver_types.h>

namespace vitals::cuda_parts {

// Queues a one-thread kernel on `stream` that spins until *release (host-mapped memory,
// a device pointer to it) becomes non-zero, or for timeout_ns at most; on a timeout it
// sets *timed_out. The launch's status.
cudaError_t launch_hold(CUstream_st* stream, const volatile int* release, volatile int* timed_out,
                        unsigned long long timeout_ns);

}  // namespace vitals::cuda_parts
