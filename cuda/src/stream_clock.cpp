// CUDA-event timing of a block: the timer's device clock. Host code against the CUDA
// runtime's C API.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

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

}  // namespace

double time_on_stream(CUstream_st* stream, void (*run)(void* context), void* context) {
    Event start, stop;
    VITALS_CUDA_CHECK(cudaEventRecord(start.get(), stream));
    run(context);
    VITALS_CUDA_CHECK(cudaEventRecord(stop.get(), stream));
    VITALS_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float milliseconds = 0.0f;
    VITALS_CUDA_CHECK(cudaEventElapsedTime(&milliseconds, start.get(), stop.get()));
    return static_cast<double>(milliseconds) * 1e-3;
}

void synchronize_stream(CUstream_st* stream) { VITALS_CUDA_CHECK(cudaStreamSynchronize(stream)); }

}  // namespace vitals::cuda_parts
