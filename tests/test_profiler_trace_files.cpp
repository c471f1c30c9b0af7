// Trace files in and out under pressure: writers racing into one folder under one worker
// name (threads and processes) lose no trace and replace no file, and a gzipped trace
// that expands past the cap (a "gzip bomb") is refused with the cap and the way to raise it.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "vitals/profiler/profile.hpp"
#include "vitals/profiler/trace.hpp"

using namespace vitals::profiler;
namespace fs = std::filesystem;

namespace {

fs::path fresh_dir(const std::string& what) {
    const fs::path dir = fs::temp_directory_path() / ("vitals-trace-files-" + what + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A profile holding a finished trace with one event named `name`.
void record_one(Profile& profile, const char* name) {
    profile.start();
    { RecordFunction scope(copy_name, name); }
    profile.stop();
}

// The trace files in `dir`, by name; fails on anything else left there (temporaries).
std::vector<fs::path> traces_in(const fs::path& dir, const std::string& worker) {
    const std::regex name(std::regex_replace(worker, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                          R"(\.\d+\.pt\.trace\.json(\.gz)?)");
    std::vector<fs::path> out;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string file = entry.path().filename().string();
        EXPECT_TRUE(std::regex_match(file, name)) << "left in the folder: " << file;
        out.push_back(entry.path());
    }
    return out;
}

// Bytes of a gzip stream of `zeros` zero bytes, made with zlib directly.
std::string gzip_of_zeros(std::size_t zeros) {
    z_stream z{};
    EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
    const std::string block(1 << 20, '\0');
    std::string out, buffer(1 << 16, '\0');
    for (std::size_t fed = 0; fed < zeros;) {
        const std::size_t in = std::min(block.size(), zeros - fed);
        fed += in;
        z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(block.data()));
        z.avail_in = static_cast<uInt>(in);
        const int flush = fed == zeros ? Z_FINISH : Z_NO_FLUSH;
        do {
            z.next_out = reinterpret_cast<Bytef*>(buffer.data());
            z.avail_out = static_cast<uInt>(buffer.size());
            deflate(&z, flush);
            out.append(buffer.data(), buffer.size() - z.avail_out);
        } while (z.avail_out == 0);
    }
    deflateEnd(&z);
    return out;
}

// Sets an environment variable for the scope.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
    ~ScopedEnv() { ::unsetenv(name_); }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
};

}  // namespace

// Eight threads, 25 traces each, one worker name, started together so that many land in
// the same millisecond: 200 files, each whole.
TEST(TraceFiles, ThreadsWritingUnderOneWorkerNameLoseNothing) {
    const fs::path dir = fresh_dir("threads");
    Profile profile;
    record_one(profile, "traced");
    const TraceReadyHandler write = tensorboard_trace_handler(dir, {.worker_name = "same"});
    std::atomic<int> ready{0};
    std::vector<std::thread> writers;
    for (int t = 0; t < 8; ++t) {
        writers.emplace_back([&] {
            ++ready;
            while (ready < 8) std::this_thread::yield();
            for (int i = 0; i < 25; ++i) write(profile);
        });
    }
    for (std::thread& w : writers) w.join();
    const auto files = traces_in(dir, "same");
    EXPECT_EQ(files.size(), 200u);
    for (const fs::path& f : files) {
        const Trace back = read_chrome_trace(f);
        ASSERT_EQ(back.events.size(), 1u) << f;
        EXPECT_EQ(back.events[0].name, "traced");
    }
    fs::remove_all(dir);
}

// Four processes (as two runs given one --worker), 50 traces each into one folder.
TEST(TraceFiles, ProcessesWritingUnderOneWorkerNameLoseNothing) {
    const fs::path dir = fresh_dir("processes");
    Profile profile;
    record_one(profile, "traced");
    const TraceReadyHandler write = tensorboard_trace_handler(dir, {.worker_name = "job", .use_gzip = true});
    std::vector<pid_t> children;
    for (int c = 0; c < 4; ++c) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            ::alarm(60);
            try {
                for (int i = 0; i < 50; ++i) write(profile);
            } catch (...) {
                ::_exit(1);
            }
            ::_exit(0);
        }
        children.push_back(pid);
    }
    for (const pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status));
        EXPECT_EQ(WEXITSTATUS(status), 0);
    }
    const auto files = traces_in(dir, "job");
    EXPECT_EQ(files.size(), 200u);
    for (const fs::path& f : files) ASSERT_EQ(read_chrome_trace(f).events.size(), 1u) << f;
    fs::remove_all(dir);
}

// Names already taken (for the next three seconds of stamps) are passed over, never
// replaced: the new trace takes the first free stamp.
TEST(TraceFiles, AnExistingFileIsNeverReplaced) {
    const fs::path dir = fresh_dir("planted");
    const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    constexpr int kPlanted = 3000;
    for (int k = 0; k < kPlanted; ++k) {
        std::ofstream(dir / ("w." + std::to_string(now_ms + k) + ".pt.trace.json")) << "planted " << k;
    }
    Profile profile;
    record_one(profile, "new");
    tensorboard_trace_handler(dir, {.worker_name = "w"})(profile);
    const auto files = traces_in(dir, "w");
    ASSERT_EQ(files.size(), static_cast<std::size_t>(kPlanted) + 1);
    int planted = 0;
    for (const fs::path& f : files) {
        const std::string text = slurp(f);
        if (text.rfind("planted ", 0) == 0) {
            ++planted;
            EXPECT_EQ(text, "planted " + std::to_string(std::stoll(f.stem().stem().stem().extension().string().substr(1)) -
                                                         now_ms));
        } else {
            EXPECT_EQ(read_chrome_trace(f).events.at(0).name, "new");
            EXPECT_GE(std::stoll(f.stem().stem().stem().extension().string().substr(1)), now_ms + kPlanted);
        }
    }
    EXPECT_EQ(planted, kPlanted);
    fs::remove_all(dir);
}

// 100 MiB of zeros in about 100 KiB: with the cap lowered to 16 MiB it is refused once the
// output passes the cap, and the message names the cap and how to raise it.
TEST(TraceFiles, AGzipBombIsRefusedAtTheCap) {
    const std::string bomb = gzip_of_zeros(std::size_t{100} << 20);
    ASSERT_LT(bomb.size(), std::size_t{1} << 20);
    {
        const ScopedEnv cap("VITALS_MAX_TRACE_BYTES", "16M");
        try {
            (void)parse_chrome_trace(bomb, "bomb.json.gz");
            FAIL() << "a gzip bomb was read";
        } catch (const std::runtime_error& e) {
            EXPECT_EQ(std::string(e.what()),
                      "cannot read 'bomb.json.gz': it expands past 16777216 bytes (16 MiB), the cap on a gzipped "
                      "trace's expanded size (VITALS_MAX_TRACE_BYTES=16M); to read a larger trace, raise it where "
                      "there is memory to parse the trace, e.g. VITALS_MAX_TRACE_BYTES=4G");
        }
    }
    // Under the default cap (1 GiB) 24 MiB, past the lowered cap, expands whole and is then
    // no JSON: traces of that size are read.
    ::unsetenv("VITALS_MAX_TRACE_BYTES");
    try {
        (void)parse_chrome_trace(gzip_of_zeros(std::size_t{24} << 20), "zeros.json.gz");
        FAIL() << "zeros were read as a trace";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("trace 'zeros.json.gz' is not JSON"), std::string::npos) << e.what();
    }
}

TEST(TraceFiles, AMalformedCapIsNamed) {
    const std::string small = gzip_of_zeros(10);
    for (const char* value : {"12X", "-1", "0", "G", "99999999999999999999"}) {
        const ScopedEnv cap("VITALS_MAX_TRACE_BYTES", value);
        try {
            (void)parse_chrome_trace(small, "t.json.gz");
            ADD_FAILURE() << value << " was taken as a cap";
        } catch (const std::runtime_error& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("VITALS_MAX_TRACE_BYTES='") + value + "' is not a size"),
                      std::string::npos)
                << e.what();
        }
    }
}
