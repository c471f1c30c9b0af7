// The misuse table: plausible mistakes against the library API, as the bad-input matrix
// lists them for the executable. Each row names the mistake and the outcome it must
// have: an exception of the stated type whose message names the problem (and the fix),
// or a documented, safe result (checked by the row itself). None may crash, hang,
// terminate or leak; the sanitizer builds run this table too.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "vitals/compare.hpp"
#include "vitals/kernels/allocator.hpp"
#include "vitals/kernels/ops.hpp"
#include "vitals/kernels/tensor.hpp"
#include "vitals/measurement.hpp"
#include "vitals/profiler/profile.hpp"
#include "vitals/stats.hpp"
#include "vitals/timer.hpp"

namespace {

namespace k = vitals::kernels;
namespace p = vitals::profiler;
using vitals::Measurement;
using vitals::TaskSpec;
using vitals::Timer;

enum class Outcome { invalid_argument, logic_error, runtime_error, safe_result };

struct Misuse {
    const char* mistake;
    std::function<void()> attempt;  // for safe_result rows, checks the result itself
    Outcome outcome;
    const char* mentions = "";  // in the exception's message
};

const std::vector<Misuse>& misuse_table() {
    static const std::vector<Misuse> rows = {
        // Profiles
        {"stop() a profile that never started", [] { p::Profile().stop(); }, Outcome::logic_error, "call start() first"},
        {"start() a running profile again",
         [] {
             p::Profile profile;
             profile.start();
             profile.start();
         },
         Outcome::logic_error, "already running"},
        {"start a second profile while one runs",
         [] {
             p::Profile first, second;
             first.start();
             second.start();
         },
         Outcome::logic_error, "another profile is running"},
        {"key_averages() before stop()",
         [] {
             p::Profile profile;
             profile.start();
             (void)profile.key_averages();
         },
         Outcome::logic_error, "call stop() first"},
        {"export_chrome_trace() before stop()",
         [] {
             p::Profile profile;
             profile.start();
             profile.export_chrome_trace("/tmp/never-written.json");
         },
         Outcome::logic_error, "call stop() first"},
        {"a schedule with no active step", [] { p::Profile({.schedule = p::Schedule{.active = 0}}); },
         Outcome::invalid_argument, "active must be at least 1"},
        {"step() from on_trace_ready",
         [] {
             p::Profile profile({.schedule = p::Schedule{.wait = 0, .warmup = 1, .active = 1},
                                 .on_trace_ready = [](p::Profile& self) { self.step(); }});
             profile.start();
             profile.step();
             profile.step();
         },
         Outcome::logic_error, "step the profile from the loop"},
        {"an on_trace_ready that throws, at a ProfileScope's end",
         [] {
             p::Profile profile({.on_trace_ready = [](p::Profile&) { throw std::runtime_error("disk full"); }});
             { const p::ProfileScope scope(profile); }  // reported, not std::terminate
             if (profile.last_error().find("disk full") == std::string::npos) throw std::runtime_error("not reported");
         },
         Outcome::safe_result},
        {"an on_trace_ready that stops the profile",
         [] {
             p::Profile profile({.schedule = p::Schedule{.wait = 0, .warmup = 1, .active = 1},
                                 .on_trace_ready = [](p::Profile& self) { self.stop(); }});
             profile.start();
             profile.step();
             profile.step();  // the handler runs and stops it: nothing records past it
             if (profile.running() || p::is_recording()) throw std::runtime_error("still recording");
         },
         Outcome::safe_result},
        {"a scope ended on another thread than it began",
         [] {
             p::Profile profile;
             profile.start();
             auto scope = std::make_unique<p::RecordFunction>("handed over");
             std::thread([&] { scope.reset(); }).join();
             profile.stop();
             if (profile.trace().events.size() != 1 || profile.trace().events[0].end_ns >= profile.trace().end_ns) {
                 throw std::runtime_error("the end was not matched to its begin");
             }
         },
         Outcome::safe_result},
        // Tensors and the kernel set
        {"a shape whose element count overflows", [] { (void)k::Tensor::empty({std::int64_t{1} << 62, 4}, k::DType::f32); },
         Outcome::invalid_argument, "[4611686018427387904, 4]"},
        {"a negative dimension", [] { (void)k::Tensor::empty({-1}, k::DType::f32); }, Outcome::invalid_argument, "-1"},
        {"an op on a moved-from tensor",
         [] {
             k::Tensor a = k::Tensor::zeros({4}, k::DType::f32);
             const k::Tensor b = std::move(a);
             (void)k::relu(a);  // NOLINT(bugprone-use-after-move): the mistake under test
         },
         Outcome::invalid_argument, "undefined tensor"},
        {"an allocation observer that throws",
         [] {
             k::set_allocation_observer([](const k::AllocationEvent&) { throw std::runtime_error("observer refuses"); });
             try {
                 (void)k::Tensor::empty({16}, k::DType::f32);
             } catch (...) {
                 k::set_allocation_observer(nullptr);
                 throw;
             }
             k::set_allocation_observer(nullptr);
         },
         Outcome::runtime_error, "observer refuses"},
        // Timers and measurements
        {"a Timer without a statement", [] { Timer({}); }, Outcome::invalid_argument, ""},
        {"a Timer with num_threads 0", [] { Timer({.stmt = [] {}, .num_threads = 0}); }, Outcome::invalid_argument,
         "num_threads must be >= 1"},
        {"a Timer run from inside its own statement",
         [] {
             Timer* self = nullptr;
             Timer timer({.stmt = [&] {
                 if (self != nullptr) (void)self->timeit(1);
             }});
             self = &timer;
             (void)timer.timeit(1);
         },
         Outcome::logic_error, "already running"},
        {"two Timers at once on two threads with different num_threads",
         [] {
             std::atomic<bool> held{false}, released{false};
             Timer first({.stmt = [&] {
                              if (!held.exchange(true)) {
                                  while (!released.load()) std::this_thread::yield();
                              }
                          },
                          .num_threads = 2});
             std::thread holder([&] { (void)first.timeit(1); });
             while (!held.load()) std::this_thread::yield();
             try {
                 (void)Timer({.stmt = [] {}, .num_threads = 1}).timeit(1);
             } catch (...) {
                 released = true;
                 holder.join();
                 throw;
             }
             released = true;
             holder.join();
         },
         Outcome::logic_error, "different num_threads"},
        {"a Measurement with a NaN CPU time", [] { Measurement(1, {1e-3}, TaskSpec{.stmt = "x"}, {std::nan("")}); },
         Outcome::invalid_argument, "CPU time nan"},
        {"a Measurement with a negative block time", [] { Measurement(1, {-1e-3}, TaskSpec{.stmt = "x"}); },
         Outcome::invalid_argument, "not a finite time"},
        {"Compare of a zero median",
         [] {
             const std::string table =
                 vitals::Compare({Measurement(1, {0.0, 0.0}, TaskSpec{.stmt = "x", .label = "zero"})}).to_string();
             if (table.find("zero") == std::string::npos) throw std::runtime_error("no row");
         },
         Outcome::safe_result},
        // Statistics
        {"a quantile of a sample with NaN",
         [] {
             const std::vector<double> sample = {1.0, std::nan(""), 3.0};
             if (!std::isnan(vitals::stats::quantile(sample, 0.5))) throw std::runtime_error("NaN in, a number out");
         },
         Outcome::safe_result},
        {"trim_sigfig of a subnormal",
         [] {
             const double trimmed = vitals::stats::trim_sigfig(1e-320, 3);
             if (!std::isfinite(trimmed)) throw std::runtime_error("not finite");
         },
         Outcome::safe_result},
    };
    return rows;
}

std::string outcome_name(Outcome o) {
    switch (o) {
        case Outcome::invalid_argument: return "std::invalid_argument";
        case Outcome::logic_error: return "std::logic_error";
        case Outcome::runtime_error: return "std::runtime_error";
        case Outcome::safe_result: return "a safe result";
    }
    return "?";
}

}  // namespace

TEST(ApiMisuse, EveryMistakeHasItsStatedOutcome) {
    for (const Misuse& row : misuse_table()) {
        SCOPED_TRACE(row.mistake);
        Outcome got = Outcome::safe_result;
        std::string message;
        try {
            row.attempt();
        } catch (const std::invalid_argument& e) {
            got = Outcome::invalid_argument;
            message = e.what();
        } catch (const std::logic_error& e) {
            got = Outcome::logic_error;
            message = e.what();
        } catch (const std::runtime_error& e) {
            got = Outcome::runtime_error;
            message = e.what();
        }
        EXPECT_EQ(outcome_name(got), outcome_name(row.outcome)) << message;
        EXPECT_NE(message.find(row.mentions), std::string::npos) << "message: " << message;
        EXPECT_FALSE(p::is_recording()) << "a row left recording on";
    }
}
