// Compare: many Measurements as tables, one per label, in the reference's layout.
//
// Rows are sub_labels (grouped by thread count, then env), columns are descriptions,
// cells are medians in the table's unit. Measurements of the same task are merged.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "vitals/measurement.hpp"

namespace vitals {

class Compare {
public:
    explicit Compare(std::vector<Measurement> measurements);

    void extend_results(const std::vector<Measurement>& measurements);
    // Rounds each cell to its measurement's significant figures.
    Compare& trim_significant_figures();
    // Colours cells against the best in their column (or row): within 1% or 100 ns of the
    // best, within 10%, 2x worse, 5x worse. ANSI escapes; for terminals.
    Compare& colorize(bool rowwise = false);
    // Appends "(! XX%)" (IQR as a percentage of the median) to noisy cells.
    Compare& highlight_warnings();

    // All tables, separated by newlines.
    std::string to_string() const;

private:
    enum class Colorize { none, columnwise, rowwise };
    std::vector<Measurement> results_;
    bool trim_ = false;
    Colorize colorize_ = Colorize::none;
    bool highlight_warnings_ = false;
};

std::ostream& operator<<(std::ostream& out, const Compare& compare);

}  // namespace vitals
