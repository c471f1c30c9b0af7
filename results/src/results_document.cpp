#include "results_document.hpp"

#include <fmt/format.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>

#include "vitals/results.hpp"

namespace vitals {
namespace {

// Results files are shallow; a deeper document is refused before anything walks it.
constexpr std::size_t kMaxDepth = 32;

std::string not_json(const std::string& path, std::size_t at, std::string_view what) {
    return fmt::format("'{}' is not JSON (byte {}: {}); give a file written by --json or by Google Benchmark's "
                       "--benchmark_out",
                       path, at, what);
}

std::string no_benchmarks(const std::string& path) {
    return fmt::format("'{}' has no \"benchmarks\" list; expected Google Benchmark's JSON layout", path);
}

// Bytes that end the run of plain bytes inside an object or a list.
constexpr std::array<bool, 256> kStructural = [] {
    std::array<bool, 256> table{};
    for (const unsigned char c : {'"', '{', '}', '[', ']'}) table[c] = true;
    return table;
}();

class TopLevel {
public:
    TopLevel(std::string_view text, const std::string& path) : text_(text), path_(path) {
        if (parser_.allocate(64 * 1024, kMaxDepth) != simdjson::SUCCESS) throw ResultsFileError("out of memory");
    }

    void walk(const std::function<void(std::string_view, const JsonPiece&)>& on_member,
              const std::function<void(std::size_t, const JsonPiece&)>& on_entry) {
        skip_space();
        if (at_end()) fail("the text is empty");
        if (text_[pos_] != '{') {  // JSON of another shape, or no JSON at all
            (void)piece(text_.size());
            throw ResultsFileError(no_benchmarks(path_));
        }
        ++pos_;
        bool has_benchmarks = false;
        skip_space();
        if (!at_end() && text_[pos_] == '}') {
            ++pos_;
        } else {
            while (true) {
                skip_space();
                const std::string_view key = key_string();
                skip_space();
                expect(':');
                skip_space();
                if (key == "benchmarks") {
                    if (has_benchmarks) fail("a second \"benchmarks\" member");
                    if (at_end() || text_[pos_] != '[') throw ResultsFileError(no_benchmarks(path_));
                    has_benchmarks = true;
                    walk_entries(on_entry);
                } else {
                    on_member(key, piece(value_end()));
                }
                skip_space();
                if (!at_end() && text_[pos_] == ',') {
                    ++pos_;
                    continue;
                }
                expect('}');
                break;
            }
        }
        skip_space();
        if (!at_end()) fail("text after the top-level object");
        if (!has_benchmarks) throw ResultsFileError(no_benchmarks(path_));
    }

private:
    void walk_entries(const std::function<void(std::size_t, const JsonPiece&)>& on_entry) {
        ++pos_;  // the '['
        skip_space();
        if (!at_end() && text_[pos_] == ']') {
            ++pos_;
            return;
        }
        for (std::size_t index = 0;; ++index) {
            skip_space();
            on_entry(index, piece(value_end()));
            skip_space();
            if (!at_end() && text_[pos_] == ',') {
                ++pos_;
                continue;
            }
            expect(']');
            return;
        }
    }

    // The value from pos_ to `end`, parsed and validated whole; pos_ moves past it.
    JsonPiece piece(std::size_t end) {
        const std::string_view text = text_.substr(pos_, end - pos_);
        simdjson::dom::element value;
        if (const simdjson::error_code error = parser_.parse(text.data(), text.size(), false).get(value)) {
            if (error == simdjson::DEPTH_ERROR) {
                throw ResultsFileError(fmt::format("'{}' nests JSON deeper than {} levels; results files are not that deep",
                                                   path_, kMaxDepth));
            }
            fail(simdjson::error_message(error));
        }
        pos_ = end;
        return {text, value};
    }

    // Where the value that starts at pos_ ends. Strings and nesting are followed only far
    // enough to find the end: the parse of the piece checks everything else.
    std::size_t value_end() {
        if (at_end()) fail("a value is missing");
        std::size_t i = pos_;
        const char first = text_[i];
        if (first == '"') return string_end(i);
        if (first != '{' && first != '[') {  // a number, true, false or null
            while (i < text_.size() && std::strchr(",}] \t\r\n", text_[i]) == nullptr) ++i;
            if (i == pos_) fail(fmt::format("'{}' where a value belongs", text_[i]));
            return i;
        }
        std::size_t depth = 0;
        while (i < text_.size()) {
            while (i < text_.size() && !kStructural[static_cast<unsigned char>(text_[i])]) ++i;
            if (i == text_.size()) break;
            const char c = text_[i];
            if (c == '"') {
                i = string_end(i);
                continue;
            }
            if (c == '{' || c == '[') {
                if (++depth > kMaxDepth) {
                    throw ResultsFileError(fmt::format("'{}' nests JSON deeper than {} levels; results files are not that deep",
                                                       path_, kMaxDepth));
                }
            } else if (--depth == 0) {
                return i + 1;
            }
            ++i;
        }
        pos_ = text_.size();
        fail("the text ends inside a value");
    }

    // Past the closing quote of the string whose opening quote is at `open`.
    std::size_t string_end(std::size_t open) {
        for (std::size_t i = open + 1; i < text_.size(); ++i) {
            if (text_[i] == '\\') {
                ++i;
            } else if (text_[i] == '"') {
                return i + 1;
            }
        }
        pos_ = open;
        fail("a string that never ends");
    }

    // A key of the top-level object, checked as a JSON string; returned as written.
    std::string_view key_string() {
        if (at_end() || text_[pos_] != '"') fail("a key (a string) is missing");
        const std::size_t open = pos_;
        const std::size_t end = string_end(open);
        const std::string_view key = text_.substr(open + 1, end - open - 2);
        for (std::size_t i = 0; i < key.size(); ++i) {
            pos_ = open + 1 + i;
            const auto c = static_cast<unsigned char>(key[i]);
            if (c < 0x20) fail("a control character in a key");
            if (c != '\\') continue;
            const char escaped = key[++i];
            if (escaped == 'u') {
                for (int k = 1; k <= 4; ++k) {
                    if (i + k >= key.size() || std::isxdigit(static_cast<unsigned char>(key[i + k])) == 0) fail("a bad \\u escape");
                }
                i += 4;
            } else if (escaped == '\0' || std::strchr("\"\\/bfnrt", escaped) == nullptr) {
                fail("a bad escape in a key");
            }
        }
        pos_ = open;
        if (!simdjson::validate_utf8(key.data(), key.size())) fail("a key that is not UTF-8");
        pos_ = end;
        return key;
    }

    void skip_space() {
        while (pos_ < text_.size() && std::strchr(" \t\r\n", text_[pos_]) != nullptr && text_[pos_] != '\0') ++pos_;
    }

    void expect(char c) {
        if (at_end() || text_[pos_] != c) fail(at_end() ? fmt::format("'{}' is missing at the end", c) : fmt::format("'{}' expected", c));
        ++pos_;
    }

    bool at_end() const { return pos_ >= text_.size(); }

    [[noreturn]] void fail(std::string_view what) const { throw ResultsFileError(not_json(path_, pos_, what)); }

    std::string_view text_;
    const std::string& path_;
    std::size_t pos_ = 0;
    simdjson::dom::parser parser_;
};

}  // namespace

simdjson::padded_string read_results_text(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        throw ResultsFileError(fmt::format("cannot read '{}': it is a folder; give a results file", path));
    }
    // Devices and pipes could be endless (/dev/zero); files are read only up to a size no
    // results file reaches.
    constexpr std::size_t kMaxBytes = std::size_t{1} << 30;
    const std::filesystem::file_status status = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
        throw ResultsFileError(fmt::format("cannot read '{}': it is not a regular file; give a results file", path));
    }
    const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
    if (!file) throw ResultsFileError(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) throw ResultsFileError(fmt::format("cannot read '{}': {}", path, ec.message()));
    if (size > kMaxBytes) {
        throw ResultsFileError(fmt::format("cannot read '{}': {} bytes is more than any results file (1 GiB)", path, size));
    }
    simdjson::padded_string text(static_cast<std::size_t>(size));
    if (text.data() == nullptr) throw ResultsFileError(fmt::format("cannot read '{}': out of memory", path));
    if (std::fread(text.data(), 1, text.size(), file.get()) != text.size() || std::fgetc(file.get()) != EOF) {
        throw ResultsFileError(fmt::format("cannot read '{}': it changed while being read", path));
    }
    return text;
}

void walk_results_document(std::string_view text, const std::string& path,
                           const std::function<void(std::string_view, const JsonPiece&)>& on_member,
                           const std::function<void(std::size_t, const JsonPiece&)>& on_entry) {
    TopLevel(text, path).walk(on_member, on_entry);
}

void throw_wrong_type(const std::string& path, std::string_view where, std::string_view expected,
                      simdjson::dom::element found) {
    std::string shown = simdjson::minify(found);
    if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
    throw ResultsFileError(fmt::format("'{}': {} is {}; expected {}", path, where, shown, expected));
}

}  // namespace vitals
