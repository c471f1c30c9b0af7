// tensorboard_trace_handler: each finished trace into a folder, under a name no other
// writer holds. Several processes (ranks of one job, or two runs given the same worker
// name) may write into one folder at once, so a name is taken only by creating it
// exclusively: an existing file is never replaced, and a taken name moves the stamp on.
#include "vitals/profiler/profile.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

#include "gzip.hpp"

namespace vitals::profiler {
namespace {

[[noreturn]] void fail(const std::filesystem::path& path, const char* what, int error) {
    throw std::runtime_error(fmt::format("cannot write trace '{}': {}: {}", path.string(), what, std::strerror(error)));
}

void write_all(int fd, std::string_view content, const std::filesystem::path& path) {
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            fail(path, "write failed", errno);
        }
        written += static_cast<std::size_t>(n);
    }
}

// Gives the complete file `temporary` the name `path` unless something already has it
// (EEXIST), never replacing a file: link(2), then the temporary's own name removed; where
// the file system has no hard links, renameat2 with RENAME_NOREPLACE. 0 or an errno.
int take_name(const std::string& temporary, const std::filesystem::path& path) {
    if (::link(temporary.c_str(), path.c_str()) == 0) {
        ::unlink(temporary.c_str());
        return 0;
    }
    const int link_error = errno;
    if (link_error == EEXIST) return EEXIST;
    if (link_error != EPERM && link_error != ENOTSUP && link_error != EOPNOTSUPP && link_error != EMLINK) return link_error;
#ifdef SYS_renameat2
    constexpr unsigned kNoReplace = 1;  // RENAME_NOREPLACE
    if (::syscall(SYS_renameat2, AT_FDCWD, temporary.c_str(), AT_FDCWD, path.c_str(), kNoReplace) == 0) return 0;
    return errno == EINVAL || errno == ENOSYS ? link_error : errno;
#else
    return link_error;
#endif
}

// Writes `content` to dir/<worker>.<stamp><suffix> for the first stamp from stamp_ms
// whose name is free, and returns that path.
std::filesystem::path write_new_trace_file(const std::filesystem::path& dir, const std::string& worker,
                                           std::int64_t stamp_ms, const char* suffix, std::string_view content) {
    // The content goes to a temporary first (created exclusively, written, flushed), so a
    // trace appears under its name whole or not at all.
    std::string temporary = (dir / fmt::format(".{}.tmp.XXXXXX", worker)).string();
    const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
    if (fd < 0) fail(dir / worker, "cannot create a temporary file in the trace folder", errno);
    const auto abandon = [&](const char* what, int error) {
        ::close(fd);
        ::unlink(temporary.c_str());
        fail(temporary, what, error);
    };
    try {
        write_all(fd, content, temporary);
    } catch (...) {
        ::close(fd);
        ::unlink(temporary.c_str());
        throw;
    }
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(fd, 0666 & ~mask) != 0) abandon("cannot set the mode", errno);
    if (::fsync(fd) != 0) abandon("flush failed", errno);
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(temporary.c_str());
        fail(temporary, "close failed", error);
    }
    // A taken name is another writer's trace: the next stamp is tried (the stamp stays a
    // number, so tools still read the worker name from <worker>.<stamp>.pt.trace.json).
    constexpr int kMostTries = 100'000;
    for (int tries = 0; tries < kMostTries; ++tries) {
        const std::filesystem::path path = dir / fmt::format("{}.{}{}", worker, stamp_ms + tries, suffix);
        const int error = take_name(temporary, path);
        if (error == EEXIST) continue;
        if (error == 0) return path;
        ::unlink(temporary.c_str());
        fail(path, "cannot create it", error);
    }
    ::unlink(temporary.c_str());
    throw std::runtime_error(fmt::format("cannot write a trace for worker '{}' into '{}': {} names from stamp {} are all "
                                         "taken; clear the folder or give another worker name",
                                         worker, dir.string(), kMostTries, stamp_ms));
}

}  // namespace

std::string default_worker_name() {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    return fmt::format("{}_{}", host, ::getpid());
}

TraceReadyHandler tensorboard_trace_handler(std::filesystem::path dir, TensorboardOptions options) {
    return [dir = std::move(dir), options = std::move(options)](Profile& profile) {
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) throw std::runtime_error(fmt::format("cannot create trace folder '{}': {}", dir.string(), ec.message()));
        const std::string worker = options.worker_name.empty() ? default_worker_name() : options.worker_name;
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
        std::string json = profile.trace().chrome_trace_json(worker);
        if (options.use_gzip) json = detail::gzip_compress(json);
        (void)write_new_trace_file(dir, worker, ms, options.use_gzip ? ".pt.trace.json.gz" : ".pt.trace.json", json);
    };
}

}  // namespace vitals::profiler
