// vitals list [--filter REGEX]: the case names, one a line.
#include <fmt/format.h>

#include <CLI/CLI.hpp>

#include "../command.hpp"

namespace vitals::cli {
namespace {

class ListCommand final : public Command {
public:
    void declare(CLI::App& app) override {
        app.add_option("--filter", filter_, "Only names matching this regular expression");
        axes_.declare(app);
    }
    int run(const CommandContext& context) override {
        std::optional<Registry> replaced;
        const Registry& registry = axes_.apply(context.registry, replaced);
        for (const Case* c : matching_cases(registry, filter_)) fmt::print("{}\n", c->name);
        for (const std::string& why : registry.skipped_families()) {
            fmt::print(stderr, "a case family was skipped (its cases are not listed): {}\n", why);
        }
        return 0;
    }

private:
    std::optional<std::string> filter_;
    AxisFlags axes_;
};

}  // namespace

std::unique_ptr<Command> make_list_command() { return std::make_unique<ListCommand>(); }

}  // namespace vitals::cli
