#include "vitals/compare.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <ostream>
#include <tuple>

#include "vitals/stats.hpp"

namespace vitals {
namespace {

// ANSI styles of the reference's colour classes.
constexpr const char* kBest = "\033[92m";
constexpr const char* kGood = "\033[34m";
constexpr const char* kBad = "\033[2m\033[91m";
constexpr const char* kVeryBad = "\033[31m";
constexpr const char* kBold = "\033[1m";
constexpr const char* kTerminate = "\033[0m";

// Python's str.center: the odd pad goes left only when both the padding and the width
// are odd (CPython's rule), else right.
std::string center(const std::string& s, std::size_t width, char fill = ' ') {
    if (s.size() >= width) return s;
    const std::size_t marg = width - s.size();
    const std::size_t left = marg / 2 + (marg & width & 1);
    return std::string(left, fill) + s + std::string(marg - left, fill);
}

std::string ljust(const std::string& s, std::size_t width, char fill = ' ') {
    if (s.size() >= width) return s;
    return s + std::string(width - s.size(), fill);
}

using Cell = const Measurement*;

// Digits left of the point, the reference's way: ceil(log10(value)) in float32.
// Digits before the point; a zero (or a value below float's range) counts as one, where
// the reference's log10 would be -inf.
int leading_digits(double value) {
    const double digits = std::ceil(stats::log10_float32(value));
    return std::isfinite(digits) ? static_cast<int>(digits) : 1;
}

class Column {
public:
    Column(std::vector<std::vector<Cell>> grouped, double time_scale, bool trim, bool highlight)
        : grouped_(std::move(grouped)), trim_(trim) {
        std::vector<Cell> flat;
        for (const auto& g : grouped_) flat.insert(flat.end(), g.begin(), g.end());
        highlight_ = highlight && std::any_of(flat.begin(), flat.end(), [](Cell m) { return m && m->has_warnings(); });
        int unit_digits = std::numeric_limits<int>::min();
        int decimal = std::numeric_limits<int>::max();
        for (Cell m : flat) {
            if (m == nullptr) continue;
            const int digits = leading_digits(m->median() / time_scale);
            unit_digits = std::max(unit_digits, digits);
            decimal = std::min(decimal, std::max(m->significant_figures() - digits, 0));
        }
        decimal_digits_ = trim_ ? decimal : 1;
        length_ = unit_digits + decimal_digits_ + (decimal_digits_ != 0 ? 1 : 0);
    }

    const std::vector<Cell>& results_for(std::size_t group) const { return grouped_[group]; }

    std::string num_to_str(std::optional<double> value, int sigfigs, std::optional<double> spread) const {
        if (!value) return std::string(num_to_str(1.0, sigfigs, std::nullopt).size(), ' ');
        double v = *value;
        if (trim_) v = stats::trim_sigfig(v, sigfigs);
        std::string number = fmt::format("{:>{}.{}f}", v, std::max(length_, 0), decimal_digits_);
        std::string note = (highlight_ && spread) ? fmt::format(" (! {:.0f}%)", *spread * 100.0) : "";
        if (highlight_) note = fmt::format("{:>7}", note);
        return number + note;
    }

private:
    std::vector<std::vector<Cell>> grouped_;
    bool trim_;
    bool highlight_ = false;
    int decimal_digits_ = 1;
    int length_ = 0;
};

struct RowKey {
    int num_threads;
    std::string env;
    std::string name;
    bool operator==(const RowKey&) const = default;
};

std::string color_segment(const std::string& segment, double value, double best) {
    if (value <= best * 1.01 || value <= best + 100e-9) return kBest + std::string(kBold) + segment + kTerminate + kTerminate;
    if (value <= best * 1.1) return kGood + std::string(kBold) + segment + kTerminate + kTerminate;
    if (value >= best * 5) return kVeryBad + std::string(kBold) + segment + kTerminate + kTerminate;
    if (value >= best * 2) return kBad + segment + kTerminate + kTerminate;
    return segment;
}

}  // namespace

Compare::Compare(std::vector<Measurement> measurements) : results_(std::move(measurements)) {}

void Compare::extend_results(const std::vector<Measurement>& measurements) {
    results_.insert(results_.end(), measurements.begin(), measurements.end());
}

Compare& Compare::trim_significant_figures() {
    trim_ = true;
    return *this;
}

Compare& Compare::colorize(bool rowwise) {
    colorize_ = rowwise ? Colorize::rowwise : Colorize::columnwise;
    return *this;
}

Compare& Compare::highlight_warnings() {
    highlight_warnings_ = true;
    return *this;
}

namespace {

template <class T>
std::vector<T> ordered_unique(const std::vector<T>& items) {
    std::vector<T> out;
    for (const T& item : items) {
        if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
    }
    return out;
}

enum class ColorMode { none, columnwise, rowwise };

// One table's grid: rows (sub_label, grouped by thread count, then env) by columns
// (descriptions), each cell a measurement or empty. Built first, then drawn.
struct Grid {
    struct Row {
        std::size_t index;  // into keys and cells
        std::size_t group;  // thread-count group
        bool render_env;
        std::optional<int> separator_threads;  // a "N threads:" line above this row
    };
    stats::TimeUnit unit;
    std::vector<RowKey> row_keys;
    std::vector<std::string> col_keys;
    std::vector<std::vector<Cell>> cells;  // [row key][column]
    std::vector<Row> rows;
    std::vector<std::vector<std::size_t>> rows_by_group;
    std::size_t env_width = 0;  // 0: every row has the same env, none is shown
};

Grid layout_grid(const std::vector<const Measurement*>& results) {
    Grid grid;
    double min_median = results.front()->median();
    for (Cell m : results) min_median = std::min(min_median, m->median());
    grid.unit = stats::select_unit(min_median);

    std::vector<RowKey> all_rows;
    std::vector<std::string> all_cols;
    for (Cell m : results) {
        all_rows.push_back({m->num_threads(), m->env(), m->task_spec().row_name()});
        all_cols.push_back(m->description());
    }
    grid.row_keys = ordered_unique(all_rows);
    // Sort by (threads, env) only, keeping first-seen order within each.
    std::stable_sort(grid.row_keys.begin(), grid.row_keys.end(), [](const RowKey& a, const RowKey& b) {
        return std::tie(a.num_threads, a.env) < std::tie(b.num_threads, b.env);
    });
    grid.col_keys = ordered_unique(all_cols);

    grid.cells.assign(grid.row_keys.size(), std::vector<Cell>(grid.col_keys.size(), nullptr));
    for (std::size_t k = 0; k < results.size(); ++k) {
        const auto i = std::find(grid.row_keys.begin(), grid.row_keys.end(), all_rows[k]) - grid.row_keys.begin();
        const auto j = std::find(grid.col_keys.begin(), grid.col_keys.end(), all_cols[k]) - grid.col_keys.begin();
        grid.cells[i][j] = results[k];
    }

    std::vector<std::string> envs;
    for (Cell m : results) envs.push_back(m->env());
    envs = ordered_unique(envs);
    const bool render_env = envs.size() > 1;
    if (render_env) {
        for (const auto& e : envs) grid.env_width = std::max(grid.env_width, e.size());
    }

    int prior_threads = -1;
    std::string prior_env;
    for (std::size_t i = 0; i < grid.row_keys.size(); ++i) {
        const bool transition = grid.row_keys[i].num_threads != prior_threads;
        if (transition) {
            prior_threads = grid.row_keys[i].num_threads;
            prior_env.clear();
            grid.rows_by_group.emplace_back();
        }
        const bool show_env = render_env && grid.row_keys[i].env != prior_env;
        grid.rows.push_back({i, grid.rows_by_group.size() - 1, show_env,
                             transition ? std::optional<int>(grid.row_keys[i].num_threads) : std::nullopt});
        grid.rows_by_group.back().push_back(i);
        prior_env = grid.row_keys[i].env;
    }
    return grid;
}

// The cells' text: a header row of descriptions, then per row its name and the medians
// in the table's unit, rounded and flagged as the columns decide.
std::vector<std::vector<std::string>> cell_text(const Grid& grid, const std::vector<Column>& columns) {
    std::vector<std::vector<std::string>> text;
    text.emplace_back();
    text.back().push_back("");
    for (const auto& c : grid.col_keys) text.back().push_back(c);
    for (const Grid::Row& row : grid.rows) {
        const std::vector<Cell>& row_cells = grid.cells[row.index];
        Cell first = nullptr;
        for (Cell m : row_cells) {
            if (m != nullptr && first == nullptr) first = m;
        }
        const std::string env = ljust(row.render_env ? "(" + first->env() + ")" : "", grid.env_width + 4);
        std::vector<std::string> out{"  " + env + first->task_spec().row_name()};
        for (std::size_t j = 0; j < row_cells.size(); ++j) {
            Cell m = row_cells[j];
            if (m == nullptr) {
                out.push_back(columns[j].num_to_str(std::nullopt, 1, std::nullopt));
            } else {
                out.push_back(columns[j].num_to_str(
                    m->median() / grid.unit.scale, m->significant_figures(),
                    m->has_warnings() ? std::optional<double>(m->iqr() / m->median()) : std::nullopt));
            }
        }
        text.push_back(std::move(out));
    }
    std::size_t num_cols = 0;
    for (const auto& row : text) num_cols = std::max(num_cols, row.size());
    for (auto& row : text) row.resize(num_cols);
    return text;
}

// The best median each cell of a row is coloured against (none without colours).
std::vector<std::optional<double>> best_medians(const Grid& grid, const Grid::Row& row, const std::vector<Column>& columns,
                                                ColorMode colorize) {
    const std::vector<Cell>& row_cells = grid.cells[row.index];
    std::vector<std::optional<double>> best(row_cells.size());
    if (colorize == ColorMode::rowwise) {
        double row_min = std::numeric_limits<double>::infinity();
        for (Cell m : row_cells) {
            if (m) row_min = std::min(row_min, m->median());
        }
        std::fill(best.begin(), best.end(), row_min);
    } else if (colorize == ColorMode::columnwise) {
        for (std::size_t j = 0; j < row_cells.size(); ++j) {
            for (Cell m : columns[j].results_for(row.group)) {
                if (m) best[j] = best[j] ? std::min(*best[j], m->median()) : m->median();
            }
        }
    }
    return best;
}

std::string render_table(const std::vector<const Measurement*>& results, ColorMode colorize, bool trim,
                         bool highlight) {
    const Grid grid = layout_grid(results);
    std::vector<Column> columns;
    for (std::size_t j = 0; j < grid.col_keys.size(); ++j) {
        std::vector<std::vector<Cell>> grouped;
        for (const auto& group : grid.rows_by_group) {
            std::vector<Cell> g;
            for (std::size_t i : group) g.push_back(grid.cells[i][j]);
            grouped.push_back(std::move(g));
        }
        columns.emplace_back(std::move(grouped), grid.unit.scale, trim, highlight);
    }
    const std::vector<std::vector<std::string>> text = cell_text(grid, columns);
    const std::size_t num_cols = text[0].size();
    std::vector<std::size_t> widths(num_cols, 0);
    for (const auto& row : text) {
        for (std::size_t j = 0; j < num_cols; ++j) widths[j] = std::max(widths[j], row[j].size());
    }

    const auto join = [](const std::vector<std::string>& parts) {
        std::string out;
        for (std::size_t j = 0; j < parts.size(); ++j) out += (j ? "  |  " : "") + parts[j];
        return out;
    };
    std::vector<std::string> header;
    for (std::size_t j = 0; j < num_cols; ++j) header.push_back(center(text[0][j], widths[j]));
    std::vector<std::string> lines{join(header)};
    const std::size_t overall_width = lines[0].size();

    for (std::size_t r = 0; r < grid.rows.size(); ++r) {
        const Grid::Row& row = grid.rows[r];
        if (row.separator_threads) lines.push_back(ljust(fmt::format("{} threads: ", *row.separator_threads), overall_width, '-'));
        const std::vector<Cell>& row_cells = grid.cells[row.index];
        const std::vector<std::optional<double>> best = best_medians(grid, row, columns, colorize);
        std::vector<std::string> parts{ljust(text[r + 1][0], widths[0])};
        for (std::size_t j = 1; j < num_cols; ++j) {
            std::string cell = center(text[r + 1][j], widths[j]);
            Cell m = j - 1 < row_cells.size() ? row_cells[j - 1] : nullptr;
            if (colorize != ColorMode::none && m != nullptr && best[j - 1]) {
                cell = color_segment(cell, m->median(), *best[j - 1]);
            }
            parts.push_back(std::move(cell));
        }
        lines.push_back(join(parts));
    }

    bool any_warnings = false;
    for (Cell m : results) any_warnings = any_warnings || m->has_warnings();
    const std::string label = results.front()->label();
    std::string out = fmt::format("[{}]\n", center(fmt::format(" {} ", label), overall_width - 2, '-'));
    for (const auto& line : lines) out += line + "\n";
    out += fmt::format("\nTimes are in {}s ({}).\n", stats::unit_to_english(grid.unit.name), grid.unit.name);
    if (highlight && any_warnings) {
        out += "(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n";
    }
    return out;
}

}  // namespace

std::string Compare::to_string() const {
    const std::vector<Measurement> merged = Measurement::merge(results_);
    std::vector<std::string> labels;
    for (const Measurement& m : merged) labels.push_back(m.label());
    labels = ordered_unique(labels);
    const ColorMode mode = colorize_ == Colorize::none         ? ColorMode::none
                           : colorize_ == Colorize::columnwise ? ColorMode::columnwise
                                                               : ColorMode::rowwise;
    std::string out;
    for (std::size_t l = 0; l < labels.size(); ++l) {
        std::vector<const Measurement*> group;
        for (const Measurement& m : merged) {
            if (m.label() == labels[l]) group.push_back(&m);
        }
        if (l) out += "\n";
        out += render_table(group, mode, trim_, highlight_warnings_);
    }
    return out;
}

std::ostream& operator<<(std::ostream& out, const Compare& compare) { return out << compare.to_string(); }

}  // namespace vitals
