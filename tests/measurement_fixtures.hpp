// The measurements defined in tests/golden/fixtures.json.
#pragma once

#include <map>

#include "fixtures.hpp"
#include "vitals/measurement.hpp"

namespace vitals::testing {

inline std::map<std::string, Measurement> fixture_measurements() {
    std::map<std::string, Measurement> out;
    const nlohmann::json fixtures = read_json("fixtures.json");  // must outlive the loop
    for (const auto& m : fixtures.at("measurements")) {
        TaskSpec task{text_or_empty(m.at("stmt")),  text_or_empty(m.at("setup")),     text_or_empty(m.at("global_setup")),
                      text_or_empty(m.at("label")), text_or_empty(m.at("sub_label")), text_or_empty(m.at("description")),
                      text_or_empty(m.at("env")),   m.at("num_threads").get<int>()};
        out.emplace(m.at("id").get<std::string>(),
                    Measurement(m.at("number_per_run").get<std::int64_t>(), m.at("raw_times").get<std::vector<double>>(),
                                std::move(task)));
    }
    return out;
}

}  // namespace vitals::testing
