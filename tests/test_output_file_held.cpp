// OutputFile (vitals/atomic_file.hpp): a path checked once and held. A relative path
// stays where it was when checked, a link planted after the check is replaced and never
// followed, a folder renamed in between still receives the file, tagged names go beside
// it; and (as root, where the kernel would let root follow anything with
// protected_symlinks off) another user's link in a sticky folder anyone may write is
// refused, as that rule refuses it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "vitals/atomic_file.hpp"

namespace fs = std::filesystem;
using vitals::OutputFile;

namespace {

constexpr uid_t kOtherUser = 12345;  // no one's uid on this machine: "another user"

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void put(const fs::path& p, const std::string& text, mode_t mode = 0644) {
    std::ofstream(p) << text;
    ::chmod(p.c_str(), mode);
}

class HeldOutput : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("vitals-held-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    // A folder like /tmp: sticky, anyone may write it; root owns it.
    fs::path shared_folder() {
        const fs::path shared = dir_ / "shared";
        fs::create_directory(shared);
        EXPECT_EQ(::chmod(shared.c_str(), 01777), 0);
        return shared;
    }
    fs::path dir_;
};

std::string message_of(const fs::path& path) {
    try {
        OutputFile out(path);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_F(HeldOutput, AChdirAfterTheCheckChangesNothing) {
    fs::create_directories(dir_ / "one");
    fs::create_directories(dir_ / "two");
    const fs::path before = fs::current_path();
    fs::current_path(dir_ / "one");
    const OutputFile out("results.json");
    fs::current_path(dir_ / "two");
    out.write("measured");
    fs::current_path(before);
    EXPECT_EQ(out.path(), "results.json");
    EXPECT_EQ(slurp(dir_ / "one" / "results.json"), "measured");
    EXPECT_FALSE(fs::exists(dir_ / "two" / "results.json"));
}

TEST_F(HeldOutput, ALinkPlantedAfterTheCheckIsReplacedNotFollowed) {
    put(dir_ / "victim", "victim's own", 0600);
    const OutputFile fresh(dir_ / "new.json");  // nothing there yet
    fs::create_symlink(dir_ / "victim", dir_ / "new.json");
    fresh.write("results");
    put(dir_ / "old.json", "old");
    const OutputFile existing(dir_ / "old.json");  // a regular file when checked
    fs::remove(dir_ / "old.json");
    fs::create_symlink(dir_ / "victim", dir_ / "old.json");
    existing.write("results again");
    EXPECT_EQ(slurp(dir_ / "victim"), "victim's own");
    for (const char* name : {"new.json", "old.json"}) {
        EXPECT_FALSE(fs::is_symlink(dir_ / name)) << name;
        EXPECT_TRUE(fs::is_regular_file(dir_ / name)) << name;
    }
    EXPECT_EQ(slurp(dir_ / "new.json"), "results");
    EXPECT_EQ(slurp(dir_ / "old.json"), "results again");
    // The planted link's target lent nothing: the new file has the usual mode, not 0600.
    const mode_t mask = ::umask(022);
    ::umask(mask);
    struct stat st {};
    ASSERT_EQ(::stat((dir_ / "new.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0666u & ~mask);
}

TEST_F(HeldOutput, TheFolderCheckedReceivesTheFileThoughItWasRenamed) {
    fs::create_directories(dir_ / "out");
    fs::create_directories(dir_ / "elsewhere");
    const OutputFile out(dir_ / "out" / "r.json");
    fs::rename(dir_ / "out", dir_ / "moved");
    fs::create_directory_symlink(dir_ / "elsewhere", dir_ / "out");
    out.write("here");
    EXPECT_EQ(slurp(dir_ / "moved" / "r.json"), "here");
    EXPECT_FALSE(fs::exists(dir_ / "elsewhere" / "r.json"));
}

TEST_F(HeldOutput, TaggedNamesGoBesideTheOutputInTheSameFolder) {
    fs::create_directories(dir_ / "a");
    const OutputFile out(dir_ / "a" / "out.json");
    const OutputFile partial = out.tagged("partial");
    EXPECT_EQ(partial.path(), dir_ / "a" / "out.partial.json");
    fs::rename(dir_ / "a", dir_ / "b");  // held: the tagged file follows the folder
    partial.write("part");
    EXPECT_EQ(slurp(dir_ / "b" / "out.partial.json"), "part");
    EXPECT_FALSE(fs::exists(dir_ / "b" / "out.json"));
    EXPECT_EQ(OutputFile(dir_ / "b" / "archive.tar.gz").tagged("rank1").path().filename(), "archive.tar.rank1.gz");
    EXPECT_EQ(OutputFile(dir_ / "b" / "plain").tagged("partial").path().filename(), "plain.partial");
    // A link at the tagged name is replaced, never followed.
    put(dir_ / "victim", "victim's own");
    fs::create_symlink(dir_ / "victim", dir_ / "b" / "x.partial.json");
    OutputFile(dir_ / "b" / "x.json").tagged("partial").write("mine");
    EXPECT_EQ(slurp(dir_ / "victim"), "victim's own");
    EXPECT_FALSE(fs::is_symlink(dir_ / "b" / "x.partial.json"));
    // Descriptors and devices: the same output.
    EXPECT_EQ(OutputFile("/dev/null").tagged("partial").path(), "/dev/null");
    EXPECT_EQ(OutputFile("-").tagged("partial").path(), "-");
    EXPECT_THROW((void)out.tagged("a/b"), std::invalid_argument);
    EXPECT_THROW((void)out.tagged(""), std::invalid_argument);
}

TEST_F(HeldOutput, ACopyHoldsTheFolderOfItsOwn) {
    std::optional<OutputFile> original(std::in_place, dir_ / "c.json");
    const OutputFile copy(*original);
    OutputFile moved(std::move(*original));
    original.reset();
    copy.write("copy");
    EXPECT_EQ(slurp(dir_ / "c.json"), "copy");
    moved.write("moved");
    EXPECT_EQ(slurp(dir_ / "c.json"), "moved");
}

TEST_F(HeldOutput, LinkLoopsAndLinksToNothingAreRefused) {
    fs::create_symlink(dir_ / "b", dir_ / "a");
    fs::create_symlink(dir_ / "a", dir_ / "b");
    EXPECT_NE(message_of(dir_ / "a").find("too many symbolic links"), std::string::npos) << message_of(dir_ / "a");
    fs::create_symlink("missing.json", dir_ / "dangling.json");
    EXPECT_NE(message_of(dir_ / "dangling.json").find("link to a missing file"), std::string::npos);
    fs::create_symlink(dir_ / "nowhere" / "x.json", dir_ / "dangling-folder.json");
    EXPECT_NE(message_of(dir_ / "dangling-folder.json").find("link to a missing file"), std::string::npos);
    put(dir_ / "file", "x");
    EXPECT_NE(message_of(dir_ / "file" / "out.json").find("is not a folder"), std::string::npos);
    EXPECT_NE(message_of(dir_ / "no" / "out.json").find("folder '" + (dir_ / "no").string() + "' does not exist"),
              std::string::npos)
        << message_of(dir_ / "no" / "out.json");
    EXPECT_NE(message_of(dir_.string() + "/").find("it is a folder"), std::string::npos);
}

// Root with protected_symlinks off would follow any link: vitals does not.
TEST_F(HeldOutput, AnotherUsersLinkInASharedStickyFolderIsRefused) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root, to give a link to another user (lchown)";
    const fs::path shared = shared_folder();
    put(dir_ / "secret", "root's own", 0600);
    const fs::path planted = shared / "out.json";
    fs::create_symlink(dir_ / "secret", planted);
    ASSERT_EQ(::lchown(planted.c_str(), kOtherUser, kOtherUser), 0);
    const std::string message = message_of(planted);
    EXPECT_NE(message.find("'" + planted.string() + "' is a symbolic link of another user (uid 12345)"), std::string::npos)
        << message;
    EXPECT_NE(message.find("remove the link"), std::string::npos) << message;
    EXPECT_THROW(vitals::write_file_atomically(planted, "overwritten"), std::runtime_error);
    EXPECT_THROW(vitals::check_output_path(planted), std::runtime_error);
    // A planted link to a folder on the way is refused the same.
    fs::create_directories(dir_ / "private");
    fs::create_directory_symlink(dir_ / "private", shared / "dir");
    ASSERT_EQ(::lchown((shared / "dir").c_str(), kOtherUser, kOtherUser), 0);
    EXPECT_NE(message_of(shared / "dir" / "x.json").find("symbolic link of another user"), std::string::npos);
    EXPECT_EQ(slurp(dir_ / "secret"), "root's own");
    struct stat st {};
    ASSERT_EQ(::stat((dir_ / "secret").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);

    // The follower's own link is followed, and so is the folder owner's.
    ASSERT_EQ(::lchown(planted.c_str(), 0, 0), 0);
    vitals::write_file_atomically(planted, "through my own link");
    EXPECT_EQ(slurp(dir_ / "secret"), "through my own link");
    ASSERT_EQ(::chown(shared.c_str(), kOtherUser, kOtherUser), 0);
    ASSERT_EQ(::lchown(planted.c_str(), kOtherUser, kOtherUser), 0);
    vitals::write_file_atomically(planted, "through the folder owner's link");
    EXPECT_EQ(slurp(dir_ / "secret"), "through the folder owner's link");
    // Outside a sticky shared folder the rule does not apply.
    fs::create_symlink(dir_ / "secret", dir_ / "plain-link.json");
    ASSERT_EQ(::lchown((dir_ / "plain-link.json").c_str(), kOtherUser, kOtherUser), 0);
    vitals::check_output_path(dir_ / "plain-link.json");
}

// Root may rename over another user's file in /tmp, but the result must not become that
// user's (mode and owner copied): it is root's, with the usual mode.
TEST_F(HeldOutput, AnotherUsersFileInASharedFolderLendsRootsOutputNothing) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root, to give a file to another user (chown)";
    const fs::path shared = shared_folder();
    put(shared / "out.json", "planted", 0666);
    ASSERT_EQ(::chown((shared / "out.json").c_str(), kOtherUser, kOtherUser), 0);
    const mode_t mask = ::umask(022);
    vitals::write_file_atomically(shared / "out.json", "root's results");
    ::umask(mask);
    struct stat st {};
    ASSERT_EQ(::stat((shared / "out.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, 0u);
    EXPECT_EQ(st.st_mode & 0777, 0644u);
    EXPECT_EQ(slurp(shared / "out.json"), "root's results");
    // Outside such a folder a replaced file keeps its owner (root rewriting a user's file).
    put(dir_ / "users.json", "user's", 0640);
    ASSERT_EQ(::chown((dir_ / "users.json").c_str(), kOtherUser, kOtherUser), 0);
    vitals::write_file_atomically(dir_ / "users.json", "rewritten");
    ASSERT_EQ(::stat((dir_ / "users.json").c_str(), &st), 0);
    EXPECT_EQ(st.st_uid, kOtherUser);
    EXPECT_EQ(st.st_mode & 0777, 0640u);
}
