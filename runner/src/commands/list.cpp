// vitals list [--filter REGEX] [--names]: the case names, one a line; a case that cannot
// run here is marked "  skipped: <reason>" after its name (--names leaves the marks out).
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "../command.hpp"
#include "vitals/results/markup.hpp"
#include "../flags.hpp"

namespace vitals::cli {
namespace {

class ListCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_option("--filter", filter_, "Only names matching this regular expression");
        app.add_flag("--names", names_only_, "The names alone, with no 'skipped: <reason>' marks (for scripts)");
        axes_.declare(app);
    }
    void run(const CommandContext& context) override {
        std::optional<Registry> replaced;
        const Registry& registry = axes_.apply(context.registry, replaced);
        for (const Case* c : matching_cases(registry, filter_)) {
            const std::string skipped = names_only_ || !c->skip_reason ? std::string() : c->skip_reason();
            if (skipped.empty()) {
                fmt::print("{}\n", c->name);
            } else {
                fmt::print("{}  skipped: {}\n", c->name, terminal_safe(skipped));
            }
        }
        for (const std::string& why : registry.skipped_families()) {
            fmt::print(stderr, "a case family was skipped (its cases are not listed): {}\n", terminal_safe(why));
        }
    }

private:
    std::optional<std::string> filter_;
    bool names_only_ = false;
    AxisFlags axes_;
};

}  // namespace

std::unique_ptr<Command> make_list_command() { return std::make_unique<ListCommand>(); }

}  // namespace vitals::cli
