// The roofline of a report: this machine's ceilings (peak FLOP/s, and bandwidth times
// intensity for each cache level) on log-log axes, one point per case that states its
// flops, before and after joined by an arrow.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "vitals/results/markup.hpp"
#include "vitals/results/reporters.hpp"

namespace vitals {
namespace {

constexpr const char* kLevelColors[] = {"#2b6cb0", "#2f855a", "#b7791f", "#c53030", "#6b46c1"};

}  // namespace

std::string roofline_svg(const std::vector<NamedResults>& files, const std::vector<std::optional<MachineCeilings>>& ceilings) {
    const MachineCeilings* machine = nullptr;
    for (const auto& c : ceilings) {
        if (c && c->peak_f32 > 0 && !c->bandwidth.empty()) {
            machine = &*c;
            break;
        }
    }
    // Per case, its point in each file (intensity, achieved FLOP/s), in first-seen order.
    std::vector<std::string> names;
    std::map<std::string, std::vector<std::optional<std::pair<double, double>>>> points;
    for (std::size_t f = 0; f < files.size(); ++f) {
        for (const CaseSamples& c : files[f].second) {
            if (!c.roofline || !(c.roofline->intensity > 0) || !(c.roofline->achieved > 0)) continue;
            auto [it, added] = points.try_emplace(c.name, files.size());
            if (added) names.push_back(c.name);
            it->second[f] = std::pair{c.roofline->intensity, c.roofline->achieved};
        }
    }
    if (machine == nullptr || names.empty()) return "";
    const double peak = std::max(machine->peak_f32, machine->peak_f64);
    double x_lo = INFINITY, x_hi = 0, y_lo = INFINITY;
    for (const auto& [level, bandwidth] : machine->bandwidth) {
        if (bandwidth > 0) x_lo = std::min(x_lo, peak / bandwidth), x_hi = std::max(x_hi, peak / bandwidth);
    }
    for (const auto& [name, per_file] : points) {
        for (const auto& p : per_file) {
            if (!p) continue;
            x_lo = std::min(x_lo, p->first);
            x_hi = std::max(x_hi, p->first);
            y_lo = std::min(y_lo, p->second);
        }
    }
    // Whole decades around everything drawn.
    const double dx_lo = std::floor(std::log10(x_lo / 2)), dx_hi = std::ceil(std::log10(x_hi * 2));
    const double dy_lo = std::floor(std::log10(std::min(y_lo, peak) / 2)), dy_hi = std::ceil(std::log10(peak * 1.5));
    constexpr int kWidth = 760, kHeight = 420, kLeft = 96, kRight = 150, kTop = 14, kBottom = 40;
    const auto x = [&](double v) { return kLeft + (std::log10(v) - dx_lo) / (dx_hi - dx_lo) * (kWidth - kLeft - kRight); };
    const auto y = [&](double v) { return kTop + (dy_hi - std::log10(v)) / (dy_hi - dy_lo) * (kHeight - kTop - kBottom); };
    std::string svg = fmt::format(
        R"(<svg class="roofline" width="{0}" height="{1}" viewBox="0 0 {0} {1}" role="img" aria-label="roofline">)"
        R"(<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1a202c"/></marker></defs>)",
        kWidth, kHeight);
    // Axes with a tick per decade.
    for (double d = dx_lo; d <= dx_hi + 1e-9; ++d) {
        const double px = x(std::pow(10.0, d));
        svg += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#edf2f7"/>)"
                           R"(<text x="{0:.1f}" y="{3}" class="tick" text-anchor="middle">{4}</text>)",
                           px, kTop, kHeight - kBottom, kHeight - kBottom + 14, fmt::format("{:g}", std::pow(10.0, d)));
    }
    for (double d = dy_lo; d <= dy_hi + 1e-9; ++d) {
        const double py = y(std::pow(10.0, d));
        svg += fmt::format(R"(<line x1="{0}" y1="{1:.1f}" x2="{2}" y2="{1:.1f}" stroke="#edf2f7"/>)"
                           R"(<text x="{3}" y="{4:.1f}" class="tick" text-anchor="end">{5}</text>)",
                           kLeft, py, kWidth - kRight, kLeft - 6, py + 4, fmt::format("{:g} GFLOP/s", std::pow(10.0, d) / 1e9));
    }
    svg += fmt::format(R"(<text x="{}" y="{}" class="tick" text-anchor="middle">arithmetic intensity (flop/byte)</text>)",
                       (kLeft + kWidth - kRight) / 2, kHeight - 6);
    // Ceilings: each level's slope up to its ridge, then the peaks.
    const double x_min = std::pow(10.0, dx_lo), x_max = std::pow(10.0, dx_hi);
    std::size_t k = 0;
    for (const auto& [level, bandwidth] : machine->bandwidth) {
        if (!(bandwidth > 0)) continue;
        const double ridge = peak / bandwidth;
        const char* color = kLevelColors[k++ % 5];
        svg += fmt::format(
            R"(<line class="ceiling" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="{}" stroke-width="1.5"><title>{} {:.1f} GB/s</title></line>)",
            x(x_min), y(bandwidth * x_min), x(ridge), y(peak), color, escape_html(level), bandwidth / 1e9);
        svg += fmt::format(R"(<text x="{:.1f}" y="{:.1f}" class="ceiling-label" fill="{}">{} {:.0f} GB/s</text>)", x(x_min) + 4,
                           y(bandwidth * x_min) - 4, color, escape_html(level), bandwidth / 1e9);
    }
    for (const auto& [label, value, dash] : {std::tuple{"f32 peak", machine->peak_f32, ""}, std::tuple{"f64 peak", machine->peak_f64, "4 3"}}) {
        if (!(value > 0)) continue;
        svg += fmt::format(
            R"(<line class="ceiling" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#1a202c" stroke-width="1.5" stroke-dasharray="{}"/>)"
            R"(<text x="{:.1f}" y="{:.1f}" class="ceiling-label">{} {:.0f} GFLOP/s</text>)",
            x(std::min(peak / machine->bandwidth.front().second, x_max)), y(value), x(x_max), y(value), dash, x(x_max) + 4,
            y(value) + 4, label, value / 1e9);
    }
    // Cases: a point per file, an arrow from before to after.
    for (const std::string& name : names) {
        const auto& per_file = points.at(name);
        const std::pair<double, double>* previous = nullptr;  // the case's point in the file before
        for (std::size_t f = 0; f < per_file.size(); ++f) {
            const auto& p = per_file[f];
            if (!p) continue;
            if (previous && files.size() == 2) {
                svg += fmt::format(
                    R"svg(<line class="move" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#1a202c" stroke-width="1.2" marker-end="url(#arrow)"/>)svg",
                    x(previous->first), y(previous->second), x(p->first), y(p->second));
            }
            svg += fmt::format(
                R"(<circle class="case" cx="{:.1f}" cy="{:.1f}" r="4" fill="{}" fill-opacity="0.85"><title>{} ({}): {:.2f} flop/byte, {:.1f} GFLOP/s</title></circle>)",
                x(p->first), y(p->second), f == 0 ? "#4a5568" : "#2b6cb0", escape_html(name), escape_html(files[f].first), p->first,
                p->second / 1e9);
            previous = &*p;
        }
    }
    return svg + "</svg>" +
           fmt::format(R"(<p class="note">Roofline of {} (one core, from the run's <code>--roofline</code>): ceilings are the measured bandwidth of each cache level times arithmetic intensity, up to the peak FLOP/s; points are the cases that state their flops{}.</p>)",
                       escape_html(machine->cpu_model), files.size() == 2 ? ", an arrow from before to after" : "");
}

}  // namespace vitals
