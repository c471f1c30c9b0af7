#include "vitals/kernels/allocator.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include "cuda_backend.hpp"
#include "vitals/kernels/cuda_context.hpp"
#include "vitals/profiler/record_function.hpp"

// Its ASAN_*POISON_MEMORY_REGION macros do nothing in a build without ASan.
#include <sanitizer/asan_interface.h>

namespace vitals::kernels {
namespace {

std::atomic<AllocationObserver> g_observer{nullptr};
std::atomic<std::int64_t> g_allocated[2] = {0, 0};

constexpr std::size_t kHostAlignment = 64;  // a cache line: full-width vector loads

int index_of(Device device) { return device == Device::cpu ? 0 : 1; }

// Large host blocks are kept for reuse. glibc serves them with a fresh mmap each time
// (a block the size of the one just freed is still at its mmap threshold), so every
// large tensor would pay a page fault per 4 KiB on first touch: that measures the
// kernel's page-fault handler, not the operation.
// Under AddressSanitizer, a block's bytes past the request (its rounding) and a cached
// block's every byte are poisoned: an overrun of a tensor's storage, or a use after its
// free, is reported even where the block would leave room. Nothing without ASan.
void mark_requested(void* block, std::size_t requested, std::size_t size) {
    ASAN_UNPOISON_MEMORY_REGION(block, requested);
    ASAN_POISON_MEMORY_REGION(static_cast<char*>(block) + requested, size - requested);
}
void mark_unused(void* block, std::size_t size) { ASAN_POISON_MEMORY_REGION(block, size); }
void mark_released(void* block, std::size_t size) { ASAN_UNPOISON_MEMORY_REGION(block, size); }

class HostBlockCache {
public:
    static constexpr std::size_t kMinCachedBytes = 64 * 1024;
    static constexpr std::size_t kPage = 4096;
    static constexpr std::size_t kMaxCachedBytes = std::size_t{1} << 30;

    static std::size_t rounded(std::size_t bytes) { return (bytes + kPage - 1) / kPage * kPage; }

    void* take(std::size_t bytes) {
        std::lock_guard lock(mutex_);
        auto it = free_.find(bytes);
        if (it == free_.end() || it->second.empty()) return nullptr;
        void* block = it->second.back();
        it->second.pop_back();
        cached_bytes_ -= bytes;
        return block;
    }

    void give(void* block, std::size_t bytes) {
        std::vector<void*> released;
        {
            std::lock_guard lock(mutex_);
            free_[bytes].push_back(block);
            cached_bytes_ += bytes;
            if (cached_bytes_ > kMaxCachedBytes) {  // over budget: hand everything back
                for (auto& [size, blocks] : free_) {
                    for (void* b : blocks) mark_released(b, size);
                    released.insert(released.end(), blocks.begin(), blocks.end());
                }
                free_.clear();
                cached_bytes_ = 0;
            }
        }
        for (void* b : released) std::free(b);
    }

    std::int64_t cached_bytes() const {
        std::lock_guard lock(mutex_);
        return static_cast<std::int64_t>(cached_bytes_);
    }

    void release() {
        std::lock_guard lock(mutex_);
        for (auto& [size, blocks] : free_) {
            for (void* b : blocks) {
                mark_released(b, size);
                std::free(b);
            }
        }
        free_.clear();
        cached_bytes_ = 0;
    }

private:
    mutable std::mutex mutex_;
    std::unordered_map<std::size_t, std::vector<void*>> free_;
    std::size_t cached_bytes_ = 0;
};

HostBlockCache& host_cache() {
    static HostBlockCache* cache = new HostBlockCache;  // never destroyed: tensors may outlive statics
    return *cache;
}

void notify(Device device, const void* address, std::int64_t bytes) {
    const std::int64_t total = g_allocated[index_of(device)].fetch_add(bytes, std::memory_order_relaxed) + bytes;
    AllocationObserver observer = g_observer.load(std::memory_order_acquire);
    const bool profiling = profiler::detail::recording_memory();
    if (observer == nullptr && !profiling) [[likely]] return;
    const std::int64_t reserved = total + (device == Device::cpu ? host_cache().cached_bytes() : 0);
    if (observer != nullptr) observer(AllocationEvent{device, address, bytes, total, reserved});
    if (profiling) {
        // Kineto's numbering: device type 0 is the CPU (device id -1), 1 is CUDA.
        profiler::record_memory({address, bytes, total, reserved, static_cast<std::int8_t>(device == Device::cpu ? 0 : 1),
                                 static_cast<std::int8_t>(device == Device::cpu ? -1 : 0)});
    }
}

// aligned_alloc needs a size that is a multiple of the alignment (and not 0).
std::size_t small_block_size(std::size_t bytes) {
    return std::max(kHostAlignment, (bytes + kHostAlignment - 1) / kHostAlignment * kHostAlignment);
}

void* host_allocate(std::size_t bytes) {
    if (bytes >= HostBlockCache::kMinCachedBytes) {
        const std::size_t size = HostBlockCache::rounded(bytes);
        void* block = host_cache().take(size);
        if (block == nullptr) block = std::aligned_alloc(HostBlockCache::kPage, size);
        if (block == nullptr) throw std::bad_alloc();
        mark_requested(block, bytes, size);
        return block;
    }
    const std::size_t size = small_block_size(bytes);
    void* block = std::aligned_alloc(kHostAlignment, size);
    if (block == nullptr) throw std::bad_alloc();
    mark_requested(block, bytes, size);
    return block;
}

void host_deallocate(void* block, std::size_t bytes) noexcept {
    if (bytes >= HostBlockCache::kMinCachedBytes) {
        const std::size_t size = HostBlockCache::rounded(bytes);
        try {
            mark_unused(block, size);
            host_cache().give(block, size);
            return;
        } catch (...) {  // no memory for the free list: release the block instead
            mark_released(block, size);
        }
    } else {
        mark_released(block, small_block_size(bytes));
    }
    std::free(block);
}

// The stream each live device block was allocated on: its free is queued there, behind
// the work that used it, whatever stream is current when the tensor dies (as PyTorch's
// caching allocator frees on the allocation stream).
class DeviceBlockStreams {
public:
    void add(void* address, CUstream_st* stream) {
        if (address == nullptr) return;
        std::lock_guard lock(mutex_);
        streams_[address] = stream;
    }
    // The block's stream, forgotten; `fallback` for a block not known here.
    CUstream_st* take(void* address, CUstream_st* fallback) {
        std::lock_guard lock(mutex_);
        const auto found = streams_.find(address);
        if (found == streams_.end()) return fallback;
        CUstream_st* stream = found->second;
        streams_.erase(found);
        return stream;
    }

private:
    std::mutex mutex_;
    std::unordered_map<void*, CUstream_st*> streams_;
};

DeviceBlockStreams& device_block_streams() {
    static DeviceBlockStreams* streams = new DeviceBlockStreams;  // tensors may die during exit
    return *streams;
}

}  // namespace

void release_cached_memory() { host_cache().release(); }
std::int64_t cached_bytes(Device device) { return device == Device::cpu ? host_cache().cached_bytes() : 0; }

void set_allocation_observer(AllocationObserver observer) { g_observer.store(observer, std::memory_order_release); }

std::int64_t allocated_bytes(Device device) { return g_allocated[index_of(device)].load(std::memory_order_relaxed); }

namespace detail {

void* allocate(Device device, std::size_t bytes) {
    void* address = nullptr;
    if (device == Device::cpu) {
        address = host_allocate(bytes);
    } else {
        CUstream_st* stream = current_stream();
        address = cuda_backend::allocate(bytes, stream);
        device_block_streams().add(address, stream);
    }
    try {
        notify(device, address, static_cast<std::int64_t>(bytes));
    } catch (...) {  // the observer threw: the block goes back, uncounted, and the error passes on
        g_allocated[index_of(device)].fetch_sub(static_cast<std::int64_t>(bytes), std::memory_order_relaxed);
        if (device == Device::cpu) {
            host_deallocate(address, bytes);
        } else if (address != nullptr) {
            cuda_backend::deallocate(address, device_block_streams().take(address, current_stream()));
        }
        throw;
    }
    return address;
}

void deallocate(Device device, void* address, std::size_t bytes) noexcept {
    if (device == Device::cpu) {
        host_deallocate(address, bytes);
    } else {
        if (address != nullptr) cuda_backend::deallocate(address, device_block_streams().take(address, current_stream()));
    }
    try {
        notify(device, address, -static_cast<std::int64_t>(bytes));
    } catch (...) {  // a free runs in destructors: an observer's error cannot pass on from here
        static std::atomic<bool> said{false};
        if (!said.exchange(true)) {
            std::fputs("vitals: warning: the allocation observer threw on a free; the error was dropped (observers "
                       "should not throw)\n", stderr);
        }
    }
}

}  // namespace detail
}  // namespace vitals::kernels
