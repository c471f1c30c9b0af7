#include "output_flag.hpp"

#include <CLI/CLI.hpp>

#include "command.hpp"

namespace vitals::cli {

CLI::Option* OutputFlag::declare(CLI::App& app, const std::string& names, const std::string& description) {
    return app.add_option(names, path_, description);
}

std::optional<OutputFile> OutputFlag::prepare(const Rules& rules) {
    if (!path_) return std::nullopt;
    path_ = output_for_this_rank(*path_, rules.shard);
    std::optional<OutputFile> file(std::in_place, *path_);
    if (!rules.inputs.empty()) check_outputs_are_not_inputs({*path_}, rules.inputs);
    write_path_ = *path_;
    if (rules.keep_standard_output && is_standard_output(*path_)) {
        write_path_ = reserve_standard_output(*path_);
        file.emplace(write_path_);
    }
    return file;
}

}  // namespace vitals::cli
