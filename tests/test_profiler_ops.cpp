// The kernel set and the Timer under the profiler: operators as cpu_op events with
// their inputs, memory from the allocators, Timer blocks and Timer::profile.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <map>
#include <vitals/kernels/kernels.hpp>
#include <vitals/profiler/profile.hpp>
#include <vitals/threads.hpp>
#include <vitals/timer_profile.hpp>

namespace k = vitals::kernels;
namespace p = vitals::profiler;
using k::Device;
using k::DType;
using k::Tensor;

namespace {
const p::Event* find(const p::Trace& t, const std::string& name, int nth = 0) {
    for (const p::Event& e : t.events) {
        if (e.name == name && nth-- == 0) return &e;
    }
    return nullptr;
}
int count(const p::Trace& t, const std::string& name) {
    return static_cast<int>(std::count_if(t.events.begin(), t.events.end(), [&](const auto& e) { return e.name == name; }));
}
}  // namespace

TEST(ProfiledOps, MlpForwardShowsLinearAddmmAndRelu) {
    k::Mlp model;
    const Tensor x = Tensor::randn({32, 512}, DType::f32, Device::cpu, 1);
    p::Profile profile({.record_shapes = true, .profile_memory = true});
    profile.start();
    {
        VITALS_RECORD_FUNCTION("forward");
        model.forward(x);
    }
    profile.stop();
    const p::Trace& t = profile.trace();
    EXPECT_EQ(count(t, "linear"), 2);
    EXPECT_EQ(count(t, "addmm"), 2);
    EXPECT_EQ(count(t, "relu"), 1);
    const p::Event* linear = find(t, "linear");
    const p::Event* addmm = find(t, "addmm");
    ASSERT_TRUE(linear && addmm);
    EXPECT_EQ(linear->category, p::Category::cpu_op);
    EXPECT_EQ(&t.events[static_cast<std::size_t>(addmm->parent)], linear);  // addmm under linear
    EXPECT_EQ(t.events[static_cast<std::size_t>(linear->parent)].name, "forward");
    ASSERT_NE(t.inputs_of(*linear), nullptr);
    EXPECT_EQ(t.inputs_of(*linear)->shapes, (std::vector<std::vector<std::int64_t>>{{32, 512}, {1024, 512}, {1024}}));
    EXPECT_EQ(t.inputs_of(*linear)->types, (std::vector<std::string>{"float", "float", "float"}));
    // Memory: linear's output (32x1024 floats) is allocated inside addmm.
    const auto index_of = [&](const p::Event* e) { return static_cast<std::size_t>(e - t.events.data()); };
    EXPECT_EQ(t.totals_of(index_of(addmm)).self_cpu_memory, 32 * 1024 * 4);
    EXPECT_EQ(t.totals_of(index_of(linear)).cpu_memory, 32 * 1024 * 4);
    EXPECT_FALSE(t.memory.empty());
    const std::string table = t.key_averages({.group_by_input_shape = true}).table({.sort_by = "cpu_time_total"});
    EXPECT_NE(table.find("CPU Mem"), std::string::npos);
    EXPECT_NE(table.find("[[32, 512], [1024, 512], [1024]]"), std::string::npos) << table;
    EXPECT_NE(table.find("[[32, 1024], [512, 1024], [512]]"), std::string::npos) << table;
    const std::string json = t.chrome_trace_json();
    EXPECT_NE(json.find("\"Input Dims\":[[32,512],[1024,512],[1024]]"), std::string::npos);
    EXPECT_NE(json.find("\"name\":\"[memory]\""), std::string::npos);
}

TEST(ProfiledOps, NothingIsRecordedWithoutAProfile) {
    const Tensor x = Tensor::randn({8, 8}, DType::f32, Device::cpu, 1);
    k::relu(x);  // no session: must not reach any buffer
    p::Profile profile;
    profile.start();
    profile.stop();
    EXPECT_TRUE(profile.trace().events.empty());
}

TEST(TimerProfile, RecordsTheStatementApartFromTheMeasurement) {
    auto x = std::make_shared<Tensor>(Tensor::randn({64, 64}, DType::f32, Device::cpu, 1));
    vitals::Timer timer({.stmt = [x] { vitals::do_not_optimize(k::relu(*x)); }, .label = "relu", .sub_label = "64x64"});
    const vitals::Measurement m = timer.blocked_autorange({.min_run_time = 0.01});
    const p::Trace trace = timer.profile({.profile = {.record_shapes = true}});
    // Default: as many calls as a measured block had.
    EXPECT_EQ(count(trace, "relu"), m.number_per_run());
    const std::int64_t n = m.number_per_run();
    const p::Event* annotation = find(trace, "Timer.profile: relu: 64x64 (" + std::to_string(n) + (n == 1 ? " call)" : " calls)"));
    ASSERT_NE(annotation, nullptr);
    EXPECT_EQ(trace.events[static_cast<std::size_t>(find(trace, "relu")->parent)].name, annotation->name);
    EXPECT_EQ(count(timer.profile({.number = 3}), "relu"), 3);
    EXPECT_EQ(count(timer.profile({.number = 1}), "Timer.profile: relu: 64x64 (1 call)"), 1);  // one call, singular
    EXPECT_THROW(timer.profile({.number = -1}), std::invalid_argument);
    EXPECT_THROW(timer.profile({.steps = -1}), std::invalid_argument);
    EXPECT_THROW(timer.profile({.profile = {.schedule = p::Schedule{.active = 0}}}), std::invalid_argument);
}

TEST(TimerProfile, StepsUnderAScheduleRecordTheActiveWindows) {
    auto x = std::make_shared<Tensor>(Tensor::randn({16, 16}, DType::f32, Device::cpu, 1));
    vitals::Timer timer({.stmt = [x] { vitals::do_not_optimize(k::relu(*x)); }, .label = "relu"});
    int traces = 0;
    std::vector<std::int64_t> steps_seen;
    // skip 1, then 2 cycles of wait 1, warm-up 1, active 2: 9 steps by default.
    const p::Trace last = timer.profile({
        .number = 3,
        .profile = {.schedule = p::Schedule{.wait = 1, .warmup = 1, .active = 2, .repeat = 2, .skip_first = 1},
                    .on_trace_ready = [&](p::Profile& done) {
                        ++traces;
                        EXPECT_EQ(count(done.trace(), "relu"), 2 * 3);  // two active steps of 3 calls
                        EXPECT_EQ(count(done.trace(), "Timer.profile: relu (3 calls)"), 2);
                    }},
        .on_step = [&](std::int64_t step, std::int64_t steps) {
            EXPECT_EQ(steps, 9);
            steps_seen.push_back(step);
        },
    });
    EXPECT_EQ(traces, 2);
    EXPECT_EQ(steps_seen.size(), 9u);
    EXPECT_EQ(count(last, "relu"), 6);
    EXPECT_NE(find(last, "ProfilerStep#8"), nullptr);
}

TEST(TimerProfile, AppliesTheTimersThreadCountAndSetup) {
    // What an operation sees while it runs under the profile: its OpenMP thread count.
    auto seen_threads = std::make_shared<int>(0);
    auto setups = std::make_shared<int>(0);
    auto global_setups = std::make_shared<int>(0);
    for (const int threads : {1, 2}) {
        vitals::Timer timer({.stmt = [seen_threads] { *seen_threads = omp_get_max_threads(); },
                             .setup = [setups] { ++*setups; },
                             .global_setup = [global_setups] { ++*global_setups; },
                             .num_threads = threads});
        const int before = omp_get_max_threads();
        timer.profile({.steps = 3});
        EXPECT_EQ(*seen_threads, threads);
        EXPECT_EQ(omp_get_max_threads(), before);  // restored
    }
    EXPECT_EQ(*setups, 2);         // once per profile
    EXPECT_EQ(*global_setups, 2);  // once per Timer
}

TEST(TimerProfile, BlocksAppearAsAnnotationsWhileAProfileRecords) {
    vitals::Timer timer({.stmt = [] {}, .label = "empty"});
    p::Profile profile;
    profile.start();
    timer.timeit(5);
    profile.stop();
    EXPECT_EQ(count(profile.trace(), "Timer block: empty (2 calls)"), 1);  // the warm-up block
    EXPECT_EQ(count(profile.trace(), "Timer block: empty (5 calls)"), 1);
    p::Profile one;
    one.start();
    timer.timeit(1);
    one.stop();
    EXPECT_EQ(count(one.trace(), "Timer block: empty (1 call)"), 1);  // singular (the warm-up block has 2)
}

// The tutorial's case study: a linear pass, then MASK INDICES, which takes most of the
// time before the fix and shrinks after it.
TEST(ProfiledOps, MaskIndicesIsTheLargestRegionBeforeAndShrinksAfter) {
    const k::MaskIndices workload(std::int64_t{1} << 20, k::Device::cpu, 0.5);
    const auto regions = [&](bool before) {
        for (int i = 0; i < 2; ++i) vitals::do_not_optimize(before ? workload.before() : workload.after());  // warm
        p::Profile profile;
        profile.start();
        for (int i = 0; i < 3; ++i) vitals::do_not_optimize(before ? workload.before() : workload.after());
        profile.stop();
        std::map<std::string, double> total;
        for (const auto& r : profile.key_averages().rows()) total[r.key] = r.cpu_time_total_us;
        return total;
    };
    const vitals::ThreadCountScope one_thread(1);  // as the case runs; no thread pool to wake
    // A timing on a shared machine: the ordering must hold in one of three tries.
    auto before = regions(true), after = regions(false);
    for (int attempt = 1; attempt < 3 && !(before.at("MASK INDICES") > before.at("LINEAR PASS") &&
                                           after.at("MASK INDICES") < before.at("MASK INDICES"));
         ++attempt) {
        before = regions(true);
        after = regions(false);
    }
    ASSERT_TRUE(before.count("MASK INDICES") && before.count("LINEAR PASS"));
    EXPECT_GT(before.at("MASK INDICES"), before.at("LINEAR PASS"));
    for (const auto& [name, us] : before) {
        if (name != "MASK INDICES") {
            EXPECT_LE(us, before.at("MASK INDICES")) << name << " is larger";
        }
    }
    EXPECT_TRUE(after.count("nonzero"));
    EXPECT_LT(after.at("MASK INDICES"), before.at("MASK INDICES"));
}

// The tutorial's full training step under schedule(wait=2, warmup=1, active=3): the
// table reads as torch's, with autograd's nodes and the optimizer's scopes.
TEST(ProfiledOps, TrainingStepReadsLikeTorchsAutogradAndOptimizer) {
    k::Mlp model(k::MlpConfig{.dtype = DType::f32, .device = Device::cpu});
    k::Sgd sgd(model, 0.01);
    const Tensor x = Tensor::randn({32, 512}, DType::f32, Device::cpu, 1);
    const Tensor target = Tensor::randn({32, 512}, DType::f32, Device::cpu, 2);
    std::map<std::string, std::int64_t> calls;
    p::Profile profile({.schedule = p::Schedule{.wait = 2, .warmup = 1, .active = 3},
                        .on_trace_ready = [&](p::Profile& done) {
                            for (const auto& r : done.key_averages().rows()) calls[r.key] += r.count;
                        }});
    profile.start();
    for (int step = 0; step < 6; ++step) {
        vitals::do_not_optimize(k::train_step(model, sgd, x, target));
        profile.step();
    }
    profile.stop();
    EXPECT_EQ(calls["ProfilerStep*"], 3);
    EXPECT_EQ(calls["autograd::engine::evaluate_function: AddmmBackward0"], 6);  // two layers, three steps
    EXPECT_EQ(calls["AddmmBackward0"], 6);
    EXPECT_EQ(calls["ReluBackward0"], 3);
    EXPECT_EQ(calls["MseLossBackward0"], 3);
    EXPECT_EQ(calls["Optimizer.step#SGD.step"], 3);
    EXPECT_EQ(calls["Optimizer.zero_grad#SGD.zero_grad"], 3);
    EXPECT_EQ(calls["linear"], 6);
    EXPECT_EQ(calls["matmul"], 12);  // the backward products, inside the nodes
}
