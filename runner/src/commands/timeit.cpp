// vitals timeit NAME: one case's Measurement, optionally with instructions per call.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "../command.hpp"
#include "../flags.hpp"
#include "../measure_case.hpp"
#include "../measure_flags.hpp"
#include "../output_flag.hpp"
#include "vitals/results/roofline.hpp"
#include "vitals/atomic_file.hpp"
#include "vitals/instructions.hpp"
#include "vitals/internal/process.hpp"

namespace vitals::cli {
namespace {

constexpr std::int64_t kMaxCalls = 1'000'000'000'000;  // a block of 10^12 calls: hours even for an empty statement

class TimeitCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_option("name", name_, "The case's name (see 'vitals list')")->required();
        measure_.declare(app);
        axes_.declare(app);
        app.add_option("--number", measure_.number, "Time exactly one block of N calls (after a warm-up)")
            ->transform(decimal_integer(1, kMaxCalls))
            ->excludes("--adaptive")
            ->excludes("--min-run-time");
        auto* json = json_.declare(app, "--json", "Also write the results as JSON (Google Benchmark layout)");
        layout_.declare(app, json);
        app.add_flag("--roofline", roofline_,
                     "Also place the case against this machine's limits (measured once by 'vitals machine', then cached)");
        app.add_flag("--instructions", instructions_,
                     "Also count instructions per call (hardware counters, or a run under Callgrind)");
    }

    void run(const CommandContext& context) override {
        measure_.validate();
        std::optional<Registry> replaced;
        const Case& c = find_case(axes_.apply(context.registry, replaced), name_);
        const std::int64_t count_number = measure_.number.value_or(InstructionOptions{}.number);
        if (instructions_ && is_callgrind_child()) {  // the run under Callgrind: count, nothing else
            Timer timer = c.timer();
            timer.collect_instructions({.number = count_number});
            return;
        }
        output_ = json_.prepare({});  // before measuring
        RunContext run{.machine_check = machine::check_machine({.sample_seconds = 0})};
        CaseResult result = run_case(c, measure_);
        if (instructions_ && result.measurement) {
            print_with_instructions(context, c, std::move(result), count_number, run);
            return;
        }
        // Results first, the roofline's machine and the printing after: neither can lose them.
        if (output_) output_->write(results_to_json({result}, context.executable, run, layout_.layout()));
        if (!result.skipped.empty()) fmt::print("{}: skipped: {}\n", c.name, result.skipped);
        if (result.measurement) {
            fmt::print("{}\n", result.measurement->to_string());
            note_machine_disturbances(*run.machine_check, std::span<const CaseResult>(&result, 1));
            if (roofline_) {
                machine::Limits limits;
                try {
                    limits = limits_for_roofline();
                } catch (const std::exception& e) {
                    print_error(fmt::format("no roofline: {}{}", e.what(), json_.given() ? "; the results were written without it" : ""));
                    throw Failed();
                }
                if (const std::optional<RooflinePoint> point = place_case(limits, *result.measurement)) {
                    fmt::print("{}\n", roofline_line(*point, result.measurement->task_spec().work));
                    run.roofline.push_back({c.name, *point});
                    run.ceilings = ceilings_of(limits);
                    if (output_) output_->write(results_to_json({result}, context.executable, run, layout_.layout()));
                } else {
                    fmt::print("  Roofline: the case states no bytes or flops per call (TimerOptions::bytes_per_call, "
                               ".flops_per_call)\n");
                }
            }
        }
        if (!result.error.empty()) {
            print_error(result.error);
            throw Failed();
        }
    }

private:
    void print_with_instructions(const CommandContext& context, const Case& c, CaseResult result, std::int64_t number,
                                 const RunContext& run) {
        std::string source;
        try {
            Timer timer = c.timer();
            result.instructions = timer.collect_instructions({.number = number}).per_call();
            source = "hardware counters";
        } catch (const std::runtime_error&) {
            // No counters here: this program again, under Callgrind, counting the same case.
            result.instructions = count_under_callgrind(
                {self_executable(), "timeit", c.name, "--instructions", "--number", std::to_string(number)}, number);
            source = "Callgrind";
        }
        fmt::print("{}\n  {:.0f} instructions per call ({}, {} calls)\n", result.measurement->to_string(),
                   *result.instructions, source, number);
        if (output_) {
            CaseResult for_json = run_case(c, measure_);  // the timing again, now with the counter attached
            for_json.instructions = result.instructions;
            output_->write(results_to_json({for_json}, context.executable, run, layout_.layout()));
        }
        note_machine_disturbances(*run.machine_check, std::span<const CaseResult>(&result, 1));
    }

    std::string name_;
    MeasureOptions measure_;
    OutputFlag json_;
    std::optional<OutputFile> output_;
    ResultsLayoutFlags layout_;
    AxisFlags axes_;
    bool instructions_ = false;
    bool roofline_ = false;
};

}  // namespace

std::unique_ptr<Command> make_timeit_command() { return std::make_unique<TimeitCommand>(); }

}  // namespace vitals::cli
