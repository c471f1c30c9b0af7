// tensorboard_trace_handler: each finished trace into a folder, under a name no other
// writer holds. Several processes (ranks of one job, or two runs given the same worker
// name) may write into one folder at once, so a name is taken only by creating it
// exclusively: an existing file is never replaced, and a taken name moves the stamp on.
#include "vitals/profiler/profile.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <stdexcept>

#include "gzip.hpp"
#include "vitals/atomic_file.hpp"

namespace vitals::profiler {
namespace {

// Writes `content` to dir/<worker>.<stamp><suffix> for the first stamp from stamp_ms
// whose name is free, and returns that path. A taken name is another writer's trace:
// the next stamp is tried (the stamp stays a number, so tools still read the worker
// name from <worker>.<stamp>.pt.trace.json).
std::filesystem::path write_new_trace_file(const std::filesystem::path& dir, const std::string& worker,
                                           std::int64_t stamp_ms, const char* suffix, std::string_view content) {
    constexpr int kMostTries = 100'000;
    const std::optional<std::filesystem::path> written = write_new_file(
        dir, [&](int attempt) { return fmt::format("{}.{}{}", worker, stamp_ms + attempt, suffix); }, content, kMostTries);
    if (written) return *written;
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
