// An output file option (--json, --html, -o, --trace) and the steps every command takes
// with it before any work. Internal to the runner.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "shard.hpp"
#include "vitals/atomic_file.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace vitals::cli {

// `path` with `.tag` before its extension ("out.json", "partial" -> "out.partial.json");
// standard output and device paths ("-", /dev/..., /proc/...) as they are.
std::string tagged_path(const std::string& path, const std::string& tag);

// An output path for this process. "{rank}" becomes the launcher's rank (0 without a
// launcher). Without the placeholder, under a launcher of more than one rank, the rank
// goes before the extension ("out.json" -> "out.rank1.json"), said on stderr, so that
// ranks never write one file. Standard output and devices stay as they are. UsageError
// for launcher variables that disagree. With an explicit --shard K/N (`explicit_shard`)
// the shard goes there too ("out.rank1.shard3.json"), so that runs of one rank for
// several shards keep apart.
std::string output_for_this_rank(const std::string& path, const std::optional<Shard>& explicit_shard = std::nullopt);

// For an output file on standard output ("-", /dev/stdout): keeps the real standard
// output for that file alone and sends everything else printed to standard output to
// standard error from here on, so that `--json - | jq` reads nothing but the file.
// Returns the path to write the file to (a /dev/fd/N of the kept descriptor); any other
// path as it is.
std::string reserve_standard_output(const std::string& path);

class OutputFlag {
public:
    // Declares the option ("--json", "-o,--output") on `app`.
    CLI::Option* declare(CLI::App& app, const std::string& names, const std::string& description);

    struct Rules {
        std::vector<std::filesystem::path> inputs;  // the file may be none of these
        std::optional<Shard> shard;  // an explicit --shard, named in the file under a launcher
        // false: standard output stays shared, for a second output that may also be "-" (report)
        bool keep_standard_output = true;
    };
    // Before any work: the path for this launcher rank (output_for_this_rank), checked and
    // its folder held, refused when it is one of the inputs, and standard output kept for
    // it alone when it names it (reserve_standard_output). Nullopt when not given.
    std::optional<OutputFile> prepare(const Rules& rules);

    bool given() const { return path_.has_value(); }
    // The path as prepared ("out.rank1.json"), for messages; "" when not given.
    std::string path() const { return path_.value_or(""); }
    // Where the file is written: the prepared path, or the kept standard output's /dev/fd/N.
    const std::string& write_path() const { return write_path_; }

    // UsageError when two of these output flags name one file, or both standard output
    // (the second would get the stream the first moved aside). Call before prepare.
    static void check_apart(const std::vector<std::pair<std::string, const OutputFlag*>>& flags);

private:
    std::optional<std::string> path_;
    std::string write_path_;
};

}  // namespace vitals::cli
