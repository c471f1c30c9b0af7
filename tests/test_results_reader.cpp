// The results reader walks a file entry by entry: its top level is checked by hand, each
// entry by simdjson. Known texts, known answers: what it accepts, what it refuses (and
// where), and merge's copy of each entry as written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "vitals/results.hpp"

namespace {

std::string refusal(const std::string& text) {
    try {
        (void)vitals::parse_results_file(text, "t.json");
    } catch (const vitals::ResultsFileError& e) {
        return e.what();
    }
    return "";
}

// The test's files, in one folder of the temporary folder removed when the tests end.
const std::filesystem::path& files_folder() {
    static const struct Folder {
        std::filesystem::path path = std::filesystem::temp_directory_path() / ("vitals-results-reader-" + std::to_string(::getpid()));
        Folder() { std::filesystem::create_directories(path); }
        ~Folder() {
            std::error_code ec;
            std::filesystem::remove_all(path, ec);
        }
    } folder;
    return folder.path;
}

std::string write(const std::string& name, const std::string& text) {
    const std::string path = (files_folder() / name).string();
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

}  // namespace

TEST(ResultsReader, ReadsMembersInAnyOrderAndSpacing) {
    const std::string text =
        "\r\n{ \"benchmarks\" :[ {\"name\":\"a\",\"real_time\":2,\"time_unit\":\"us\",\"vitals_process\":1} ,\n"
        "{\"name\":\"a\",\"real_time\":4e0,\"time_unit\":\"us\"}],\t\"other\": [1, {\"x\": null}],"
        "\"context\": {\"vitals_incomplete\": true, \"vitals_cases_planned\": 3, \"vitals_trace_dir\": \"tr\"} }\n";
    const vitals::ResultsFile file = vitals::parse_results_file(text, "t.json");
    ASSERT_EQ(file.cases.size(), 1u);
    EXPECT_EQ(file.cases[0].seconds, (std::vector<double>{2e-6, 4e-6}));
    EXPECT_EQ(file.cases[0].process, (std::vector<int>{1, 0}));
    EXPECT_TRUE(file.incomplete);
    EXPECT_EQ(file.cases_planned, 3u);
    EXPECT_EQ(file.trace_dir, "tr");
    EXPECT_EQ(nlohmann::json::parse(file.context_json).at("vitals_trace_dir"), "tr");
    EXPECT_EQ(vitals::parse_results_file(R"({"benchmarks": []})", "t.json").cases.size(), 0u);
}

TEST(ResultsReader, RefusesBrokenTextNamingTheByte) {
    struct Case {
        std::string text, says;
    };
    const std::vector<Case> cases = {
        {"", "byte 0: the text is empty"},
        {R"({"benchmarks": []} x)", "byte 19: text after the top-level object"},
        {R"({"benchmarks": [{"name": "a", "real_time": 1},]})", "byte 46: ']' where a value belongs"},
        {R"({"benchmarks": [{"name": "a", "real_time": 1}] "context": {}})", "byte 47: '}' expected"},
        {R"({"benchmarks": [{"name": "a", "real_time": 1,}]})", "byte 16"},
        {R"({"bench\marks": []})", "bad escape in a key"},
        {"{\"bench\x01\": [], \"benchmarks\": []}", "control character in a key"},
        {"{\"\xff\": 1, \"benchmarks\": []}", "not UTF-8"},
        {R"({"benchmarks": [{"name": "a", "real_time": 1})", "']' is missing at the end"},
        {R"({"benchmarks": [{"name": "a)", "a string that never ends"},
        {R"({"benchmarks": [], "benchmarks": []})", "a second \"benchmarks\" member"},
        {R"({"context": {}})", "has no \"benchmarks\" list"},
        {R"({"benchmarks": {}})", "has no \"benchmarks\" list"},
        {R"([1, 2])", "has no \"benchmarks\" list"},
        {R"([1, 2)", "is not JSON"},
        {R"({"benchmarks": [)" + std::string(40, '[') + std::string(40, ']') + "]}", "deeper than 32 levels"},
        {R"({"benchmarks": [{"real_time": 1}]})", "benchmark entry 0 has no name"},
        {R"({"benchmarks": [{"name": "a", "real_time": "1"}]})", "case 'a': real_time is \"1\"; expected a finite number >= 0"},
        {R"({"benchmarks": [{"name": "a", "real_time": 1, "label": 3}]})", "case 'a': label is 3; expected a string"},
        {R"({"benchmarks": [{"name": "a", "real_time": 1, "vitals_process": 1.5}]})", "vitals_process is 1.5"},
        {R"({"benchmarks": [{"name": "a", "real_time": 1, "vitals_work": {"bytes": -1}}]})", "case 'a': vitals_work.bytes is -1"},
        {R"({"context": {"vitals_incomplete": 1}, "benchmarks": []})", "the context: vitals_incomplete is 1"},
    };
    for (const Case& c : cases) {
        const std::string said = refusal(c.text);
        EXPECT_NE(said.find(c.says), std::string::npos) << c.text << "\n  said: " << said;
        EXPECT_EQ(said.rfind("'t.json'", 0), 0u) << c.text << "\n  said: " << said;
    }
}

TEST(ResultsReader, ReadsFilesAndRefusesWhatIsNoFile) {
    const std::string path = write("reader.json", R"({"benchmarks": [{"name": "a", "real_time": 3, "time_unit": "ms"}]})");
    EXPECT_EQ(vitals::read_results_file(path).cases.at(0).seconds, std::vector<double>{3e-3});
    EXPECT_THROW((void)vitals::read_results_file(testing::TempDir() + "/no-such.json"), vitals::ResultsFileError);
    EXPECT_THROW((void)vitals::read_results_file(testing::TempDir()), vitals::ResultsFileError);
    EXPECT_THROW((void)vitals::read_results_file("/dev/zero"), vitals::ResultsFileError);
}

TEST(ResultsReader, MergeCopiesEntriesAsWrittenWithTheirFamiliesRenumbered) {
    const std::string a = write("shard-a.json", R"({"context": {"host_name": "h", "vitals_cases_planned": 4},
  "benchmarks": [
    {"name": "x", "family_index": 7, "real_time": 1e3, "nested": {"family_index": 9}},
    {"family_index" : 7 , "name": "x", "real_time": 2},
    {"name": "y", "real_time": 2.50}
  ]})");
    const std::string b = write("shard-b.json", R"({"benchmarks": [{"name": "z", "family_index": 0, "real_time": 5}]})");
    const std::string merged = vitals::merge_results({a, b});
    EXPECT_NE(merged.find(R"({"name": "x", "family_index": 0, "real_time": 1e3, "nested": {"family_index": 9}})"), std::string::npos)
        << merged;
    EXPECT_NE(merged.find(R"({"family_index" : 0 , "name": "x", "real_time": 2})"), std::string::npos) << merged;
    EXPECT_NE(merged.find("\"family_index\": 1,\"name\": \"y\", \"real_time\": 2.50}"), std::string::npos) << merged;
    const nlohmann::json doc = nlohmann::json::parse(merged);
    ASSERT_EQ(doc.at("benchmarks").size(), 4u);
    EXPECT_EQ(doc.at("benchmarks")[3].at("family_index"), 2);
    EXPECT_EQ(doc.at("context").at("host_name"), "h");
    EXPECT_FALSE(doc.at("context").contains("vitals_cases_planned"));
    EXPECT_EQ(doc.at("context").at("vitals_merged_from"), nlohmann::json::array({a, b}));
    // The same document, given in pieces.
    std::string pieces;
    vitals::merge_results({a, b}, [&](std::string_view piece) { pieces += piece; });
    EXPECT_EQ(pieces, merged);
    // A case in two shards: refused, naming both.
    try {
        (void)vitals::merge_results({a, a});
        FAIL() << "a case in two shards was merged";
    } catch (const vitals::ResultsFileError& e) {
        EXPECT_NE(std::string(e.what()).find("is in both"), std::string::npos) << e.what();
    }
    EXPECT_EQ(nlohmann::json::parse(vitals::merge_results({write("empty.json", R"({"benchmarks": []})")})).at("benchmarks").size(), 0u);
}
