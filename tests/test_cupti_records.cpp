// CUPTI records into DeviceEvents, without a device: synthetic records of the structs the
// CUPTI headers' version selects, fed to the conversion the activity buffers go through.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "cupti_records.hpp"

namespace cp = vitals::cuda_parts;
using vitals::profiler::DeviceEvent;

namespace {

// The fields read sit where they sit in the oldest struct of each kind we may read.
static_assert(offsetof(cp::KernelRecord, start) == offsetof(CUpti_ActivityKernel8, start));
static_assert(offsetof(cp::KernelRecord, correlationId) == offsetof(CUpti_ActivityKernel8, correlationId));
static_assert(offsetof(cp::KernelRecord, name) == offsetof(CUpti_ActivityKernel8, name));
static_assert(offsetof(cp::KernelRecord, gridX) == offsetof(CUpti_ActivityKernel8, gridX));
static_assert(offsetof(cp::MemcpyRecord, bytes) == offsetof(CUpti_ActivityMemcpy5, bytes));
static_assert(offsetof(cp::MemcpyRecord, streamId) == offsetof(CUpti_ActivityMemcpy5, streamId));

template <class Record>
Record zeroed() {
    Record r;
    std::memset(static_cast<void*>(&r), 0, sizeof r);
    return r;
}

const CUpti_Activity& as_activity(const void* record) { return *static_cast<const CUpti_Activity*>(record); }

}  // namespace

TEST(CuptiRecords, KernelRecordOfThisVersion) {
    auto k = zeroed<cp::KernelRecord>();
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.name = "vitals_relu";
    k.deviceId = 1;
    k.streamId = 7;
    k.start = 5000;
    k.end = 9000;
    k.correlationId = 42;
    k.gridX = 8, k.gridY = 2, k.gridZ = 1;
    k.blockX = 256, k.blockY = 1, k.blockZ = 1;
    cp::ExternalIds ids;
    DeviceEvent e;
    ASSERT_TRUE(cp::to_device_event(as_activity(&k), -1000, ids, e));
    EXPECT_EQ(e.kind, DeviceEvent::Kind::kernel);
    EXPECT_EQ(e.name, "vitals_relu");
    EXPECT_EQ(e.device, 1);
    EXPECT_EQ(e.stream, 7);
    EXPECT_EQ(e.start_ns, 4000);  // moved onto the steady clock
    EXPECT_EQ(e.end_ns, 8000);
    EXPECT_EQ(e.correlation, 42);
    EXPECT_EQ(e.grid[0], 8);
    EXPECT_EQ(e.grid[1], 2);
    EXPECT_EQ(e.block[0], 256);
}

TEST(CuptiRecords, CopiesAndFills) {
    auto c = zeroed<cp::MemcpyRecord>();
    c.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    c.bytes = 1 << 20;
    c.start = 10;
    c.end = 20;
    c.streamId = 3;
    c.correlationId = 5;
    auto f = zeroed<cp::MemsetRecord>();
    f.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    f.bytes = 4096;
    f.start = 30;
    f.end = 40;
    cp::ExternalIds ids;
    DeviceEvent e;
    ASSERT_TRUE(cp::to_device_event(as_activity(&c), 0, ids, e));
    EXPECT_EQ(e.kind, DeviceEvent::Kind::memcpy);
    EXPECT_EQ(e.bytes, 1 << 20);
    EXPECT_EQ(e.stream, 3);
    EXPECT_EQ(e.correlation, 5);
    ASSERT_TRUE(cp::to_device_event(as_activity(&f), 0, ids, e));
    EXPECT_EQ(e.kind, DeviceEvent::Kind::memset);
    EXPECT_EQ(e.bytes, 4096);
    EXPECT_EQ(e.end_ns - e.start_ns, 10);
}

TEST(CuptiRecords, RuntimeCallsKeepTheSystemThreadId) {
    // With CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM (cupti_start() sets it) the record's
    // thread id is gettid(), the id the CPU events carry.
    const auto tid = static_cast<std::uint32_t>(::syscall(SYS_gettid));
    auto a = zeroed<CUpti_ActivityAPI>();
    a.kind = CUPTI_ACTIVITY_KIND_RUNTIME;
    a.cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    a.start = 100;
    a.end = 150;
    a.threadId = tid;
    a.correlationId = 42;
    cp::ExternalIds ids;
    DeviceEvent e;
    ASSERT_TRUE(cp::to_device_event(as_activity(&a), 0, ids, e));
    EXPECT_EQ(e.kind, DeviceEvent::Kind::runtime);
    EXPECT_EQ(e.host_tid, static_cast<std::int64_t>(tid));
    EXPECT_EQ(e.correlation, 42);
    EXPECT_TRUE(e.name == "cudaLaunchKernel_v7000" || e.name == "cudaLaunchKernel" || e.name == "cuda runtime") << e.name;
}

TEST(CuptiRecords, ExternalCorrelationsAreNoEvents) {
    auto x = zeroed<CUpti_ActivityExternalCorrelation>();
    x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    x.correlationId = 42;
    x.externalId = 77;
    cp::ExternalIds ids;
    DeviceEvent e;
    EXPECT_FALSE(cp::to_device_event(as_activity(&x), 0, ids, e));
    EXPECT_EQ(ids.at(42), 77u);
    auto other = zeroed<CUpti_ActivityAPI>();
    other.kind = CUPTI_ACTIVITY_KIND_DRIVER;
    EXPECT_FALSE(cp::to_device_event(as_activity(&other), 0, ids, e));
}
