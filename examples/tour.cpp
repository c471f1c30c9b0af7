// `make demo`: a short tour of vitals for a new user (a few seconds).
#include <unistd.h>
#include <vitals/kernels/kernels.hpp>
#include <vitals/vitals.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <fmt/format.h>
#include <vitals/atomic_file.hpp>
#include <vitals/profiler/profile.hpp>
#include <vitals/results/ab_report.hpp>
#include <vitals/significance.hpp>

namespace {

void heading(const std::string& text) { std::cout << "\n=== " << text << " ===\n\n"; }

namespace k = vitals::kernels;

vitals::Timer matmul_timer(std::int64_t n, k::DType dtype) {
    auto x = std::make_shared<k::Tensor>(k::Tensor::randn({n, n}, dtype, k::Device::cpu, 1));
    auto y = std::make_shared<k::Tensor>(k::Tensor::randn({n, n}, dtype, k::Device::cpu, 2));
    return vitals::Timer({
        .stmt = vitals::Code([x, y] { vitals::do_not_optimize(k::matmul(*x, *y)); }, "matmul(x, y)"),
        .label = "x @ y",
        .sub_label = std::to_string(n) + "x" + std::to_string(n),
        .description = std::string("cpu ") + std::string(k::dtype_short_name(dtype)),
    });
}

}  // namespace

namespace p = vitals::profiler;

void profiler_walkthrough(const std::filesystem::path& out) {
    k::Mlp model;  // Linear(512, 1024), ReLU, Linear(1024, 512)
    const k::Tensor x = k::Tensor::randn({32, 512}, k::DType::f32, k::Device::cpu, 1);

    // The forward pass as a Timer runs it (one thread, as in sections 1 to 3), so the
    // profiled times agree with the timed ones.
    vitals::Timer forward({.stmt =
                               [&] {
                                   VITALS_RECORD_FUNCTION("forward");
                                   model.forward(x);
                               },
                           .label = "forward"});

    heading("4. Profiler: where the forward pass spends its time");
    {
        const p::Trace trace = forward.profile({.profile = {.record_shapes = true}});
        std::cout << trace.key_averages().table({.sort_by = "cpu_time_total", .row_limit = 8});
        std::cout << "\nGrouped by input shape, linear splits into its two layers:\n";
        std::cout << trace.key_averages({.group_by_input_shape = true}).table({.sort_by = "cpu_time_total", .row_limit = 8});
    }

    heading("5. Profiler with profile_memory: who allocates");
    {
        const p::Trace trace = forward.profile({.profile = {.record_shapes = true, .profile_memory = true}});
        std::cout << trace.key_averages().table({.sort_by = "self_cpu_memory_usage", .row_limit = 8});
        const auto trace_path = out / "trace.json";
        trace.export_chrome_trace(trace_path);
        std::cout << "\nTrace written to " << trace_path.string()
                  << ": open it in ui.perfetto.dev or chrome://tracing.\n";
    }

    heading("6. The tutorial's training step under schedule(wait=2, warmup=1, active=3), over 12 steps");
    {
        k::Sgd sgd(model, 0.01);
        const k::Tensor target = k::Tensor::randn({32, 512}, k::DType::f32, k::Device::cpu, 2);
        const auto logs = out / "logs";
        int traces = 0;
        const p::TraceReadyHandler write = p::tensorboard_trace_handler(logs);
        vitals::Timer training({.stmt = [&] { k::train_step(model, sgd, x, target); }, .label = "train_step"});
        // Forward, loss, backward (autograd's nodes), optimizer step and zero_grad, as torch's table.
        training.profile({.steps = 12,
                          .profile = {.schedule = p::Schedule{.wait = 2, .warmup = 1, .active = 3},
                                      .on_trace_ready = [&](p::Profile& done) {
                                          ++traces;
                                          std::cout << "trace " << traces << ":\n"
                                                    << done.key_averages().table(
                                                           {.sort_by = "cpu_time_total", .row_limit = 12});
                                          write(done);
                                      }}});
        std::cout << "\n" << traces << " traces written to " << logs.string() << " (TensorBoard's layout).\n";
    }
}

void before_and_after(const std::filesystem::path& out) {
    heading("7. The tutorial's case study: MASK INDICES, before and after");
    std::cout << "before: the mask in double, copied to the host, indices found there (NumPy's argwhere)\n"
                 "after:  the mask in bool from float data, nonzero where the data lives\n\n";
    auto workload = std::make_shared<k::MaskIndices>(std::int64_t{1} << 20, k::Device::cpu, 0.5);
    std::vector<vitals::CaseResult> runs[2];
    std::vector<vitals::Measurement> measured;
    p::Trace profiles[2];
    std::vector<vitals::Timer> timers;
    for (int after = 0; after < 2; ++after) {
        timers.push_back(vitals::Timer({
            .stmt = vitals::Code([workload, after] { vitals::do_not_optimize(after ? workload->after() : workload->before()); },
                                 after ? "nonzero(gt(x32, t))" : "nonzero(copy_to(gt(x64, t, f64), cpu))"),
            .label = "MASK INDICES",
            .sub_label = "1M at 50%",
            .description = after ? "after" : "before",
        }));
    }
    for (int after = 0; after < 2; ++after) {
        vitals::Timer& timer = timers[static_cast<std::size_t>(after)];
        measured.push_back(timer.blocked_autorange({.min_run_time = 0.3}));
        runs[after].push_back({"mask_indices/1M/cpu", measured.back(), "", ""});
        profiles[after] = timer.profile({.number = 10});
    }
    vitals::Compare compare(measured);
    compare.trim_significant_figures();
    std::cout << compare << "\n";

    const vitals::stats::Change change = vitals::stats::test_change(measured[0].times(), measured[1].times());
    std::cout << "verdict: " << vitals::stats::verdict_name(change.verdict) << ", " << fmt::format("{:+.1f}%", change.change * 100)
              << fmt::format(" (two-sided Mann-Whitney U test, p = {:.2g})", change.p_value) << "\n";

    // The two measured one after the other above; interleaved, round by round, they share
    // whatever the machine does meanwhile (vitals ab on the command line).
    std::cout << "\nInterleaved: vitals::ab({before, after}, {.max_run_time = 3})\n"
              << vitals::render_ab_text(vitals::ab({timers[0], timers[1]}, {.max_run_time = 3}));

    for (int after = 0; after < 2; ++after) {
        std::cout << "\nProfile " << (after ? "after" : "before") << " (10 calls):\n"
                  << profiles[after].key_averages().table({.sort_by = "cpu_time_total", .row_limit = 6});
    }
    // The region per call and as a share of the profile, as the tutorial reads its table.
    const auto region = [](const p::Trace& trace) {
        double us = 0, total = 0;
        std::int64_t calls = 1;
        for (const p::KeyAverage& row : trace.key_averages().rows()) {
            total += row.self_cpu_time_total_us;
            if (row.key == "MASK INDICES") us = row.cpu_time_total_us, calls = row.count;
        }
        return std::pair{us / static_cast<double>(calls), total > 0 ? 100 * us / total : 0.0};
    };
    const auto [before_us, before_share] = region(profiles[0]);
    const auto [after_us, after_share] = region(profiles[1]);
    std::cout << fmt::format("\nMASK INDICES: {:.0f} us a call before ({:.0f}% of the profile), {:.0f} us after ({:.0f}%).\n",
                             before_us, before_share, after_us, after_share);
    const auto share = [](const p::Trace& trace, std::initializer_list<const char*> names) {
        double part = 0, total = 0;
        for (const p::KeyAverage& row : trace.key_averages().rows()) {
            total += row.self_cpu_time_total_us;
            for (const char* n : names) part += row.key == n ? row.self_cpu_time_total_us : 0;
        }
        return total > 0 ? 100 * part / total : 0.0;
    };
    std::cout << fmt::format(
        "\nBefore, the double mask and its trip to the host (gt, copy_to) take {:.0f}% of the time, and nonzero\n"
        "scans 8 bytes per element. After, copy_to is gone ({:.0f}%) and nonzero scans 1 byte per element.\n",
        share(profiles[0], {"gt", "copy_to"}), share(profiles[1], {"copy_to"}));

    const auto report = out / "mask_indices.html";
    vitals::write_file_atomically(report, vitals::html_report({{"before", vitals::samples_of(runs[0])},
                                                                {"after", vitals::samples_of(runs[1])}}));
    std::cout << "\nHTML report written to " << report.string() << "\n";
}

int main(int argc, char** argv) {
    const std::filesystem::path out = argc > 1 ? argv[1] : "vitals-tour";
    std::filesystem::create_directories(out);
    heading("1. Timer.blocked_autorange: the tutorial's x @ y on 128x128 float matrices");
    std::cout << "vitals::Timer timer({.stmt = [x, y] { vitals::do_not_optimize(matmul(*x, *y)); }, .label = \"x @ y\", ...});\n"
                 "std::cout << timer.blocked_autorange({.min_run_time = 0.5});\n\n";
    std::cout << matmul_timer(128, k::DType::f32).blocked_autorange({.min_run_time = 0.5}) << "\n";

    heading("2. Compare: x @ y at three sizes, float against double");
    std::vector<vitals::Measurement> results;
    for (std::int64_t n : {64, 128, 256}) {
        for (k::DType dtype : {k::DType::f32, k::DType::f64}) {
            results.push_back(matmul_timer(n, dtype).blocked_autorange({.min_run_time = 0.1}));
        }
    }
    vitals::Compare compare(results);
    compare.trim_significant_figures();
    if (isatty(STDOUT_FILENO)) compare.colorize();
    std::cout << compare;

    heading("3. Timer.adaptive_autorange: stop once IQR/median < 5%");
    std::cout << matmul_timer(64, k::DType::f32).adaptive_autorange({.threshold = 0.05, .max_run_time = 2.0}) << "\n";

    profiler_walkthrough(out);
    before_and_after(out);

    heading("Next");
    std::cout << "build/bin/vitals list                       # the built-in cases\n"
                 "build/bin/vitals timeit matmul/128x128/cpu-f32\n"
                 "build/bin/vitals ab mask_indices/1M/cpu-before mask_indices/1M/cpu-after\n"
                 "build/bin/vitals run --filter mask_indices --json results.json\n"
                 "build/bin/vitals profile mlp_forward/32x512/cpu-f32 --record-shapes --trace trace.json\n";
}
