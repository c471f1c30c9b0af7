// The README's examples are the compiled ones: its C++ blocks are files in examples/.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace {
std::string read(const std::string& relative) {
    std::ifstream in(std::string(VITALS_SOURCE_DIR) + "/" + relative);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
}  // namespace

TEST(Readme, CodeBlocksAreTheCompiledExamples) {
    const std::string readme = read("README.md");
    for (const char* file : {"examples/quickstart.cpp", "examples/my_bench.cpp", "examples/profile_forward.cpp"}) {
        const std::string example = read(file);
        ASSERT_FALSE(example.empty()) << file;
        EXPECT_NE(readme.find("```cpp\n" + example + "```\n"), std::string::npos)
            << "README.md must contain " << file << " verbatim in a ```cpp block";
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
