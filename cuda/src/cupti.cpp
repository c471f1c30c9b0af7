// CUPTI activity records -> DeviceEvents. Host code against the CUPTI C API.
#include <cuda.h>
#include <cupti.h>
#include <fmt/format.h>

#include <cstdlib>
#include <string>
#include <mutex>
#include <unordered_map>

#include "cupti_records.hpp"
#include "device_reasons.hpp"
#include "parts.hpp"
#include "vitals/profiler/clock.hpp"
#include "vitals/shared_library.hpp"

#ifndef VITALS_CUPTI_BUILD_DIR
#define VITALS_CUPTI_BUILD_DIR "."
#endif

namespace vitals::cuda_parts {
namespace {

// The CUPTI functions used here, taken from libcupti when a profile first asks for CUDA
// activity: a program that never does never maps CUPTI.
struct CuptiApi {
    decltype(&cuptiGetResultString) result_string;
    decltype(&cuptiActivityGetNextRecord) next_record;
    decltype(&cuptiGetCallbackName) callback_name;
    decltype(&cuptiSetThreadIdType) set_thread_id_type;
    decltype(&cuptiActivityRegisterCallbacks) register_callbacks;
    decltype(&cuptiActivityEnable) enable;
    decltype(&cuptiActivityDisable) disable;
    decltype(&cuptiGetTimestamp) timestamp;
    decltype(&cuptiActivityFlushAll) flush_all;
    decltype(&cuptiActivityPushExternalCorrelationId) push_external_id;
    decltype(&cuptiActivityPopExternalCorrelationId) pop_external_id;
};

// CUDA 13's CUPTI is libcupti.so.13 (CUDA_VERSION 13000). Opened on the first call;
// nullptr, with `why` set, when it cannot be opened or lacks a function.
const CuptiApi* cupti(std::string* why = nullptr) {
    static std::string failure;
    static const CuptiApi* api = []() -> const CuptiApi* {
        static const std::string soname = "libcupti.so." + std::to_string(CUDA_VERSION / 1000);
        static const std::string in_build_dir = std::string(VITALS_CUPTI_BUILD_DIR) + "/" + soname;
        static const SharedLibrary library({soname.c_str(), in_build_dir.c_str(), "libcupti.so"});
        if (!library.loaded()) {
            failure = "CUPTI is not installed where the loader looks (" + library.why_not() +
                      "): install the CUDA toolkit's CUPTI, or add its folder to LD_LIBRARY_PATH";
            return nullptr;
        }
        try {
            static CuptiApi loaded{};
            library.bind(loaded.result_string, "cuptiGetResultString");
            library.bind(loaded.next_record, "cuptiActivityGetNextRecord");
            library.bind(loaded.callback_name, "cuptiGetCallbackName");
            library.bind(loaded.set_thread_id_type, "cuptiSetThreadIdType");
            library.bind(loaded.register_callbacks, "cuptiActivityRegisterCallbacks");
            library.bind(loaded.enable, "cuptiActivityEnable");
            library.bind(loaded.disable, "cuptiActivityDisable");
            library.bind(loaded.timestamp, "cuptiGetTimestamp");
            library.bind(loaded.flush_all, "cuptiActivityFlushAll");
            library.bind(loaded.push_external_id, "cuptiActivityPushExternalCorrelationId");
            library.bind(loaded.pop_external_id, "cuptiActivityPopExternalCorrelationId");
            return &loaded;
        } catch (const std::exception& e) {
            failure = e.what();
            return nullptr;
        }
    }();
    if (api == nullptr && why != nullptr) *why = failure;
    return api;
}

using profiler::DeviceEvent;
using profiler::detail::steady_ns;

constexpr std::size_t kBufferBytes = 8 << 20;
constexpr std::size_t kAlignment = 8;

struct Collected {
    std::mutex mutex;
    std::vector<DeviceEvent> events;
    ExternalIds external_ids;  // CUPTI correlation -> host op
    std::int64_t cupti_to_steady_ns = 0;
};

Collected& collected() {
    static Collected* c = new Collected;  // CUPTI may deliver buffers during exit
    return *c;
}

std::string cupti_error(CUptiResult status) {
    const char* text = nullptr;
    cupti()->result_string(status, &text);
    return text != nullptr ? text : fmt::format("CUPTI error {}", static_cast<int>(status));
}

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlignment, kBufferBytes));
    *size = *buffer != nullptr ? kBufferBytes : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid_size) {
    Collected& c = collected();
    std::lock_guard lock(c.mutex);
    CUpti_Activity* record = nullptr;
    while (cupti()->next_record(buffer, valid_size, &record) == CUPTI_SUCCESS) {
        DeviceEvent e;
        if (to_device_event(*record, c.cupti_to_steady_ns, c.external_ids, e)) c.events.push_back(std::move(e));
    }
    std::free(buffer);
}

const CUpti_ActivityKind kKinds[] = {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY,
                                     CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_RUNTIME,
                                     CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION};

}  // namespace

namespace {

// A copy or a fill: the records of both kinds carry the same fields.
template <class Record>
DeviceEvent transfer(const Record& r, DeviceEvent::Kind kind, const char* name, std::int64_t to_steady) {
    DeviceEvent e;
    e.kind = kind;
    e.name = name;
    e.device = static_cast<int>(r.deviceId);
    e.stream = r.streamId;
    e.start_ns = static_cast<std::int64_t>(r.start) + to_steady;
    e.end_ns = static_cast<std::int64_t>(r.end) + to_steady;
    e.correlation = r.correlationId;
    e.bytes = static_cast<std::int64_t>(r.bytes);
    return e;
}

}  // namespace

bool to_device_event(const CUpti_Activity& record, std::int64_t to_steady, ExternalIds& external_ids, DeviceEvent& e) {
    switch (record.kind) {
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        case CUPTI_ACTIVITY_KIND_KERNEL: {
            const auto& k = reinterpret_cast<const KernelRecord&>(record);
            e = DeviceEvent{};
            e.kind = DeviceEvent::Kind::kernel;
            e.name = k.name != nullptr ? k.name : "kernel";
            e.device = static_cast<int>(k.deviceId);
            e.stream = k.streamId;
            e.start_ns = static_cast<std::int64_t>(k.start) + to_steady;
            e.end_ns = static_cast<std::int64_t>(k.end) + to_steady;
            e.correlation = k.correlationId;
            e.grid[0] = k.gridX, e.grid[1] = k.gridY, e.grid[2] = k.gridZ;
            e.block[0] = k.blockX, e.block[1] = k.blockY, e.block[2] = k.blockZ;
            return true;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY:
            e = transfer(reinterpret_cast<const MemcpyRecord&>(record), DeviceEvent::Kind::memcpy, "Memcpy", to_steady);
            return true;
        case CUPTI_ACTIVITY_KIND_MEMSET:
            e = transfer(reinterpret_cast<const MemsetRecord&>(record), DeviceEvent::Kind::memset, "Memset", to_steady);
            return true;
        case CUPTI_ACTIVITY_KIND_RUNTIME: {
            const auto& a = reinterpret_cast<const CUpti_ActivityAPI&>(record);
            const char* name = nullptr;
            if (cupti()->callback_name(CUPTI_CB_DOMAIN_RUNTIME_API, a.cbid, &name) != CUPTI_SUCCESS) name = nullptr;
            e = DeviceEvent{};
            e.kind = DeviceEvent::Kind::runtime;
            e.name = name != nullptr ? name : "cuda runtime";
            e.start_ns = static_cast<std::int64_t>(a.start) + to_steady;
            e.end_ns = static_cast<std::int64_t>(a.end) + to_steady;
            e.correlation = a.correlationId;
            e.host_tid = a.threadId;
            return true;
        }
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
            const auto& x = reinterpret_cast<const CUpti_ActivityExternalCorrelation&>(record);
            external_ids[x.correlationId] = x.externalId;
            return false;
        }
        default:
            return false;
    }
}

std::string cupti_start() {
    // Without a usable device CUPTI fails with a status that hides why (no driver gives
    // CUPTI_ERROR_UNKNOWN at the first call): the device probe's reason says it.
    if (std::string reason = unavailable_reason(); !reason.empty()) return reason;
    std::string why;
    const CuptiApi* api = cupti(&why);
    if (api == nullptr) return why;
    Collected& c = collected();
    {
        std::lock_guard lock(c.mutex);
        c.events.clear();
        c.external_ids.clear();
    }
    // Runtime records carry the system's thread id (gettid), as Kineto asks, so that
    // launches land on the thread of the CPU events that made them.
    CUptiResult status = api->set_thread_id_type(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    if (status != CUPTI_SUCCESS) return describe_cupti_failure(status, "record system thread ids", cupti_error(status));
    status = api->register_callbacks(buffer_requested, buffer_completed);
    if (status != CUPTI_SUCCESS) return describe_cupti_failure(status, "record activity", cupti_error(status));
    for (CUpti_ActivityKind kind : kKinds) {
        status = api->enable(kind);
        if (status != CUPTI_SUCCESS) {
            for (CUpti_ActivityKind k : kKinds) api->disable(k);
            return describe_cupti_failure(status, "record activity", cupti_error(status));
        }
    }
    // The same instant on CUPTI's clock and the steady clock.
    std::uint64_t cupti_now = 0;
    const std::int64_t before = steady_ns();
    api->timestamp(&cupti_now);
    const std::int64_t after = steady_ns();
    c.cupti_to_steady_ns = before + (after - before) / 2 - static_cast<std::int64_t>(cupti_now);
    return "";
}

std::vector<DeviceEvent> cupti_stop() {
    const CuptiApi* api = cupti();
    if (api == nullptr) return {};  // never started
    // Work still running would be lost, or flushed with zero timestamps.
    device_synchronize();
    api->flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (CUpti_ActivityKind kind : kKinds) api->disable(kind);
    Collected& c = collected();
    std::lock_guard lock(c.mutex);
    std::vector<DeviceEvent> out = std::move(c.events);
    c.events.clear();
    for (DeviceEvent& e : out) {
        const auto found = c.external_ids.find(static_cast<std::uint32_t>(e.correlation));
        if (found != c.external_ids.end()) e.external_id = static_cast<std::int64_t>(found->second);
    }
    return out;
}

void cupti_push_external_id(std::uint64_t id) {
    if (const CuptiApi* api = cupti()) api->push_external_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id);
}

void cupti_pop_external_id() {
    std::uint64_t last = 0;
    if (const CuptiApi* api = cupti()) api->pop_external_id(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

}  // namespace vitals::cuda_parts
