// history report --html: one self-contained page, a trend plot per series.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "vitals/history.hpp"
#include "vitals/results/markup.hpp"
#include "vitals/stats.hpp"

namespace vitals::history {
namespace {

constexpr double kWidth = 760, kHeight = 220, kLeft = 70, kRight = 16, kTop = 16, kBottom = 36;

std::string svg_of(const TrendSeries& t) {
    const Series& s = t.series;
    const std::size_t n = s.points.size();
    double lo = s.points[0].p25, hi = s.points[0].p75;
    for (const Point& p : s.points) {
        lo = std::min({lo, p.p25, p.median});
        hi = std::max({hi, p.p75, p.median});
    }
    if (hi <= lo) hi = lo * 1.01 + 1e-12;
    const double pad = (hi - lo) * 0.08;
    lo -= pad;
    hi += pad;
    const stats::TimeUnit unit = stats::select_unit((lo + hi) / 2);
    const auto x = [&](std::size_t i) {
        return kLeft + (n == 1 ? 0.5 : static_cast<double>(i) / static_cast<double>(n - 1)) * (kWidth - kLeft - kRight);
    };
    const auto y = [&](double v) { return kTop + (hi - v) / (hi - lo) * (kHeight - kTop - kBottom); };
    std::string out = fmt::format(R"(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" role="img">)", kWidth, kHeight);
    // The axis: five values in the plot's unit.
    for (int k = 0; k <= 4; ++k) {
        const double v = lo + (hi - lo) * k / 4;
        out += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#edf2f7"/>)", kLeft, y(v),
                           kWidth - kRight, y(v));
        out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="end" fill="#4a5568">{:.4g} {}</text>)",
                           kLeft - 6, y(v) + 4, v / unit.scale, unit.name);
    }
    // The interquartile band, then the medians.
    std::string band, line;
    for (std::size_t i = 0; i < n; ++i) band += fmt::format("{:.1f},{:.1f} ", x(i), y(s.points[i].p75));
    for (std::size_t i = n; i-- > 0;) band += fmt::format("{:.1f},{:.1f} ", x(i), y(s.points[i].p25));
    for (std::size_t i = 0; i < n; ++i) line += fmt::format("{:.1f},{:.1f} ", x(i), y(s.points[i].median));
    out += fmt::format(R"(<polygon points="{}" fill="#bee3f8" stroke="none"><title>interquartile range of the blocks</title></polygon>)", band);
    out += fmt::format(R"(<polyline points="{}" fill="none" stroke="#2b6cb0" stroke-width="1.5"/>)", line);
    for (std::size_t i = 0; i < n; ++i) {
        const Point& p = s.points[i];
        out += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="2.5" fill="#2b6cb0"><title>{} {}: median {}</title></circle>)",
                           x(i), y(p.median), escape_html(p.commit), escape_html(p.time), stats::format_seconds(p.median));
    }
    // Change points: a line at the commit, labelled with it and the step.
    for (const stats::ChangePoint& c : t.change_points) {
        const double cx = (x(c.index - 1) + x(c.index)) / 2;
        const std::string color = c.step > 0 ? "#c53030" : "#2f855a";
        out += fmt::format(R"(<line x1="{0:.1f}" y1="{1:.1f}" x2="{0:.1f}" y2="{2:.1f}" stroke="{3}" stroke-dasharray="4 3"/>)",
                           cx, kTop, kHeight - kBottom, color);
        out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="11" fill="{}">{} {}</text>)", cx + 3, kTop + 10, color,
                           escape_html(s.points[c.index].commit.substr(0, 10)), escape_html(percent_change(c.step)));
    }
    out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="11" fill="#4a5568">{}</text>)", kLeft, kHeight - 10,
                       escape_html(s.points.front().commit.substr(0, 10) + " " + s.points.front().time));
    out += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" font-size="11" text-anchor="end" fill="#4a5568">{}</text>)",
                       kWidth - kRight, kHeight - 10, escape_html(s.points.back().commit.substr(0, 10) + " " + s.points.back().time));
    return out + "</svg>";
}

}  // namespace

std::string trend_report_html(const std::vector<TrendSeries>& trends, const std::string& title) {
    std::string sections;
    for (const TrendSeries& t : trends) {
        if (t.series.points.empty()) continue;
        std::string steps;
        for (const stats::ChangePoint& c : t.change_points) {
            steps += fmt::format("<li>{} ({}): {} (p {:.2g})</li>", escape_html(t.series.points[c.index].commit),
                                 escape_html(t.series.points[c.index].time), escape_html(percent_change(c.step)), c.p_value);
        }
        sections += fmt::format("<h2>{}</h2>\n<p class=\"where\">{}; branch {}; {} commits</p>\n{}\n{}\n",
                                escape_html(t.series.title()), escape_html(t.series.machine), escape_html(t.series.branch),
                                t.series.points.size(), svg_of(t), steps.empty() ? "" : "<ul>" + steps + "</ul>");
    }
    return fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{0}</title>
<style>
body {{ font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 820px; color: #1a202c; }}
h1 {{ font-size: 1.5em; }} h2 {{ font-size: 1.05em; font-family: ui-monospace, monospace; margin-bottom: 0.2em; }}
p.where {{ color: #4a5568; margin-top: 0; }} li {{ font-family: ui-monospace, monospace; }}
</style></head><body>
<h1>{0}</h1>
<p>Per case, machine and branch: each commit's median per call (line and points) and its blocks' interquartile range (band),
oldest commit on the left; dashed lines mark change points (red slower, green faster) with their commit and step.</p>
{1}</body></html>
)",
                       escape_html(title), sections.empty() ? "<p>No results.</p>\n" : sections);
}

}  // namespace vitals::history
