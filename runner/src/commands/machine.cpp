// vitals machine: this machine's own limits (bandwidth per cache level, peak FLOP/s),
// measured once and cached, against which cases are placed on the roofline.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "../command.hpp"
#include "../output_flag.hpp"
#include "vitals/atomic_file.hpp"
#include "vitals/machine.hpp"

namespace vitals::cli {
namespace {

class MachineCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_flag("--refresh", refresh_, "Measure again, even when figures of this machine are cached");
        json_.declare(app, "--json", "Also write the figures as JSON");
    }

    void run(const CommandContext&) override {
        const std::optional<OutputFile> json = json_.prepare({});  // before measuring, whose figures it receives
        const bool terminal = ::isatty(STDERR_FILENO) != 0;
        bool line_open = false;  // a progress line waits for its end
        bool cache_failed = false;
        const auto warn = [&](const std::string& message) {
            fmt::print(stderr, "{}vitals: warning: {}\n", line_open ? "\n" : "", message);
            line_open = false;
            cache_failed = true;
        };
        const machine::Identity id = machine::identify();
        std::optional<machine::Limits> cached = refresh_ ? std::nullopt : machine::load_cached(id, warn);
        if (cached) {
            if (const std::optional<std::string> again = machine::measure_again_now(*cached)) {
                fmt::print(stderr, "vitals: note: {}\n", *again);
                cached.reset();
            }
        }
        machine::Limits limits;
        if (cached) {
            limits = *cached;
            fmt::print(stderr, "figures measured {} (cached in {}; --refresh measures again)\n", limits.measured_at,
                       machine::cache_file(id).value_or("?").string());
        } else {
            limits = machine::measure([&](std::string_view what, double done) {
                if (terminal) {
                    fmt::print(stderr, "\r[{:3.0f}%] measuring {:<40}", done * 100, what);
                    line_open = true;
                } else if (what != "done") {
                    fmt::print(stderr, "measuring {}\n", what);
                }
            });
            if (line_open) fmt::print(stderr, "\n");
            line_open = false;
            cache_failed = false;  // what matters now is whether these figures are kept
            machine::store_cached(limits, warn);
            if (!cache_failed) fmt::print(stderr, "cached in {}\n", machine::cache_file(id).value_or("?").string());
        }
        fmt::print("{}", machine::table(limits));
        if (json) json->write(machine::to_json(limits));
    }

private:
    bool refresh_ = false;
    OutputFlag json_;
};

}  // namespace

std::unique_ptr<Command> make_machine_command() { return std::make_unique<MachineCommand>(); }

}  // namespace vitals::cli
