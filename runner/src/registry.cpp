#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "vitals/case.hpp"

namespace vitals {

Registry& Registry::global() {
    static Registry registry;
    return registry;
}

void Registry::add(Case c) {
    if (c.name.empty()) {
        problems_.push_back("a case was registered with an empty name");
        return;
    }
    if (std::any_of(c.name.begin(), c.name.end(), [](unsigned char ch) { return std::isspace(ch) != 0; })) {
        problems_.push_back(fmt::format("case name '{}' contains white space; use names like 'matmul/128x128/cpu-f32'", c.name));
        return;
    }
    if (!c.make_timer) {
        problems_.push_back(fmt::format("case '{}' has no timer factory", c.name));
        return;
    }
    if (find(c.name) != nullptr) {
        problems_.push_back(fmt::format("case '{}' is registered twice; case names must be unique", c.name));
        return;
    }
    cases_.push_back(std::move(c));
}

const Case* Registry::find(const std::string& name) const {
    for (const Case& c : cases_) {
        if (c.name == name) return &c;
    }
    return nullptr;
}

namespace detail {

CaseRegistrar::CaseRegistrar(const char* name, Timer (*factory)()) {
    Registry::global().add(Case{name, factory});
}

CaseRegistrar::CaseRegistrar(std::vector<Case> (*factory)()) {
    for (Case& c : factory()) Registry::global().add(std::move(c));
}

}  // namespace detail
}  // namespace vitals
