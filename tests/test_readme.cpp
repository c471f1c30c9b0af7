// The documentation's examples are the compiled ones: each file in examples/ that a page
// shows is in that page verbatim, and the README starts with the set-up commands.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

namespace {
std::string read_path(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
std::string read(const std::string& relative) { return read_path(std::string(VITALS_SOURCE_DIR) + "/" + relative); }
}  // namespace

TEST(Readme, CodeBlocksAreTheCompiledExamples) {
    // Each example and the page that shows it.
    const std::pair<const char*, const char*> shown[] = {
        {"examples/quickstart.cpp", "README.md"},
        {"examples/profile_forward.cpp", "README.md"},
        {"examples/my_bench.cpp", "docs/runner.md"},
        {"examples/from_google_benchmark.cpp", "docs/from-google-benchmark.md"},
    };
    for (const auto& [file, page] : shown) {
        const std::string text = read(page);
        ASSERT_FALSE(text.empty()) << page;
        const std::string example = read(file);
        ASSERT_FALSE(example.empty()) << file;
        EXPECT_NE(text.find("```cpp\n" + example + "```\n"), std::string::npos)
            << page << " must contain " << file << " verbatim in a ```cpp block";
    }
}

TEST(Readme, StartsWithTheTwoSetupCommands) {
    const std::string readme = read("README.md");
    const auto demo = readme.find("make demo");
    const auto test = readme.find("make test");
    ASSERT_NE(demo, std::string::npos);
    ASSERT_NE(test, std::string::npos);
    EXPECT_EQ(readme.find("```"), readme.find("```sh\nmake demo\nmake test\n```"));
}

// The design page's list of dependencies ("- `part`: parts it links") is CMake's own graph
// of the product's targets, and reads bottom-up: every part a line names stands above.
TEST(Readme, DependencyListIsCMakesGraph) {
    if (VITALS_SANITIZED) GTEST_SKIP() << "the same graph in every build: checked once, in the main build";
    const std::string page_name = "docs/design.md";
    const std::string page = read(page_name);
    const std::string begin_marker = "<!-- dependencies: checked against cmake --graphviz by tests/test_readme.cpp -->\n";
    const auto begin = page.find(begin_marker);
    ASSERT_NE(begin, std::string::npos) << page_name << " lost its dependency list marker";
    const auto end = page.find("\n\n", begin + begin_marker.size());
    std::istringstream lines(page.substr(begin + begin_marker.size(), end - begin - begin_marker.size()));
    std::map<std::string, std::set<std::string>> documented;
    std::set<std::string> seen;
    for (std::string line; std::getline(lines, line);) {
        const std::regex row(R"(- `(\w+)`: (.*))");
        std::smatch m;
        ASSERT_TRUE(std::regex_match(line, m, row)) << "not a dependency line: " << line;
        std::set<std::string>& deps = documented[m[1]];
        const std::string list = m[2];
        if (list != "nothing") {
            const std::regex name(R"(`(\w+)`)");
            for (auto it = std::sregex_iterator(list.begin(), list.end(), name); it != std::sregex_iterator(); ++it) {
                const std::string dep = (*it)[1];
                EXPECT_TRUE(seen.count(dep)) << m[1] << " names " << dep << ", which the list has not introduced above it";
                deps.insert(dep);
            }
        }
        seen.insert(m[1]);
    }

    const std::filesystem::path dir = std::filesystem::path(VITALS_BINARY_DIR) / "graphviz-check";
    std::filesystem::remove_all(dir);
    const std::string command = std::string(VITALS_CMAKE_COMMAND) + " -S " + VITALS_SOURCE_DIR + " -B " + dir.string() +
                                " -DVITALS_BUILD_TESTS=OFF -DVITALS_BUILD_BENCHES=OFF -DVITALS_INSTALL=OFF"
                                " --graphviz=" + (dir / "deps.dot").string() + " > " + (dir.string() + ".log") + " 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    // Every library target is a part (vitals_<part>), and so is the `vitals` executable
    // (vitals_cli). Edges come with a comment naming both ends:
    //   "node1" -> "node7"  // vitals_kernels -> vitals_platform
    const std::string graph = read_path(dir / "deps.dot");
    std::set<std::string> parts = {"cli"};
    const std::regex library(R"re(label = "vitals_(\w+)\\n\(vitals::\w+\)(?:\\n\(vitals::\w+\))*", shape = octagon)re");
    for (auto it = std::sregex_iterator(graph.begin(), graph.end(), library); it != std::sregex_iterator(); ++it) {
        parts.insert((*it)[1]);
    }
    EXPECT_GE(parts.size(), 7u) << "too few libraries found in CMake's graph:\n" << graph;
    if (!parts.count("cuda")) {  // no CUDA toolkit here: the cuda part is not built
        documented.erase("cuda");
        for (auto& [part, deps] : documented) deps.erase("cuda");
    }
    std::map<std::string, std::set<std::string>> linked;
    const std::regex edge(R"(// vitals_(\w+) -> vitals_(\w+))");
    for (auto it = std::sregex_iterator(graph.begin(), graph.end(), edge); it != std::sregex_iterator(); ++it) {
        if (parts.count((*it)[1]) && parts.count((*it)[2])) linked[(*it)[1]].insert((*it)[2]);
    }
    for (const std::string& part : parts) {
        ASSERT_TRUE(documented.count(part)) << page_name << "'s dependency list has no line for " << part;
        EXPECT_EQ(linked[part], documented[part]) << page_name << "'s dependencies of " << part << " differ from CMake's";
    }
    EXPECT_EQ(documented.size(), parts.size()) << page_name << " lists a part CMake does not build";
}
