#include "vitals/results/trace_diff.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string_view>
#include <fstream>
#include <map>
#include <vector>

#include "vitals/results/markup.hpp"
#include "vitals/profiler/trace.hpp"
#include "vitals/stats.hpp"

namespace vitals {

bool looks_like_trace(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string head(4096, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(in.gcount()));
    // A gzip stream is a trace (tensorboard_trace_handler's .gz): results files are never gzipped.
    const bool gzipped = head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b;
    // torch's legacy profiler (1.13 without Kineto) writes a bare list of events: a results
    // file is always an object.
    const std::size_t first = head.find_first_not_of(" \t\r\n");
    const std::size_t second = first == std::string::npos ? first : head.find_first_not_of(" \t\r\n", first + 1);
    const bool bare_list = first != std::string::npos && head[first] == '[' && second != std::string::npos &&
                           (head[second] == '{' || head[second] == ']');
    return gzipped || bare_list || head.find("\"traceEvents\"") != std::string::npos ||
           head.find("\"schemaVersion\"") != std::string::npos;
}

namespace {

// "Timer.profile: relu: 32x1024 (4 calls)" -> title "relu: 32x1024", calls 4, for an
// annotation of that prefix; nullopt otherwise.
std::optional<std::pair<std::string, std::int64_t>> counted_annotation(std::string_view name, std::string_view prefix) {
    if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
    std::string_view rest = name.substr(prefix.size());
    for (const std::string_view tail : {std::string_view(" calls)"), std::string_view(" call)")}) {
        if (rest.size() <= tail.size() || rest.substr(rest.size() - tail.size()) != tail) continue;
        const std::string_view head = rest.substr(0, rest.size() - tail.size());
        const std::size_t open = head.rfind(" (");
        if (open == std::string_view::npos) return std::nullopt;
        const std::string_view digits = head.substr(open + 2);
        std::int64_t calls = 0;
        const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), calls);
        if (error != std::errc() || end != digits.data() + digits.size() || calls < 0) return std::nullopt;
        return std::pair{std::string(head.substr(0, open)), calls};
    }
    return std::nullopt;
}

// An operator's row key with the call count of an annotation left out, so that the
// annotations of windows of different sizes are one row.
std::string row_key(const std::string& key) {
    for (const std::string_view prefix : {std::string_view("Timer.profile: "), std::string_view("Timer block: ")}) {
        if (const auto counted = counted_annotation(key, prefix)) return std::string(prefix) + counted->first;
    }
    return key;
}

struct Side {
    double self_us = 0;
    std::int64_t calls = 0;
};

std::string percent_change(double before, double after) {
    if (before == 0) return after == 0 ? "+0.0%" : "-";
    return fmt::format("{:+.1f}%", (after / before - 1) * 100);
}

// The size of a change for sorting: |ln(after / before)|, infinite where one side is 0.
double change_size(double before, double after) {
    if (before == after) return 0;
    if (before <= 0 || after <= 0) return std::numeric_limits<double>::infinity();
    return std::fabs(std::log(after / before));
}

}  // namespace

TraceCalls trace_calls(const profiler::Trace& trace) {
    TraceCalls calls;
    for (const profiler::Event& e : trace.events) {
        if (e.name.rfind("ProfilerStep#", 0) == 0) {
            ++calls.steps;
        } else if (const auto counted = counted_annotation(e.name, "Timer.profile: ")) {
            calls.statement_calls = calls.statement_calls.value_or(0) + counted->second;
            if (calls.title.empty()) calls.title = counted->first;
        }
    }
    return calls;
}

std::string profile_diff_report(const profiler::Trace& before, const profiler::Trace& after, const std::string& before_name,
                                const std::string& after_name) {
    const TraceCalls calls[2] = {trace_calls(before), trace_calls(after)};
    std::map<std::string, std::pair<Side, Side>> by_name;
    std::vector<std::string> order;
    for (int side = 0; side < 2; ++side) {
        for (const profiler::KeyAverage& row : (side == 0 ? before : after).key_averages().rows()) {
            if (row.is_device_event) continue;  // device time: no self CPU time
            const std::string key = row_key(row.key);
            if (by_name.find(key) == by_name.end()) order.push_back(key);
            Side& s = side == 0 ? by_name[key].first : by_name[key].second;
            s.self_us += row.self_cpu_time_total_us;
            s.calls += row.count;
        }
    }
    const auto per_call = [](const Side& s) { return s.calls ? s.self_us / static_cast<double>(s.calls) : 0.0; };
    // Largest change per operator call first; an operator on one side only counts as the
    // largest; ties by self time.
    std::stable_sort(order.begin(), order.end(), [&](const std::string& x, const std::string& y) {
        const auto& [xb, xa] = by_name[x];
        const auto& [yb, ya] = by_name[y];
        const double dx = (xb.calls && xa.calls) ? change_size(per_call(xb), per_call(xa)) : std::numeric_limits<double>::infinity();
        const double dy = (yb.calls && ya.calls) ? change_size(per_call(yb), per_call(ya)) : std::numeric_limits<double>::infinity();
        if (dx != dy) return dx > dy;
        return std::max(xb.self_us, xa.self_us) > std::max(yb.self_us, ya.self_us);
    });

    const std::optional<std::int64_t> stmt_b = calls[0].statement_calls, stmt_a = calls[1].statement_calls;
    const bool per_statement = stmt_b.value_or(0) > 0 && stmt_a.value_or(0) > 0;
    const bool per_step = calls[0].steps > 0 && calls[1].steps > 0;
    // Totals compare only windows of the same size: the same statement calls, or, in
    // traces that do not say those, the same steps.
    std::string why_no_totals;
    if (stmt_b && stmt_a) {
        if (*stmt_b != *stmt_a) {
            why_no_totals = fmt::format("totals are not compared: the before trace holds {} call{} of the statement and the "
                                        "after trace {}; per-call times are",
                                        *stmt_b, *stmt_b == 1 ? "" : "s", *stmt_a);
        }
    } else if (per_step) {
        if (calls[0].steps != calls[1].steps) {
            why_no_totals = fmt::format("totals are not compared: the before trace holds {} step{} and the after trace {}; "
                                        "per-call and per-step times are",
                                        calls[0].steps, calls[0].steps == 1 ? "" : "s", calls[1].steps);
        }
    } else {
        why_no_totals = fmt::format("totals are not compared: the statement's calls are unknown in the {} trace (no "
                                    "'Timer.profile: ... (N calls)' annotation); per-operator-call times are",
                                    !stmt_b && !stmt_a ? "before and the after" : !stmt_b ? "before" : "after");
    }

    const auto us = [](double v) { return stats::format_seconds(v * 1e-6); };
    const auto said = [&](int side) {
        const TraceCalls& c = calls[side];
        std::string text = c.statement_calls ? fmt::format("{} call{} of {}", *c.statement_calls, *c.statement_calls == 1 ? "" : "s",
                                                           c.title.empty() ? "the statement" : terminal_safe(c.title))
                                             : std::string("calls of the statement unknown");
        if (c.steps) text += fmt::format(", {} step{}", c.steps, c.steps == 1 ? "" : "s");
        return text;
    };
    std::string out = fmt::format("before: {} ({})\nafter:  {} ({})\n", terminal_safe(before_name), said(0),
                                  terminal_safe(after_name), said(1));
    if (!why_no_totals.empty()) out += why_no_totals + "\n";
    out += "\nself CPU time per operator, largest change per call first\n\n";

    // Columns: a header and a cell per row, right-aligned; the name column left-aligned.
    struct Column {
        std::string header;
        std::vector<std::string> cells;
    };
    std::vector<Column> columns;
    const auto add = [&](std::string header, const auto& cell) {
        Column c{std::move(header), {}};
        for (const std::string& n : order) c.cells.push_back(cell(by_name[n].first, by_name[n].second));
        columns.push_back(std::move(c));
    };
    const auto count_cell = [](const Side& s) { return fmt::format("{}", s.calls); };
    add("calls before", [&](const Side& b, const Side&) { return count_cell(b); });
    add("calls after", [&](const Side&, const Side& a) { return count_cell(a); });
    add("self/call before", [&](const Side& b, const Side&) { return b.calls ? us(per_call(b)) : "-"; });
    add("self/call after", [&](const Side&, const Side& a) { return a.calls ? us(per_call(a)) : "-"; });
    add("change/call", [&](const Side& b, const Side& a) -> std::string {
        if (!b.calls) return "new";
        if (!a.calls) return "gone";
        return percent_change(per_call(b), per_call(a));
    });
    if (per_statement) {
        const auto per_stmt = [](const Side& s, std::int64_t n) { return s.self_us / static_cast<double>(n); };
        add("self/stmt before", [&](const Side& b, const Side&) { return b.calls ? us(per_stmt(b, *stmt_b)) : "-"; });
        add("self/stmt after", [&](const Side&, const Side& a) { return a.calls ? us(per_stmt(a, *stmt_a)) : "-"; });
        add("change/stmt", [&](const Side& b, const Side& a) -> std::string {
            if (!b.calls) return "new";
            if (!a.calls) return "gone";
            return percent_change(per_stmt(b, *stmt_b), per_stmt(a, *stmt_a));
        });
    }
    if (per_step) {
        const auto step = [](const Side& s, std::int64_t n) { return s.self_us / static_cast<double>(n); };
        add("self/step before", [&](const Side& b, const Side&) { return b.calls ? us(step(b, calls[0].steps)) : "-"; });
        add("self/step after", [&](const Side&, const Side& a) { return a.calls ? us(step(a, calls[1].steps)) : "-"; });
    }
    if (why_no_totals.empty()) {
        add("total change", [&](const Side& b, const Side& a) {
            return fmt::format("{}{}", a.self_us >= b.self_us ? '+' : '-', us(std::fabs(a.self_us - b.self_us)));
        });
    }
    // Operator names come from the traces: shown with their control characters escaped.
    std::size_t width = 4;
    for (const std::string& n : order) width = std::max(width, terminal_safe(n).size());
    for (Column& c : columns) {
        std::size_t w = c.header.size();
        for (const std::string& cell : c.cells) w = std::max(w, cell.size());
        c.header = fmt::format("{:>{}}", c.header, w);
        for (std::string& cell : c.cells) cell = fmt::format("{:>{}}", cell, w);
    }
    out += fmt::format("{:<{}}", "name", width);
    for (const Column& c : columns) out += "  " + c.header;
    out += "\n";
    for (std::size_t i = 0; i < order.size(); ++i) {
        out += fmt::format("{:<{}}", terminal_safe(order[i]), width);
        for (const Column& c : columns) out += "  " + c.cells[i];
        out += "\n";
    }
    return out;
}

std::string profile_diff_report(const std::string& before_path, const std::string& after_path) {
    return profile_diff_report(profiler::read_chrome_trace(before_path), profiler::read_chrome_trace(after_path), before_path,
                               after_path);
}

}  // namespace vitals
