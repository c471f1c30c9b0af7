// What the commands share: error lines, case lookup, results files as input.
#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>
#include <filesystem>
#include <optional>

#include "command.hpp"
#include "vitals/history.hpp"
#include "vitals/machine_check.hpp"
#include "vitals/results/markup.hpp"

namespace vitals::cli {
namespace {

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

}  // namespace

// Messages quote names and text from files and cases: shown, never obeyed by the terminal.
void print_error(const std::string& message) { fmt::print(stderr, "vitals: error: {}\n", terminal_safe(message)); }

void throw_history_error(const history::HistoryError& e) {
    if (dynamic_cast<const history::HistoryFailure*>(&e) != nullptr) throw std::runtime_error(e.what());
    throw UsageError(e.what());
}

std::vector<const Case*> matching_cases(const Registry& registry, const std::optional<std::string>& filter) {
    std::optional<re2::RE2> re;
    if (filter) {
        re2::RE2::Options options;
        options.set_log_errors(false);
        re.emplace(*filter, options);
        if (!re->ok()) {
            throw UsageError(fmt::format("invalid --filter regex '{}': {}; write it in RE2's syntax (ECMAScript's without "
                                         "backreferences or lookaround)",
                                         *filter, re->error()));
        }
    }
    std::vector<const Case*> out;
    for (const Case& c : registry.cases()) {
        if (!re || re2::RE2::PartialMatch(c.name, *re)) out.push_back(&c);
    }
    return out;
}

std::vector<std::string> near_names(const std::string& name, const std::vector<std::string>& candidates) {
    std::vector<std::pair<std::size_t, std::string>> scored;
    for (const std::string& c : candidates) {
        const std::size_t d = edit_distance(name, c);
        if (d <= std::max<std::size_t>(3, name.size() / 3)) scored.emplace_back(d, c);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (std::size_t i = 0; i < scored.size() && i < 3; ++i) out.push_back(scored[i].second);
    return out;
}

const Case& find_case(const Registry& registry, const std::string& name) {
    if (const Case* c = registry.find(name)) return *c;
    std::string hint;
    std::size_t best = std::string::npos;
    for (const Case& c : registry.cases()) {
        const std::size_t d = edit_distance(name, c.name);
        if (d < best && d <= std::max<std::size_t>(3, name.size() / 3)) {
            best = d;
            hint = fmt::format(" (did you mean '{}'?)", c.name);
        }
    }
    throw UsageError(fmt::format("no case named '{}'{}; 'vitals list' shows the cases", name, hint));
}

std::string junit_classname(const CommandContext& context, const std::string& command) {
    std::string program = std::filesystem::path(context.executable).filename().string();
    std::replace(program.begin(), program.end(), '.', '_');
    return (program.empty() ? std::string("vitals") : program) + "." + command;
}

ResultsFile read_results_file_or_usage_error(const std::string& path, std::vector<std::string>& warnings) {
    ResultsFile file;
    try {
        file = read_results_file(path);
    } catch (const ResultsFileError& e) {
        throw UsageError(e.what());
    }
    for (const CaseSamples& c : file.cases) {
        if (c.seconds.empty()) continue;
        for (const std::string& failure : c.failed_processes) {
            warnings.push_back(fmt::format("'{}': case '{}' failed in {}; its other processes' blocks are compared", path,
                                           c.name, failure));
        }
    }
    if (file.incomplete) {
        const auto measured = std::count_if(file.cases.begin(), file.cases.end(), [](const CaseSamples& c) { return !c.seconds.empty(); });
        warnings.push_back(fmt::format("'{}' is marked incomplete: its run was interrupted or lost a process ({} case{} measured{})", path,
                                       measured, measured == 1 ? "" : "s",
                                       file.cases_planned > 0 ? fmt::format(" of {} planned", file.cases_planned) : ""));
    }
    return file;
}

void note_machine_disturbances(const std::vector<machine::Finding>& machine_check, std::span<const CaseResult> results) {
    const std::string summary = machine::warnings_summary(machine_check);
    if (!summary.empty()) fmt::print(stderr, "vitals: note: this machine may disturb the results: {} (see 'vitals doctor')\n", summary);
    // Counters refused, grouped by why (each case asked the same kernel, so once each).
    std::vector<std::pair<std::string, std::string>> refused;  // why, names
    for (const CaseResult& r : results) {
        if (!r.measurement) continue;
        for (const std::string& entry : r.measurement->counters().unavailable) {
            const std::size_t colon = entry.find(": ");
            const std::string name = entry.substr(0, colon);
            const std::string why = colon == std::string::npos ? "" : entry.substr(colon + 2);
            auto it = std::find_if(refused.begin(), refused.end(), [&](const auto& p) { return p.first == why; });
            if (it == refused.end()) it = refused.insert(refused.end(), {why, ""});
            if ((", " + it->second + ",").find(", " + name + ",") == std::string::npos) {
                it->second += (it->second.empty() ? "" : ", ") + name;
            }
        }
    }
    for (const auto& [why, names] : refused) {
        fmt::print(stderr, "vitals: note: counters not read: {}: {} (the others are; --counters chooses)\n", names, why);
    }
}

}  // namespace vitals::cli
