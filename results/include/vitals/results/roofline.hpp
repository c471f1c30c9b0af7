// Cases against this machine's limits (`--roofline` of run and timeit): where each sits,
// printed and written to the results file.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "vitals/machine.hpp"
#include "vitals/results.hpp"

namespace vitals {

// This machine's figures: cached, or measured now with a progress line on stderr.
machine::Limits limits_for_roofline();

// The case's place, when its Timer stated its work; nullopt otherwise.
std::optional<RooflinePoint> place_case(const machine::Limits& limits, const Measurement& m);

// The ceilings of one core (what the drawn roofline shows), for the results file.
MachineCeilings ceilings_of(const machine::Limits& limits);

// One line for a printed Measurement: "  Roofline: 62% of ... (compute-bound)".
std::string roofline_line(const RooflinePoint& point, const WorkPerCall& work);

// A table of the placed cases: name, time, rates, intensity, bound, share, verdict.
std::string roofline_table(const std::vector<CaseResult>& results, const std::vector<RooflineRecord>& points);

}  // namespace vitals
