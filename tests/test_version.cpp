// One version everywhere: project(vitals VERSION ...) in CMake (VITALS_TEST_CMAKE_VERSION
// here), <vitals/version.hpp>, and --version of `vitals` and of a VITALS_MAIN program.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <string>

#include "vitals/version.hpp"

namespace {

struct Output {
    int exit_code;
    std::string out;
};

Output run(const std::string& program, const std::string& args) {
    const std::string command = std::string(VITALS_BINARY_DIR) + "/" + program + " " + args + " 2>&1 </dev/null";
    Output result{-1, ""};
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return result;
    char buffer[256];
    while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) result.out.append(buffer, n);
    const int status = ::pclose(pipe);
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

TEST(Version, HeaderMatchesCMake) {
    EXPECT_STREQ(VITALS_VERSION_STRING, VITALS_TEST_CMAKE_VERSION);
    EXPECT_EQ(fmt::format("{}.{}.{}", VITALS_VERSION_MAJOR, VITALS_VERSION_MINOR, VITALS_VERSION_PATCH),
              VITALS_TEST_CMAKE_VERSION);
    EXPECT_EQ(VITALS_VERSION, VITALS_VERSION_MAJOR * 10000 + VITALS_VERSION_MINOR * 100 + VITALS_VERSION_PATCH);
}

TEST(Version, VitalsCommandPrintsIt) {
    const Output r = run("bin/vitals", "--version");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out, fmt::format("vitals {}\n", VITALS_TEST_CMAKE_VERSION));
}

TEST(Version, ProgramOfOnesOwnPrintsItsNameAndVitalsVersion) {
    const Output r = run("tests/vitals_fixture_bench", "--version");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_EQ(r.out, fmt::format("vitals_fixture_bench (vitals {})\n", VITALS_TEST_CMAKE_VERSION));
}

TEST(Version, HelpNamesTheFlag) {
    const Output r = run("bin/vitals", "--help");
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("--version"), std::string::npos) << r.out;
}

TEST(Version, IsNoOptionOfACommand) {
    const Output r = run("bin/vitals", "list --version");
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.out.find("vitals: error: "), std::string::npos) << r.out;
}

}  // namespace
