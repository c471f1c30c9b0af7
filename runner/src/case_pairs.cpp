#include "case_pairs.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <re2/re2.h>

#include <algorithm>
#include <set>
#include <unordered_set>

#include "command.hpp"

namespace vitals::cli {
namespace {

std::vector<std::string> names_of(const std::vector<CaseSamples>& cases) {
    std::vector<std::string> out;
    for (const CaseSamples& c : cases) out.push_back(c.name);
    return out;
}

// "; near matches: 'a', 'b'" or "; its cases: ..." for a name absent from `file`.
std::string absent(const std::string& name, const std::string& side, const std::vector<std::string>& names) {
    const std::vector<std::string> near = near_names(name, names);
    std::string hint;
    if (!near.empty()) {
        hint = fmt::format("; near matches: '{}'", fmt::join(near, "', '"));
    } else if (!names.empty()) {
        hint = fmt::format("; it holds '{}'{}", fmt::join(names.begin(), names.begin() + std::min<std::size_t>(names.size(), 5), "', '"),
                           names.size() > 5 ? fmt::format(" and {} more", names.size() - 5) : "");
    }
    return fmt::format("--pair: the {} file has no case named '{}'{}", side, name, hint);
}

}  // namespace

std::vector<std::pair<std::string, std::string>> resolve_pairs(const std::vector<std::string>& specs,
                                                                const std::vector<CaseSamples>& before,
                                                                const std::vector<CaseSamples>& after) {
    const std::vector<std::string> before_names = names_of(before), after_names = names_of(after);
    const std::unordered_set<std::string> in_before(before_names.begin(), before_names.end()),
        in_after(after_names.begin(), after_names.end());
    std::vector<std::pair<std::string, std::string>> pairs;
    for (const std::string& spec : specs) {
        const std::size_t eq = spec.find('=');
        if (eq == std::string::npos || spec.find('=', eq + 1) != std::string::npos || eq == 0 || eq + 1 == spec.size()) {
            throw UsageError(fmt::format("--pair '{}': write BEFORE_CASE=AFTER_CASE, e.g. --pair 'x/cpu-before=x/cpu-after' "
                                         "or with wildcards --pair '*-before=*-after'",
                                         spec));
        }
        const std::string left = spec.substr(0, eq), right = spec.substr(eq + 1);
        const auto stars = [](const std::string& s) { return std::count(s.begin(), s.end(), '*'); };
        if (stars(left) != stars(right)) {
            throw UsageError(fmt::format("--pair '{}': both sides need as many '*' ({} and {})", spec, stars(left), stars(right)));
        }
        if (stars(left) == 0) {
            if (!in_before.count(left)) throw UsageError(absent(left, "before", before_names));
            if (!in_after.count(right)) throw UsageError(absent(right, "after", after_names));
            pairs.emplace_back(left, right);
            continue;
        }
        // '*' matches any text; everything else is literal.
        std::string pattern;
        std::size_t from = 0;
        for (std::size_t star = left.find('*'); star != std::string::npos; star = left.find('*', from)) {
            pattern += RE2::QuoteMeta(left.substr(from, star - from)) + "(.*)";
            from = star + 1;
        }
        pattern += RE2::QuoteMeta(left.substr(from));
        const RE2 re(pattern);
        const int groups = re.NumberOfCapturingGroups();
        std::size_t matched = 0;
        for (const std::string& name : before_names) {
            std::vector<std::string> parts(static_cast<std::size_t>(groups));
            std::vector<RE2::Arg> args(parts.size());
            std::vector<const RE2::Arg*> arg_pointers;
            for (std::size_t i = 0; i < parts.size(); ++i) {
                args[i] = &parts[i];
                arg_pointers.push_back(&args[i]);
            }
            if (!RE2::FullMatchN(name, re, arg_pointers.data(), groups)) continue;
            std::string paired;
            std::size_t part = 0, start = 0;
            for (std::size_t star = right.find('*'); star != std::string::npos; star = right.find('*', start)) {
                paired += right.substr(start, star - start) + parts[part++];
                start = star + 1;
            }
            paired += right.substr(start);
            if (!in_after.count(paired)) throw UsageError(absent(paired, "after", after_names) + fmt::format(" (paired by '{}')", spec));
            pairs.emplace_back(name, paired);
            ++matched;
        }
        if (matched == 0) throw UsageError(fmt::format("--pair '{}': no case of the before file matches '{}'", spec, left));
    }
    std::set<std::string> used_before, used_after;
    for (const auto& [b, a] : pairs) {
        if (!used_before.insert(b).second) throw UsageError(fmt::format("--pair: '{}' is paired twice; give each case one pair", b));
        if (!used_after.insert(a).second) throw UsageError(fmt::format("--pair: '{}' is paired twice; give each case one pair", a));
    }
    return pairs;
}

std::string pair_name(const std::pair<std::string, std::string>& pair) {
    return pair.first == pair.second ? pair.first : pair.first + " -> " + pair.second;
}

void apply_pairs(const std::vector<std::pair<std::string, std::string>>& pairs, std::vector<CaseSamples>& before,
                 std::vector<CaseSamples>& after) {
    std::unordered_set<std::string> paired;
    for (const auto& [b, a] : pairs) {
        paired.insert(b);
        paired.insert(a);
    }
    const auto side = [&](std::vector<CaseSamples>& cases, bool is_before) {
        std::vector<CaseSamples> out;
        for (const auto& pair : pairs) {
            const std::string& wanted = is_before ? pair.first : pair.second;
            const auto it = std::find_if(cases.begin(), cases.end(), [&](const CaseSamples& c) { return c.name == wanted; });
            CaseSamples renamed = *it;  // resolve_pairs checked it is there
            renamed.name = pair_name(pair);
            out.push_back(std::move(renamed));
        }
        for (CaseSamples& c : cases) {
            if (!paired.count(c.name)) out.push_back(std::move(c));
        }
        cases = std::move(out);
    };
    side(before, true);
    side(after, false);
}

}  // namespace vitals::cli
