// Statements of known cost for checking verdicts (scripts/check-verdicts.sh,
// scripts/check-ab.sh): each case runs a dependent chain of multiply-adds whose length is
// its base length times VITALS_SPIN_SCALE (default 1), so a scale of 1.05 makes every case
// 5% slower. Each spin/N has a twin, spin-b/N, scaled by VITALS_SPIN_SCALE_B instead: the
// same statement (A/A) by default, a known ratio against spin/N in one program otherwise.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vitals/vitals.hpp>
#include <vitals/number_text.hpp>

namespace {

double spin_scale(const char* variable) {
    const char* text = std::getenv(variable);
    if (text == nullptr) return 1.0;
    const std::optional<double> scale = vitals::parse_double(text);  // the same in every locale
    if (!scale || !std::isfinite(*scale) || *scale <= 0) {
        throw std::invalid_argument(std::string(variable) + " must be a number > 0 such as 1.05, got '" + text + "'");
    }
    return *scale;
}

// The chain of `base` steps times the scale in `variable`.
vitals::Timer spin_timer(std::int64_t base, const char* variable) {
    const auto steps = static_cast<std::int64_t>(std::llround(static_cast<double>(base) * spin_scale(variable)));
    return vitals::Timer({.stmt =
                              [steps] {
                                  double x = 1.0;
                                  for (std::int64_t i = 0; i < steps; ++i) x = x * 0.999999 + 1e-7;
                                  vitals::do_not_optimize(x);
                              },
                          .label = "spin",
                          .sub_label = std::to_string(base) + " steps"});
}

}  // namespace

VITALS_CASES(spin_cases) {
    std::vector<vitals::Case> cases;
    for (const std::int64_t base : {2'000, 8'000, 32'000, 128'000}) {
        cases.push_back({"spin/" + std::to_string(base), [base] { return spin_timer(base, "VITALS_SPIN_SCALE"); }});
    }
    for (const std::int64_t base : {2'000, 8'000, 32'000, 128'000}) {
        cases.push_back({"spin-b/" + std::to_string(base), [base] { return spin_timer(base, "VITALS_SPIN_SCALE_B"); }});
    }
    return cases;
}

VITALS_MAIN()
