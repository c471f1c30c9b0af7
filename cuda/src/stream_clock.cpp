// CUDA-event timing of a block: the timer's device clock. Host code against the CUDA
// runtime's C API, and the stream hold of hold.cu.
//
// As NVBench does, a block's stream is held by a kernel spinning on a host-mapped flag
// while the block's calls are queued behind the start event; the flag is released once
// they are queued, so the events time the device's work back to back, not the host's
// launches. The hold gives up by itself after kHoldTimeoutNs: a statement that
// synchronises inside its calls, or more launches than the launch queue holds, would
// otherwise wait for it forever. The measurement stays right either way (the start event
// follows the hold), a timed-out block just ran as it would without one. Where mapped
// host memory is unavailable, or VITALS_CUDA_HOLD=0, blocks are timed without a hold,
// after a note on stderr.
#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>

#include "hold.hpp"
#include "parts.hpp"

namespace vitals::cuda_parts {
namespace {

void check(cudaError_t status, const char* call, const char* file, int line) {
    if (status != cudaSuccess) {
        throw std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + call +
                                 " failed: " + cudaGetErrorString(status) + " (" + cudaGetErrorName(status) + ")");
    }
}
#define VITALS_CUDA_CHECK(call) check((call), #call, __FILE__, __LINE__)

// Move-only owner of a CUDA event.
class Event {
public:
    Event() { VITALS_CUDA_CHECK(cudaEventCreate(&event_)); }
    ~Event() {
        if (event_ != nullptr) cudaEventDestroy(event_);  // no-throw in a destructor
    }
    Event(Event&& other) noexcept : event_(other.event_) { other.event_ = nullptr; }
    Event& operator=(Event&&) = delete;
    Event(const Event&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

constexpr unsigned long long kHoldTimeoutNs = 5'000'000;  // 5 ms

// The host-mapped flags of this thread's holds: [0] release, [1] timed out.
struct HoldFlags {
    int* host = nullptr;
    int* device = nullptr;
    std::string unavailable;  // why this thread cannot hold a stream ("" when it can)
};

void note_no_hold(const std::string& why) {
    static std::once_flag said;
    std::call_once(said, [&] {
        fmt::print(stderr,
                   "vitals: note: CUDA-event blocks are timed without holding the stream ({}); short blocks may "
                   "include host launch latency\n",
                   why);
    });
}

std::string set_up_hold(HoldFlags& flags) {
    const char* setting = std::getenv("VITALS_CUDA_HOLD");
    if (setting != nullptr && std::string_view(setting) == "0") return "VITALS_CUDA_HOLD=0";
    int device = 0, can_map = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, device) != cudaSuccess) {
        cudaGetLastError();
        return "the device's attributes cannot be read";
    }
    if (can_map == 0) return "the device cannot map host memory";
    void* host = nullptr;
    cudaError_t status = cudaHostAlloc(&host, 2 * sizeof(int), cudaHostAllocMapped | cudaHostAllocPortable);
    if (status != cudaSuccess) {
        cudaGetLastError();
        return std::string("mapped host memory is unavailable: ") + cudaGetErrorString(status);
    }
    void* on_device = nullptr;
    status = cudaHostGetDevicePointer(&on_device, host, 0);
    if (status != cudaSuccess) {
        cudaGetLastError();
        cudaFreeHost(host);
        return std::string("mapped host memory has no device address: ") + cudaGetErrorString(status);
    }
    flags.host = static_cast<int*>(host);
    flags.device = static_cast<int*>(on_device);
    return "";
}

// This thread's flags, set up at its first held block (kept for the thread's life: 8 bytes).
HoldFlags& hold_flags() {
    thread_local HoldFlags flags = [] {
        HoldFlags f;
        f.unavailable = set_up_hold(f);
        return f;
    }();
    return flags;
}

void store(int* flag, int value) { std::atomic_ref<int>(*flag).store(value, std::memory_order_seq_cst); }

// Holds `stream` from construction until release() (or destruction, if the block throws).
class Hold {
public:
    explicit Hold(CUstream_st* stream) {
        HoldFlags& flags = hold_flags();
        if (!flags.unavailable.empty()) {
            note_no_hold(flags.unavailable);
            return;
        }
        store(&flags.host[0], 0);
        store(&flags.host[1], 0);
        const cudaError_t status = launch_hold(stream, &flags.device[0], &flags.device[1], kHoldTimeoutNs);
        if (status != cudaSuccess) {
            cudaGetLastError();
            flags.unavailable = std::string("the holding kernel cannot be launched: ") + cudaGetErrorString(status);
            note_no_hold(flags.unavailable);
            return;
        }
        flags_ = &flags;
    }
    ~Hold() { release(); }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    void release() {
        if (flags_ != nullptr) store(&flags_->host[0], 1);
        flags_ = nullptr;
    }

private:
    HoldFlags* flags_ = nullptr;
};

}  // namespace

double time_on_stream(CUstream_st* stream, void (*run)(void* context), void* context) {
    Event start, stop;
    {
        Hold hold(stream);
        VITALS_CUDA_CHECK(cudaEventRecord(start.get(), stream));
        run(context);
        VITALS_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
        hold.release();
    }
    VITALS_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float milliseconds = 0.0f;
    VITALS_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()));
    return static_cast<double>(milliseconds) * 1e-3;
}

void synchronize_stream(CUstream_st* stream) { VITALS_CUDA_CHECK(cudaStreamSynchronize(stream)); }

}  // namespace vitals::cuda_parts
