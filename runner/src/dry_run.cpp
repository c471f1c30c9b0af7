#include "dry_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

#include "vitals/results/markup.hpp"
#include "vitals/stats.hpp"

namespace vitals::cli {

std::vector<CaseResult> dry_run(const std::vector<const Case*>& cases) {
    std::vector<CaseResult> results;
    std::size_t ok = 0, skipped = 0, failed = 0;
    for (const Case* c : cases) {
        CaseResult result{c->name, std::nullopt, "", ""};
        try {
            Timer timer = c->timer();
            result.measurement = timer.run_once();
        } catch (const SkipCase& skip) {
            result.skipped = skip.what();
        } catch (const std::exception& e) {
            result.error = e.what();
        } catch (...) {
            result.error = "it threw a non-standard exception";
        }
        // Names and messages as the terminal should show them: one line each.
        const std::string name = terminal_safe(c->name);
        if (!result.error.empty()) {
            ++failed;
            fmt::print("failed   {}: {}\n", name, terminal_safe(result.error));
        } else if (!result.skipped.empty()) {
            ++skipped;
            fmt::print("skipped  {}: {}\n", name, terminal_safe(result.skipped));
        } else {
            ++ok;
            fmt::print("ok       {} ({} for one call)\n", name, stats::format_seconds(result.measurement->median()));
        }
        std::fflush(stdout);  // each line as its case ends, so a crash shows which case it was
        results.push_back(std::move(result));
    }
    fmt::print("dry run: {} case{}, {} ok, {} skipped, {} failed\n", cases.size(), cases.size() == 1 ? "" : "s", ok,
               skipped, failed);
    return results;
}

}  // namespace vitals::cli
