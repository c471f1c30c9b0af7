// The one output writer (vitals/atomic_file.hpp): whole files or nothing, never through
// a planted name, special files written in place, inputs never overwritten.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "vitals/atomic_file.hpp"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

class OutputFiles : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("vitals-output-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    // Nothing but the named entries is left in the folder (no temporary file).
    void expect_only(std::set<std::string> names) {
        std::set<std::string> found;
        for (const auto& e : fs::directory_iterator(dir_)) found.insert(e.path().filename().string());
        EXPECT_EQ(found, names);
    }
    fs::path dir_;
};

}  // namespace

TEST_F(OutputFiles, ANewFileGetsTheUsualModeAndNoTemporaryRemains) {
    const mode_t mask = ::umask(022);
    vitals::write_file_atomically(dir_ / "out.json", "new");
    ::umask(mask);
    EXPECT_EQ(slurp(dir_ / "out.json"), "new");
    struct stat st {};
    ASSERT_EQ(::stat((dir_ / "out.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0644u);
    expect_only({"out.json"});
}

TEST_F(OutputFiles, AReplacedFileKeepsItsMode) {
    std::ofstream(dir_ / "out.json") << "old";
    ::chmod((dir_ / "out.json").c_str(), 0600);
    vitals::write_file_atomically(dir_ / "out.json", "new");
    struct stat st {};
    ASSERT_EQ(::stat((dir_ / "out.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    EXPECT_EQ(slurp(dir_ / "out.json"), "new");
}

TEST_F(OutputFiles, ALinkToAFileKeepsPointingAtItsNewContent) {
    std::ofstream(dir_ / "real.json") << "old";
    fs::create_symlink(dir_ / "real.json", dir_ / "link.json");
    vitals::write_file_atomically(dir_ / "link.json", "new");
    EXPECT_TRUE(fs::is_symlink(dir_ / "link.json"));
    EXPECT_EQ(slurp(dir_ / "real.json"), "new");
    expect_only({"real.json", "link.json"});
    // A link to nothing is refused, not followed into a new file somewhere else.
    fs::create_symlink(dir_ / "elsewhere" / "x.json", dir_ / "dangling.json");
    EXPECT_THROW(vitals::write_file_atomically(dir_ / "dangling.json", "x"), std::runtime_error);
    EXPECT_FALSE(fs::exists(dir_ / "elsewhere"));
}

TEST_F(OutputFiles, DevicesAndPipesAreWrittenInPlaceNotReplaced) {
    vitals::write_file_atomically("/dev/null", "discarded");
    EXPECT_TRUE(fs::is_character_file("/dev/null"));
    const fs::path fifo = dir_ / "pipe";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string received;
    std::thread reader([&] { received = slurp(fifo); });
    vitals::write_file_atomically(fifo, "through the pipe");
    reader.join();
    EXPECT_EQ(received, "through the pipe");
    EXPECT_TRUE(fs::is_fifo(fifo));
    expect_only({"pipe"});
}

TEST_F(OutputFiles, DescriptorNamesWriteToTheDescriptor) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    vitals::write_file_atomically("/dev/fd/" + std::to_string(fds[1]), "to the descriptor");
    ::close(fds[1]);
    char buffer[64] = {};
    EXPECT_EQ(::read(fds[0], buffer, sizeof buffer - 1), 17);
    EXPECT_STREQ(buffer, "to the descriptor");
    ::close(fds[0]);
    EXPECT_THROW(vitals::check_output_path("/dev/fd/987"), std::runtime_error);  // not open
}

TEST_F(OutputFiles, BadTargetsAreRefusedBeforeAnythingIsWritten) {
    EXPECT_THROW(vitals::check_output_path(""), std::runtime_error);
    EXPECT_THROW(vitals::check_output_path(dir_), std::runtime_error);
    EXPECT_THROW(vitals::check_output_path(dir_ / "missing" / "out.json"), std::runtime_error);
    // A name that fits the file system but leaves no room for the temporary's suffix.
    const std::string long_name(250, 'n');
    try {
        vitals::check_output_path(dir_ / long_name);
        ADD_FAILURE() << "a 250-byte name was accepted";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("shorter name"), std::string::npos) << e.what();
    }
    vitals::check_output_path(dir_ / std::string(200, 'n'));
    expect_only({});
}

TEST_F(OutputFiles, AnOutputThatIsAnInputIsRefused) {
    std::ofstream(dir_ / "a.json") << "a";
    std::ofstream(dir_ / "b.json") << "b";
    fs::create_hard_link(dir_ / "b.json", dir_ / "same-as-b.json");
    EXPECT_THROW(vitals::check_outputs_are_not_inputs({dir_ / "b.json"}, {dir_ / "a.json", dir_ / "b.json"}),
                 std::runtime_error);
    EXPECT_THROW(vitals::check_outputs_are_not_inputs({dir_ / "same-as-b.json"}, {dir_ / "b.json"}), std::runtime_error);
    EXPECT_THROW(vitals::check_outputs_are_not_inputs({dir_ / "." / "a.json"}, {dir_ / "a.json"}), std::runtime_error);
    vitals::check_outputs_are_not_inputs({dir_ / "new.json", "/dev/null"}, {dir_ / "a.json", "/dev/null"});
    EXPECT_EQ(slurp(dir_ / "b.json"), "b");
}
