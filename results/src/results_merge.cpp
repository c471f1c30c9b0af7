// Shards of one run joined into one results file (vitals merge): each entry copied as
// written, with its family renumbered, one entry in memory at a time.
#include <fmt/format.h>

#include <cstring>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "entry_fields.hpp"
#include "json_document.hpp"
#include "results_document.hpp"
#include "vitals/results.hpp"

namespace vitals {
namespace {

// Where the value of `key`, a member of the (valid) object `object` itself, lies in its
// text: offset and length; nullopt when the object has no such member.
std::optional<std::pair<std::size_t, std::size_t>> member_value_span(std::string_view object, std::string_view key) {
    int depth = 0;
    for (std::size_t i = 0; i < object.size(); ++i) {
        const char c = object[i];
        if (c == '{' || c == '[') {
            ++depth;
        } else if (c == '}' || c == ']') {
            --depth;
        } else if (c == '"') {
            const std::size_t open = i;
            for (++i; object[i] != '"'; ++i) {
                if (object[i] == '\\') ++i;
            }
            if (depth != 1) continue;
            std::size_t colon = i + 1;
            while (object[colon] == ' ' || object[colon] == '\t' || object[colon] == '\r' || object[colon] == '\n') ++colon;
            if (object[colon] != ':' || object.substr(open + 1, i - open - 1) != key) continue;
            std::size_t begin = colon + 1;
            while (std::strchr(" \t\r\n", object[begin]) != nullptr) ++begin;
            std::size_t end = begin;
            while (std::strchr(",} \t\r\n", object[end]) == nullptr) ++end;  // a number: what the layout has there
            return std::pair{begin, end - begin};
        }
    }
    return std::nullopt;
}

}  // namespace

void merge_results(const std::vector<std::string>& paths, const std::function<void(std::string_view)>& give) {
    // Pieces given on in blocks of about a megabyte: a write per entry would cost a
    // system call each.
    std::string pending;
    const auto write = [&](std::string_view piece) {
        pending += piece;
        if (pending.size() >= (std::size_t{1} << 20)) {
            give(pending);
            pending.clear();
        }
    };
    std::vector<std::string> incomplete;
    nlohmann::json context;  // the first file's
    std::map<std::string, std::size_t, std::less<>> owner;  // case -> index of the file it came from
    std::size_t family = 0;
    std::size_t written = 0;
    write("{\n  \"benchmarks\": [");
    for (std::size_t file = 0; file < paths.size(); ++file) {
        const std::string& path = paths[file];
        const simdjson::padded_string text = read_results_text(path);
        std::map<std::string, std::size_t, std::less<>> families;  // renumbered so families stay unique
        walk_results_document(
            text, path,
            [&](std::string_view key, const JsonPiece& member) {
                if (key != "context" || member.value.type() != element_type::OBJECT) return;
                if (file == 0) context = nlohmann::json::parse(member.text);
                const std::optional<element> mark = Fields(member.value, path, "the context").get("vitals_incomplete");
                if (mark && mark->type() == element_type::BOOL && bool(*mark)) {
                    incomplete.push_back(path);  // an interrupted run stays marked in the joined file
                }
            },
            [&](std::size_t entry, const JsonPiece& piece) {
                if (piece.value.type() != element_type::OBJECT) {
                    throw_wrong_type(path, fmt::format("benchmark entry {}", entry), "an object", piece.value);
                }
                const Fields b(piece.value, path, fmt::format("benchmark entry {}", entry));
                const std::string_view name = entry_name(b, path, entry);
                const auto [it, added] = owner.try_emplace(std::string(name), file);
                if (!added && it->second != file) {
                    throw ResultsFileError(fmt::format("case '{}' is in both '{}' and '{}'; merge joins disjoint shards",
                                                       name, paths[it->second], path));
                }
                const auto [f, fresh] = families.try_emplace(std::string(name), family);
                if (fresh) ++family;
                // The entry as written, with its family_index renumbered.
                const std::string index = std::to_string(f->second);
                write(written++ == 0 ? "\n    " : ",\n    ");
                if (const auto span = member_value_span(piece.text, "family_index"); span && b.get("family_index")->type() != element_type::OBJECT &&
                                                                                   b.get("family_index")->type() != element_type::ARRAY) {
                    write(piece.text.substr(0, span->first));
                    write(index);
                    write(piece.text.substr(span->first + span->second));
                } else {
                    write("{\n      \"family_index\": " + index + ",");  // before the name every entry has
                    write(piece.text.substr(1));
                }
            });
    }
    write(written == 0 ? "],\n" : "\n  ],\n");
    if (!context.is_object()) context = nlohmann::json::object();
    context["vitals_merged_from"] = paths;
    context.erase("vitals_incomplete");
    context.erase("vitals_cases_planned");
    if (!incomplete.empty()) {
        context["vitals_incomplete"] = true;
        context["vitals_incomplete_inputs"] = incomplete;
    }
    context["vitals_shard"] = "";
    std::string text = dump_document(context);  // indented one level more, as a member
    text.pop_back();
    for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1)) text.insert(at + 1, "  ");
    write("  \"context\": " + text + "\n}\n");
    give(pending);
}

std::string merge_results(const std::vector<std::string>& paths) {
    std::string merged;
    merge_results(paths, [&](std::string_view piece) { merged += piece; });
    return merged;
}

}  // namespace vitals
