// The machine cache (vitals/machine.hpp): only in a folder of this user that no one else
// may write, read without following links, and every problem with it a warning that
// leaves fresh figures in use. Figures no machine has, or that contradict each other,
// are refused wherever they come from.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "vitals/machine.hpp"

namespace fs = std::filesystem;
using namespace vitals::machine;

namespace {

constexpr uid_t kOtherUser = 12345;

// A machine with round figures (as in test_machine.cpp): plausible in every respect.
Limits round_machine() {
    Limits l;
    l.identity = {"host", "Test CPU 9000", 4, {{1, 32 << 10, 1}, {2, 1 << 20, 1}}, "avx2"};
    l.one_core = {{"L1", 16 << 10, 100e9, 90e9, 80e9}, {"L2", 512 << 10, 50e9, 45e9, 40e9}, {"memory", 64 << 20, 10e9, 9e9, 8e9}};
    l.all_cores = {{"L1", 16 << 10, 400e9, 360e9, 320e9}, {"L2", 512 << 10, 200e9, 180e9, 160e9}, {"memory", 16 << 20, 20e9, 18e9, 16e9}};
    l.peak_f32_one_core = 100e9;
    l.peak_f64_one_core = 50e9;
    l.peak_f32_all_cores = 400e9;
    l.peak_f64_all_cores = 200e9;
    l.measured_at = "2026-12-01T00:00:00+0000";
    return l;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string implausible(const std::function<void(Limits&)>& change) {
    Limits l = round_machine();
    change(l);
    try {
        check_plausible(l);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "";
}

// Each test gets its own folder and environment; the variables the cache reads are put
// back afterwards.
class MachineCache : public ::testing::Test {
protected:
    void SetUp() override {
        for (const char* name : kVariables) {
            const char* v = std::getenv(name);
            saved_.emplace_back(name, v ? std::optional<std::string>(v) : std::nullopt);
        }
        dir_ = fs::temp_directory_path() / ("vitals-cache-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        cache_ = dir_ / "cache";
        fs::create_directory(cache_);
        ::chmod(cache_.c_str(), 0700);
        ::setenv("VITALS_CACHE_DIR", cache_.c_str(), 1);
    }
    void TearDown() override {
        for (const auto& [name, value] : saved_) {
            if (value) {
                ::setenv(name.c_str(), value->c_str(), 1);
            } else {
                ::unsetenv(name.c_str());
            }
        }
        fs::remove_all(dir_);
    }
    fs::path file() const { return *cache_file(round_machine().identity); }
    std::optional<Limits> load() { return load_cached(round_machine().identity, [this](const std::string& m) { warnings_ += m + "\n"; }); }
    void store(const Limits& l) { store_cached(l, [this](const std::string& m) { warnings_ += m + "\n"; }); }

    static constexpr const char* kVariables[] = {"VITALS_CACHE_DIR", "XDG_CACHE_HOME", "HOME", "XDG_RUNTIME_DIR"};
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
    fs::path dir_, cache_;
    std::string warnings_;
};

}  // namespace

TEST_F(MachineCache, StoredFiguresReadBackFromAFolderCreatedPrivate) {
    ::setenv("VITALS_CACHE_DIR", (dir_ / "new" / "vitals").c_str(), 1);
    store(round_machine());
    EXPECT_EQ(warnings_, "");
    struct stat st {};
    ASSERT_EQ(::stat((dir_ / "new" / "vitals").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    ASSERT_EQ(::stat((dir_ / "new").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0700u);
    const std::optional<Limits> back = load();
    ASSERT_TRUE(back);
    EXPECT_DOUBLE_EQ(back->peak_f32_all_cores, 400e9);
    EXPECT_EQ(warnings_, "");
    Identity other = round_machine().identity;
    other.cores = 8;  // another machine's figures are not these
    EXPECT_FALSE(load_cached(other, [](const std::string&) {}));
}

TEST_F(MachineCache, ACorruptCacheIsMeasuredAgainWithAWarning) {
    std::ofstream(file()) << "{\"vitals_machine_format\": 1, \"host\": ";
    EXPECT_FALSE(load());
    EXPECT_NE(warnings_.find("cache file '" + file().string() + "' holds no figures"), std::string::npos) << warnings_;
    EXPECT_NE(warnings_.find("measuring again"), std::string::npos) << warnings_;
    // The next store replaces it.
    warnings_.clear();
    store(round_machine());
    EXPECT_TRUE(load());
    EXPECT_EQ(warnings_, "");
}

TEST_F(MachineCache, FiguresNoMachineHasOrThatContradictEachOtherAreRefused) {
    EXPECT_EQ(implausible([](Limits&) {}), "");
    EXPECT_NE(implausible([](Limits& l) { l.one_core[2].copy = 1e3; }).find("which no machine has"), std::string::npos);
    EXPECT_NE(implausible([](Limits& l) { l.peak_f32_one_core = 5e16; }).find("f32 peak of one core"), std::string::npos);
    EXPECT_NE(implausible([](Limits& l) { l.peak_f64_one_core = 300e9; }).find("f64 peak is well above"), std::string::npos);
    EXPECT_NE(implausible([](Limits& l) { l.peak_f32_all_cores = 2e12; }).find("more than four times 4 times"), std::string::npos);
    EXPECT_NE(implausible([](Limits& l) { l.all_cores[2].triad = 190e9; }).find("more than four times 4 times"), std::string::npos);
    EXPECT_NE(implausible([](Limits& l) { l.one_core[2].read = 500e9; }).find("more than four times the L2"), std::string::npos);
    EXPECT_NE(implausible([](Limits& l) { l.one_core[1].working_set = 8 << 10; }).find("not larger"), std::string::npos);
    EXPECT_NE(implausible([](Limits& l) { l.one_core.pop_back(); }).find("not memory"), std::string::npos);
    EXPECT_NE(implausible([](Limits& l) { l.device = DeviceFigures{"gpu", 0.5, 1e12, 1e12}; }).find("no device has"),
              std::string::npos);
    // Such figures in the cache file (a case would sit at 100,000% of its ceiling) are
    // measured again, not used.
    Limits tiny = round_machine();
    for (Bandwidth& b : tiny.one_core) b.read = b.copy = b.triad = 2e3;
    std::ofstream(file()) << to_json(tiny);
    EXPECT_FALSE(load());
    EXPECT_NE(warnings_.find("no machine has"), std::string::npos) << warnings_;
    // And never stored.
    warnings_.clear();
    fs::remove(file());
    store(tiny);
    EXPECT_FALSE(fs::exists(file()));
    EXPECT_NE(warnings_.find("not cached"), std::string::npos) << warnings_;
}

TEST_F(MachineCache, AFolderAnyoneMayWriteIsNotUsed) {
    store(round_machine());
    ASSERT_TRUE(load());
    ASSERT_EQ(::chmod(cache_.c_str(), 0777), 0);
    EXPECT_FALSE(load());
    EXPECT_NE(warnings_.find("may be written by others (mode 0777)"), std::string::npos) << warnings_;
    EXPECT_NE(warnings_.find("chmod 700"), std::string::npos) << warnings_;
    warnings_.clear();
    const std::string before = slurp(file());
    Limits changed = round_machine();
    changed.measured_at = "later";
    store(changed);
    EXPECT_NE(warnings_.find("not cached"), std::string::npos) << warnings_;
    EXPECT_EQ(slurp(file()), before);
}

TEST_F(MachineCache, AFolderOfAnotherUserIsNotUsed) {
    if (::geteuid() != 0) GTEST_SKIP() << "needs root, to give the folder to another user (chown)";
    store(round_machine());
    ASSERT_EQ(::chown(cache_.c_str(), kOtherUser, kOtherUser), 0);
    EXPECT_FALSE(load());
    EXPECT_NE(warnings_.find("belongs to another user (uid 12345)"), std::string::npos) << warnings_;
    warnings_.clear();
    store(round_machine());
    EXPECT_NE(warnings_.find("not cached"), std::string::npos) << warnings_;
}

TEST_F(MachineCache, ALinkAtTheCacheFileIsNeitherReadNorWrittenThrough) {
    // The link's target holds figures that would be used if the link were followed.
    const fs::path planted = dir_ / "planted.json";
    std::ofstream(planted) << to_json(round_machine());
    fs::create_symlink(planted, file());
    EXPECT_FALSE(load());
    EXPECT_NE(warnings_.find("is a symbolic link"), std::string::npos) << warnings_;
    const std::string before = slurp(planted);
    Limits changed = round_machine();
    changed.measured_at = "later";
    store(changed);
    EXPECT_EQ(slurp(planted), before);
    EXPECT_FALSE(fs::is_symlink(file()));
    ASSERT_TRUE(load());
    EXPECT_EQ(load()->measured_at, "later");
}

TEST_F(MachineCache, AnXdgCacheHomeThatIsAFileWarnsAndTheFreshFiguresAreUsed) {
    ::unsetenv("VITALS_CACHE_DIR");
    std::ofstream(dir_ / "a-file") << "not a folder";
    ::setenv("XDG_CACHE_HOME", (dir_ / "a-file").c_str(), 1);
    EXPECT_EQ(cache_file(round_machine().identity)->parent_path(), dir_ / "a-file" / "vitals");
    EXPECT_FALSE(load());
    EXPECT_EQ(warnings_, "") << "nothing cached there; storing says why";
    // A whole measurement: the figures come back, the cache's failure is one warning only.
    const Limits fresh = limits(false, {}, [this](const std::string& m) { warnings_ += m + "\n"; });
    EXPECT_GT(fresh.peak_f64_one_core, 0);
    EXPECT_NE(warnings_.find("the figures are not cached: cannot create cache folder '" + (dir_ / "a-file" / "vitals").string() +
                             "': Not a directory; set VITALS_CACHE_DIR"),
              std::string::npos)
        << warnings_;
    EXPECT_EQ(slurp(dir_ / "a-file"), "not a folder");
}

TEST_F(MachineCache, WithHomeUnsetTheCacheIsInThisUsersHomeNeverAShared) {
    for (const char* name : kVariables) ::unsetenv(name);
    const std::optional<fs::path> path = cache_file(round_machine().identity);
    ASSERT_TRUE(path) << "this user has a home folder in the passwd database";
    const fs::path temp = fs::temp_directory_path();
    EXPECT_NE(path->string().rfind(temp.string(), 0), 0u) << *path;
    EXPECT_EQ(path->parent_path().filename(), "vitals");
    EXPECT_EQ(path->parent_path().parent_path().filename(), ".cache");
    // A relative XDG_CACHE_HOME is ignored (the XDG spec); an absolute one is used.
    ::setenv("XDG_CACHE_HOME", "relative", 1);
    EXPECT_EQ(cache_file(round_machine().identity), path);
    ::setenv("XDG_CACHE_HOME", dir_.c_str(), 1);
    EXPECT_EQ(cache_file(round_machine().identity)->parent_path(), dir_ / "vitals");
}
