// Numbers read from text the same way in every locale: a program that calls
// setlocale(LC_ALL, "") under de_DE must still read "0.5" as one half (strtod and atof
// would stop at the '.' and read "0,5" instead).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace vitals {

// The whole of `text` as a decimal number with '.' as its point (std::from_chars):
// "0.5", "+2", "-1e-3", "inf" and "nan" read; "", " 1", "0,5", "1.5s" and "0x10" do
// not (nullopt). A value past the range of double is nullopt too.
std::optional<double> parse_double(std::string_view text);

// The number at the start of `text` after spaces and tabs, the rest ignored, as atof
// reads "  3000.000 MHz" (but locale-independent); nullopt when none starts there.
std::optional<double> parse_leading_double(std::string_view text);

// The shortest text that parse_double reads back as `value` ("0.1", "1e-05"), with '.'
// in every locale (std::to_string writes "0,100000" under de_DE).
std::string shortest_text(double value);

}  // namespace vitals
