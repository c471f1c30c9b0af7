// vitals machine: this machine's own limits (bandwidth per cache level, peak FLOP/s),
// measured once and cached, against which cases are placed on the roofline.
#include <fmt/format.h>
#include <unistd.h>

#include <CLI/CLI.hpp>

#include "../command.hpp"
#include "vitals/atomic_file.hpp"
#include "vitals/machine.hpp"

namespace vitals::cli {
namespace {

class MachineCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_flag("--refresh", refresh_, "Measure again, even when figures of this machine are cached");
        app.add_option("--json", json_path_, "Also write the figures as JSON");
    }

    int run(const CommandContext&) override {
        if (json_path_) {
            check_output_path(*json_path_);
            json_path_ = reserve_standard_output(*json_path_);
        }
        const bool terminal = ::isatty(STDERR_FILENO) != 0;
        const machine::Identity id = machine::identify();
        const std::optional<machine::Limits> cached = refresh_ ? std::nullopt : machine::load_cached(id);
        machine::Limits limits;
        if (cached) {
            limits = *cached;
            fmt::print(stderr, "figures measured {} (cached in {}; --refresh measures again)\n", limits.measured_at,
                       machine::cache_file(id).string());
        } else {
            limits = machine::limits(true, [terminal](std::string_view what, double done) {
                if (terminal) {
                    fmt::print(stderr, "\r[{:3.0f}%] measuring {:<40}", done * 100, what);
                } else if (what != "done") {
                    fmt::print(stderr, "measuring {}\n", what);
                }
            });
            if (terminal) fmt::print(stderr, "\n");
            fmt::print(stderr, "cached in {}\n", machine::cache_file(id).string());
        }
        fmt::print("{}", machine::table(limits));
        if (json_path_) write_file_atomically(*json_path_, machine::to_json(limits));
        return 0;
    }

private:
    bool refresh_ = false;
    std::optional<std::string> json_path_;
};

}  // namespace

std::unique_ptr<Command> make_machine_command() { return std::make_unique<MachineCommand>(); }

}  // namespace vitals::cli
