// vitals doctor: what on this machine would disturb a measurement, each finding with the
// command that fixes it (as pyperf's `system show` prints).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "../command.hpp"
#include "../output_flag.hpp"
#include "vitals/atomic_file.hpp"
#include "vitals/machine_check.hpp"
#include "vitals/results/markup.hpp"

namespace vitals::cli {
namespace {

class DoctorCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_option("--sample", sample_seconds_, "Seconds to watch the other processes' CPU use (default 0.5; 0: not at all)")
            ->check(CLI::Range(0.0, 60.0));
        json_.declare(app, "--json", "Also write the findings as JSON");
    }

    void run(const CommandContext&) override {
        const std::optional<OutputFile> json = json_.prepare({});
        const std::vector<machine::Finding> findings = machine::check_machine({.sample_seconds = sample_seconds_});
        std::size_t warnings = 0;
        nlohmann::json out = nlohmann::json::array();
        for (const machine::Finding& f : findings) {
            warnings += f.verdict == machine::Verdict::warn ? 1 : 0;
            fmt::print("{:<5} {}: {}\n", machine::verdict_name(f.verdict), f.what, terminal_safe(f.state));
            if (!f.why.empty()) fmt::print("      {}\n", f.why);
            if (!f.fix.empty()) fmt::print("      fix: {}\n", f.fix);
            out.push_back({{"what", f.what}, {"state", f.state}, {"verdict", machine::verdict_name(f.verdict)},
                           {"why", f.why}, {"fix", f.fix}});
        }
        fmt::print("{}\n", warnings == 0 ? "nothing here should disturb a measurement"
                                         : fmt::format("{} finding{} may disturb measurements (warn)", warnings,
                                                       warnings == 1 ? "" : "s"));
        if (json) json->write(out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    }

private:
    double sample_seconds_ = 0.5;
    OutputFlag json_;
};

}  // namespace

std::unique_ptr<Command> make_doctor_command() { return std::make_unique<DoctorCommand>(); }

}  // namespace vitals::cli
