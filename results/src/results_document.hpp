// A results document read one piece at a time. Internal to the results part.
//
// A results file is one JSON object whose "benchmarks" list holds most of its bytes. The
// top level (its braces, keys, colons and commas) is checked here, byte by byte; each
// member's value, and each entry of "benchmarks" on its own, is parsed and fully
// validated by simdjson's DOM parser. So a file costs its own size in memory plus one
// entry, never a tree of the whole file, and every byte is still checked as strictly as a
// whole-document parser would.
#pragma once

#include <simdjson.h>

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace vitals {

// The whole file, with the padding simdjson may read past the end. Throws
// ResultsFileError for a folder, a device, a file over 1 GiB or one that cannot be read.
simdjson::padded_string read_results_text(const std::string& path);

// One member of the top-level object, or one entry of "benchmarks": its text exactly as in
// the file (for copying it whole) and its parsed value, valid during the call only.
struct JsonPiece {
    std::string_view text;
    simdjson::dom::element value;
};

// Walks a results document: on_member for each top-level member other than "benchmarks"
// (key as written, without its quotes), then on_entry for each entry of "benchmarks" in
// order (its index given), strictly after every on_member of members written before the
// list. `text` must be followed by SIMDJSON_PADDING readable bytes (a padded_string's
// are). Throws ResultsFileError, naming `path` and the byte where the text goes wrong,
// for text that is not JSON, nests deeper than results files do, or is not an object
// with a "benchmarks" list.
void walk_results_document(std::string_view text, const std::string& path,
                           const std::function<void(std::string_view key, const JsonPiece& value)>& on_member,
                           const std::function<void(std::size_t index, const JsonPiece& entry)>& on_entry);

// Errors about one value of an entry, in the words every reader uses.
[[noreturn]] void throw_wrong_type(const std::string& path, std::string_view where, std::string_view expected,
                                   simdjson::dom::element found);

}  // namespace vitals
