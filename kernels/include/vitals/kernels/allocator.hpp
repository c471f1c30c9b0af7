// One allocator per device. Every tensor's storage comes from here, so an observer
// sees every allocation and free with its size and the running totals.
#pragma once

#include <cstddef>
#include <cstdint>

#include "vitals/kernels/tensor.hpp"

namespace vitals::kernels {

struct AllocationEvent {
    Device device;
    const void* address;
    std::int64_t bytes;            // > 0 allocation, < 0 free
    std::int64_t total_allocated;  // bytes live on this device after the event
    std::int64_t total_reserved;   // bytes held from the system: allocated plus cached for reuse
};

// Called on every allocation and free, on the thread that made it. nullptr: none.
using AllocationObserver = void (*)(const AllocationEvent& event);
void set_allocation_observer(AllocationObserver observer);

// Bytes currently allocated on a device through vitals' allocators.
std::int64_t allocated_bytes(Device device);

// Host blocks of 64 KiB and more are kept after a free and reused for the next block of
// the same size (up to 1 GiB in all), as PyTorch's CUDA allocator does, so that a
// measured operation does not pay the kernel's page faults each call. CUDA memory is
// stream-ordered (cudaMallocAsync), whose pool already does this.
std::int64_t cached_bytes(Device device);
// Returns every cached host block to the system.
void release_cached_memory();

namespace detail {
// 64-byte aligned host memory, or stream-ordered device memory on current_stream().
void* allocate(Device device, std::size_t bytes);
void deallocate(Device device, void* address, std::size_t bytes) noexcept;
}  // namespace detail

}  // namespace vitals::kernels
