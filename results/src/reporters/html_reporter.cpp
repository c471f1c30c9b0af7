// html_report: one self-contained page of box plots, with verdicts for a pair of runs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "vitals/results/comparison.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/results/reporters.hpp"
#include "vitals/results.hpp"
#include "vitals/stats.hpp"

namespace vitals {
namespace {

// Tukey's box: quartiles, whiskers at the furthest points within 1.5 IQR, the rest outliers.
struct Box {
    double p25, median, p75, low, high;
    std::vector<double> outliers;
};

Box box_of(const std::vector<double>& samples) {
    const std::vector<double> sorted = stats::sorted_copy(samples);
    Box b{stats::quantile_sorted(sorted, 0.25), stats::quantile_sorted(sorted, 0.5), stats::quantile_sorted(sorted, 0.75), 0, 0, {}};
    const double reach = 1.5 * (b.p75 - b.p25);
    b.low = b.p25;
    b.high = b.p75;
    for (double v : sorted) {
        if (v < b.p25 - reach || v > b.p75 + reach) {
            b.outliers.push_back(v);
        } else {
            b.low = std::min(b.low, v);
            b.high = std::max(b.high, v);
        }
    }
    return b;
}

constexpr const char* kColors[] = {"#7f8c9a", "#2b6cb0", "#b7791f", "#6b46c1", "#2f855a"};
constexpr const char* kVerdictColor[] = {"#2f855a", "#c53030", "#4a5568", "#975a16"};  // faster, slower, same, untested

// Axis ticks at round values (1, 2 or 5 times a power of ten, in the plot's one unit)
// that cover [lo, hi] in about `count` steps.
struct Ticks {
    double first, step;  // in the unit
    int decimals;
};

Ticks round_ticks(double lo, double hi, int count) {
    const double raw = (hi - lo) / count;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = magnitude;
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
        step = m * magnitude;
        if (step >= raw) break;
    }
    const int decimals = std::max(0, -static_cast<int>(std::floor(std::log10(step) + 1e-9)));
    return {std::ceil(lo / step - 1e-9) * step, step, decimals};
}

std::string box_plot_svg(const std::string& name, const std::vector<NamedResults>& files, const CaseIndex& index,
                         const char* after_color) {
    constexpr int kWidth = 760, kLeft = 150, kRight = 110, kRow = 34, kAxis = 30;
    std::vector<std::pair<std::size_t, Box>> boxes;
    // The axis spans the whiskers, not the outliers: one block at 11x the median must not
    // squash every box to a line. Outliers past the axis are counted at its edge.
    double lo = INFINITY, hi = -INFINITY;
    for (std::size_t f = 0; f < files.size(); ++f) {
        const CaseSamples* c = index.find(f, name);
        if (c == nullptr || c->seconds.empty()) continue;
        Box b = box_of(c->seconds);
        lo = std::min(lo, b.low);
        hi = std::max(hi, b.high);
        boxes.emplace_back(f, std::move(b));
    }
    if (boxes.empty()) return "";
    if (hi <= lo) {  // every block alike: a small window around them
        const double half = std::max(std::fabs(lo) * 0.01, 1e-12);
        lo -= half;
        hi += half;
    }
    const double pad = (hi - lo) * 0.08;
    lo = std::max(0.0, lo - pad);
    hi += pad;
    const stats::TimeUnit unit = stats::select_unit(hi);
    const double plot_left = kLeft, plot_right = kWidth - kRight;
    const auto x = [&](double v) { return plot_left + (v - lo) / (hi - lo) * (plot_right - plot_left); };
    const int height = static_cast<int>(boxes.size()) * kRow + kAxis;
    std::string svg = fmt::format(
        R"(<svg width="{0}" height="{1}" viewBox="0 0 {0} {1}" role="img" aria-label="{2}">)",
        kWidth, height, escape_html(name));
    for (std::size_t row = 0; row < boxes.size(); ++row) {
        const auto& [f, b] = boxes[row];
        const double y = static_cast<double>(row) * kRow + kRow / 2.0;
        const char* color = (files.size() == 2 && f == 1 && after_color != nullptr) ? after_color : kColors[f % 5];
        std::string label = files[f].first;
        if (label.size() > 22) label = "…" + label.substr(label.size() - 21);
        svg += fmt::format(R"(<text x="{}" y="{:.1f}" class="file" text-anchor="end">{}</text>)", kLeft - 8, y + 4,
                           escape_html(label));
        svg += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="1.5"/>)",
                           x(b.low), y, x(b.p25), y, color);
        svg += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="1.5"/>)",
                           x(b.p75), y, x(b.high), y, color);
        svg += fmt::format(
            R"(<rect class="box" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{}" fill="{}" fill-opacity="0.25" stroke="{}" stroke-width="1.5"><title>IQR {} to {}</title></rect>)",
            x(b.p25), y - 10, std::max(1.0, x(b.p75) - x(b.p25)), 20, color, color, stats::format_seconds(b.p25), stats::format_seconds(b.p75));
        svg += fmt::format(
            R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="{3}" stroke-width="3"><title>median {4}</title></line>)",
            x(b.median), y - 10, y + 10, color, stats::format_seconds(b.median));
        std::vector<double> below, above;
        for (double o : b.outliers) {
            if (o < lo) {
                below.push_back(o);
            } else if (o > hi) {
                above.push_back(o);
            } else {
                svg += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="2.5" fill="{}"><title>{}</title></circle>)", x(o), y,
                                   color, stats::format_seconds(o));
            }
        }
        // Outliers off the axis: an arrowhead at its edge, with how many and how far.
        const auto clipped = [&](const std::vector<double>& off, double edge, double direction) {
            if (off.empty()) return;
            const auto [least, most] = std::minmax_element(off.begin(), off.end());
            const std::string range = off.size() == 1 ? stats::format_seconds(*least)
                                                      : stats::format_seconds(*least) + " to " + stats::format_seconds(*most);
            svg += fmt::format(
                R"(<g class="clipped"><path d="M{0:.1f},{1:.1f} l{2:.1f},-5 l0,10 z" fill="{3}"><title>{4} outlier{5} off the axis: {6}</title></path>)"
                R"(<text x="{7:.1f}" y="{8:.1f}" class="clipped-count" text-anchor="middle">{4}</text></g>)",
                edge, y, -7 * direction, color, off.size(), off.size() > 1 ? "s" : "", range, edge - 4 * direction, y - 8);
        };
        clipped(below, plot_left, -1);
        clipped(above, plot_right, 1);
        svg += fmt::format(R"(<text x="{}" y="{:.1f}" class="value">{}</text>)", kWidth - kRight + 10, y + 4,
                           escape_html(stats::format_seconds(b.median)));  // in the margin, clear of the points
    }
    const double axis_y = static_cast<double>(boxes.size()) * kRow + 4;
    svg += fmt::format(R"(<line x1="{}" y1="{:.1f}" x2="{}" y2="{:.1f}" stroke="#a0aec0"/>)", kLeft, axis_y, kWidth - kRight,
                       axis_y);
    const Ticks ticks = round_ticks(lo / unit.scale, hi / unit.scale, 5);
    for (double t = ticks.first; t <= hi / unit.scale + ticks.step * 1e-9; t += ticks.step) {
        svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="tick" text-anchor="middle">{:.{}f} {}</text>)",
                           x(t * unit.scale), axis_y + 16, t, ticks.decimals, unit.name);
    }
    return svg + "</svg>";
}

}  // namespace

std::string html_report(const std::vector<NamedResults>& files, const ReportOptions& options,
                        const std::vector<std::optional<MachineCeilings>>& ceilings) {
    const bool paired = files.size() == 2;
    const Comparison comparison =
        paired ? compare_cases(files[0].first, files[0].second, files[1].first, files[1].second, options) : Comparison{};
    const CaseIndex index(files);
    std::string body;
    std::string summary;
    if (paired) {
        summary = "<table><thead><tr><th>case</th><th>before</th><th>after</th><th>change</th><th>p-value</th><th>verdict</th></tr></thead><tbody>";
    }
    std::string sections;
    for (const std::string& name : case_names(files)) {
        const char* after_color = nullptr;
        std::string verdict_line;
        if (paired) {
            if (const CaseComparison* compared = comparison.find(name)) {
                const stats::Change& c = compared->change;
                const auto v = static_cast<int>(c.verdict);
                after_color = kVerdictColor[v];
                const std::string p_value = compared->from_aggregates ? "-" : fmt::format("{:.4f}", c.p_value);
                verdict_line = fmt::format(R"(<p class="verdict" style="color:{}">{} {} ({})</p>)", after_color,
                                           stats::verdict_name(c.verdict), percent_change(c.change),
                                           compared->from_aggregates ? "aggregates only: no test" : "p = " + p_value);
                summary += fmt::format(
                    R"(<tr><td><a href="#{0}">{0}</a></td><td>{1}</td><td>{2}</td><td>{3}</td><td>{4}</td><td style="color:{5};font-weight:600">{6}</td></tr>)",
                    escape_html(name), stats::format_seconds(c.before_median), stats::format_seconds(c.after_median), percent_change(c.change), p_value,
                    after_color, stats::verdict_name(c.verdict));
            } else {
                const std::string* why = comparison.why_not_compared(name);
                summary += fmt::format(R"(<tr><td>{}</td><td colspan="5">{}</td></tr>)", escape_html(name),
                                       why != nullptr ? "not compared: " + escape_html(*why)
                                       : index.find(0, name) == nullptr ? std::string("added")
                                                                                         : std::string("removed"));
            }
        }
        std::string label;
        for (std::size_t f = 0; f < files.size(); ++f) {
            if (const CaseSamples* c = index.find(f, name); c != nullptr && !c->label.empty()) {
                label = c->label + (c->sub_label.empty() ? "" : ": " + c->sub_label) +
                        (c->description.empty() ? "" : " (" + c->description + ")");
                break;
            }
        }
        sections += fmt::format(R"(<section id="{0}"><h2>{0}</h2>{1}{2}{3}</section>)", escape_html(name),
                                label.empty() ? "" : "<p class=\"label\">" + escape_html(label) + "</p>", verdict_line,
                                box_plot_svg(name, files, index, after_color));
    }
    if (paired) {
        if (!comparison.cases.empty()) {
            summary += fmt::format(R"(<tr><td>geomean</td><td></td><td></td><td>{}</td><td></td><td></td></tr>)",
                                   comparison.geomean_change ? percent_change(*comparison.geomean_change) : "n/a");
        }
        summary += "</tbody></table>";
        for (const std::string& note : comparison_notes(comparison)) summary += "<p class=\"note\">Note: " + escape_html(note) + "</p>";
    }
    std::string files_list;
    for (const auto& [file, cases] : files) files_list += "<li>" + escape_html(file) + fmt::format(" ({} case{})</li>", cases.size(), cases.size() == 1 ? "" : "s");
    return fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>vitals report</title>
<style>
body {{ font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 820px; color: #1a202c; }}
h1 {{ font-size: 1.5em; }} h2 {{ font-size: 1.05em; font-family: ui-monospace, monospace; margin-bottom: 0.2em; }}
table {{ border-collapse: collapse; width: 100%; font-size: 0.9em; }}
th, td {{ text-align: left; padding: 4px 8px; border-bottom: 1px solid #e2e8f0; }} td {{ font-family: ui-monospace, monospace; }}
section {{ margin: 1.6em 0; }} .label {{ color: #4a5568; margin: 0; }} .verdict {{ margin: 0.2em 0; font-weight: 600; }}
svg text {{ font-size: 11px; fill: #2d3748; }} svg .tick {{ fill: #718096; }} svg .value {{ fill: #4a5568; }}
.note {{ color: #718096; font-size: 0.85em; }}
</style></head><body>
<h1>vitals report</h1>
<ul>{}</ul>
{}
{}
<p class="note">Boxes: interquartile range; thick line: median of all blocks (its value on the right); whiskers: furthest blocks within 1.5 IQR; dots: outliers; an arrowhead at an end of the axis: outliers past it, with their count. Times per call.{}</p>
{}
</body></html>
)",
                       files_list, summary, roofline_svg(files, ceilings),
                       paired && !comparison.cases.empty()
                           ? " The table's " + escape_html(comparison.medians_shown()) + ". Verdicts: same means " +
                                 escape_html(comparison.meaning_of_same()) + "." +
                                 (cases_with_verdict(comparison, stats::Verdict::untested).empty()
                                      ? ""
                                      : std::string(" Untested: ") + escape_html(kUntestedMeans) + ".")
                           : "",
                       sections);
}

}  // namespace vitals
