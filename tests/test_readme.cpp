// The README's examples are the compiled ones: its C++ block is examples/quickstart.cpp.
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

TEST(Readme, QuickstartBlockIsTheCompiledExample) {
    const std::string readme = read("README.md");
    const std::string example = read("examples/quickstart.cpp");
    ASSERT_FALSE(example.empty());
    EXPECT_NE(readme.find("```cpp\n" + example + "```\n"), std::string::npos)
        << "README.md must contain examples/quickstart.cpp verbatim in a ```cpp block";
}

TEST(Readme, StartsWithTheTwoSetupCommands) {
    const std::string readme = read("README.md");
    const auto demo = readme.find("make demo");
    const auto test = readme.find("make test");
    ASSERT_NE(demo, std::string::npos);
    ASSERT_NE(test, std::string::npos);
    EXPECT_EQ(readme.find("```"), readme.find("```sh\nmake demo\nmake test\n```"));
}
