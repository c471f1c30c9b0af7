// Reads tests/golden/: fixtures.json, the reference's outputs for it (measurement_*.txt,
// compare_*.txt) and expected.json, all produced by tests/golden/make_golden.py from
// torch.utils.benchmark itself.
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>


namespace vitals::testing {

inline std::string golden_path(const std::string& name) { return std::string(VITALS_SOURCE_DIR) + "/tests/golden/" + name; }

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline nlohmann::json read_json(const std::string& name) { return nlohmann::json::parse(read_text(golden_path(name))); }

// A JSON string, or "" for null (the reference's None).
inline std::string text_or_empty(const nlohmann::json& value) { return value.is_null() ? "" : value.get<std::string>(); }

}  // namespace vitals::testing
