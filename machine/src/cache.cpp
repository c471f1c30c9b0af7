// The figures of this machine cached per user: in a folder only this user may write,
// read without following links, written through the one output writer. A cache that
// cannot be used is a warning: the figures are measured (again) and used uncached.
#include <fcntl.h>
#include <fmt/format.h>
#include <zlib.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vitals/atomic_file.hpp"
#include "vitals/machine.hpp"

#include "consistency.hpp"
#include "figures_json.hpp"
#include "probes.hpp"

namespace vitals::machine {
namespace {

constexpr off_t kLargestCacheFile = off_t{1} << 20;  // the figures take a few KiB

// A descriptor closed when it goes out of scope.
struct Held {
    int fd = -1;
    explicit Held(int f) : fd(f) {}
    Held(const Held&) = delete;
    Held& operator=(const Held&) = delete;
    ~Held() {
        if (fd >= 0) ::close(fd);
    }
};

void say(const Warn& warn, const std::string& message) {
    if (warn) {
        warn(message);
    } else {
        std::fflush(stdout);
        fmt::print(stderr, "vitals: warning: {}\n", message);
    }
}

// A file name part from any text: letters and digits kept, the rest as '-'.
std::string slug(const std::string& text) {
    std::string out;
    for (const char c : text) {
        const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (keep) {
            out += c;
        } else if (!out.empty() && out.back() != '-') {
            out += '-';
        }
    }
    while (!out.empty() && out.back() == '-') out.pop_back();
    return out.substr(0, 80);
}

const char* env(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? value : nullptr;
}

// This user's home folder from the passwd database (HOME unset: cron, services).
std::optional<std::filesystem::path> passwd_home() {
    std::vector<char> buffer(16384);
    struct passwd entry {};
    struct passwd* found = nullptr;
    if (::getpwuid_r(::geteuid(), &entry, buffer.data(), buffer.size(), &found) != 0 || found == nullptr) return std::nullopt;
    if (found->pw_dir == nullptr || found->pw_dir[0] != '/' || std::string_view(found->pw_dir) == "/") return std::nullopt;
    // Only a home folder that is there and this user's ("nobody" has /nonexistent).
    struct stat st {};
    if (::stat(found->pw_dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) return std::nullopt;
    return std::filesystem::path(found->pw_dir);
}

std::optional<std::filesystem::path> cache_folder() {
    if (const char* own = env("VITALS_CACHE_DIR")) return std::filesystem::path(own);
    // The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored.
    if (const char* xdg = env("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/') return std::filesystem::path(xdg) / "vitals";
    if (const char* home = env("HOME")) return std::filesystem::path(home) / ".cache" / "vitals";
    if (const std::optional<std::filesystem::path> home = passwd_home()) return *home / ".cache" / "vitals";
    if (const char* runtime = env("XDG_RUNTIME_DIR"); runtime != nullptr && runtime[0] == '/') {
        return std::filesystem::path(runtime) / "vitals";
    }
    return std::nullopt;
}

// Why `folder` (opened) may not hold this user's figures, or "" when it may: it must be
// a folder of this user that no one else may write, so that nothing in it was planted.
std::string folder_problem(int fd, const std::filesystem::path& folder) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return fmt::format("cannot inspect cache folder '{}': {}", folder.string(), std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) return fmt::format("cache folder '{}' is not a folder", folder.string());
    if (st.st_uid != ::geteuid()) {
        return fmt::format("cache folder '{}' belongs to another user (uid {}); vitals keeps figures only in a folder of "
                           "its own user: remove it, or set VITALS_CACHE_DIR to a folder of yours",
                           folder.string(), st.st_uid);
    }
    if ((st.st_mode & 022) != 0) {
        return fmt::format("cache folder '{}' may be written by others (mode {:04o}); vitals keeps figures only where no "
                           "one else can plant them: chmod 700 it, or set VITALS_CACHE_DIR to a folder of yours",
                           folder.string(), st.st_mode & 07777);
    }
    return "";
}

// Creates `folder` and any missing folder above it with mode 0700.
void create_folders(const std::filesystem::path& folder) {
    std::filesystem::path built;
    for (const std::filesystem::path& part : folder) {
        built /= part;
        if (::mkdir(built.c_str(), 0700) != 0 && errno != EEXIST) {
            throw std::runtime_error(fmt::format("cannot create cache folder '{}': {}; set VITALS_CACHE_DIR (or "
                                                 "XDG_CACHE_HOME) to a folder of yours",
                                                 built.string(), std::strerror(errno)));
        }
    }
}

// The figures in `name` under the opened folder, or nullopt with a warning (or quietly,
// when there is no such file).
std::optional<Limits> read_cache_file(int folder, const std::filesystem::path& path, const Warn& warn) {
    const std::string name = path.filename().string();
    const int fd = ::openat(folder, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        if (errno == ENOENT) return std::nullopt;
        if (errno == ELOOP) {
            say(warn, fmt::format("cache file '{}' is a symbolic link, which vitals does not follow; measuring again "
                                  "(the link is replaced by the new figures)",
                                  path.string()));
        } else {
            say(warn, fmt::format("cannot read cache file '{}': {}; measuring again", path.string(), std::strerror(errno)));
        }
        return std::nullopt;
    }
    const Held held(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || st.st_size > kLargestCacheFile) {
        say(warn, fmt::format("cache file '{}' is not a regular file of this user under 1 MiB; measuring again", path.string()));
        return std::nullopt;
    }
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t got = 0;
    while (got < text.size()) {
        const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
    }
    text.resize(got);
    try {
        return detail::figures_from_json(text);
    } catch (const std::exception& e) {
        say(warn, fmt::format("cache file '{}' holds no figures vitals can use ({}); measuring again", path.string(), e.what()));
        return std::nullopt;
    }
}

}  // namespace

std::optional<std::filesystem::path> cache_file(const Identity& id) {
    const std::optional<std::filesystem::path> dir = cache_folder();
    if (!dir) return std::nullopt;
    // The model name in the key: a machine image moved to another CPU measures anew. The
    // vector width too: figures measured under VITALS_MAX_CPU_ISA=avx2 are kept apart.
    // The probes' version too. CRC-32, not std::hash: the name stays the same whichever
    // standard library built vitals.
    const std::string key = id.cpu_model + "/" + std::to_string(id.cores) + "/" + id.vector_isa + "/probes " +
                            std::to_string(detail::kProbesVersion);
    const uLong model_hash = ::crc32(::crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(key.data()),
                                     static_cast<uInt>(key.size()));
    return *dir / fmt::format("machine-{}-{}-{:08x}.json", slug(id.host), slug(id.cpu_model), model_hash & 0xffffffffu);
}

std::optional<Limits> load_cached(const Identity& id, const Warn& warn) {
    const std::optional<std::filesystem::path> path = cache_file(id);
    if (!path) return std::nullopt;
    const int fd = ::open(path->parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        // Missing, or under a file (XDG_CACHE_HOME naming one): nothing cached; storing says why.
        if (errno != ENOENT && errno != ENOTDIR) say(warn, fmt::format("cannot open cache folder '{}': {}", path->parent_path().string(), std::strerror(errno)));
        return std::nullopt;
    }
    const Held folder(fd);
    if (const std::string problem = folder_problem(fd, path->parent_path()); !problem.empty()) {
        say(warn, problem);
        return std::nullopt;
    }
    std::optional<Limits> cached = read_cache_file(fd, *path, warn);
    if (cached && (cached->identity.cpu_model != id.cpu_model || cached->identity.cores != id.cores ||
                   cached->identity.vector_isa != id.vector_isa)) {
        return std::nullopt;
    }
    return cached;
}

void store_cached(const Limits& limits, const Warn& warn) {
    const std::optional<std::filesystem::path> path = cache_file(limits.identity);
    if (!path) {
        say(warn, "no folder to cache this machine's figures in (HOME is unset and this user has no home folder): they are "
                  "measured again on every run; set VITALS_CACHE_DIR to a folder of yours to keep them");
        return;
    }
    const std::filesystem::path folder = path->parent_path();
    try {
        create_folders(folder);
        const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            throw std::runtime_error(fmt::format("cannot open cache folder '{}': {}; set VITALS_CACHE_DIR (or XDG_CACHE_HOME) "
                                                 "to a folder of yours",
                                                 folder.string(), std::strerror(errno)));
        }
        const Held held(fd);
        if (const std::string problem = folder_problem(fd, folder); !problem.empty()) throw std::runtime_error(problem);
        check_plausible(limits);  // figures measured while the machine was very busy may be refused
        // A link at the file's name is replaced, never followed: only this user writes
        // this folder, so the name stays as it is now until the rename.
        struct stat st {};
        const std::string name = path->filename().string();
        if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) ::unlinkat(fd, name.c_str(), 0);
        OutputFile(*path).write(to_json(limits));
    } catch (const std::exception& e) {  // after measuring: never an error
        say(warn, fmt::format("the figures are not cached: {}", e.what()));
    }
}

std::optional<std::string> measure_again_now(const Limits& cached) {
    double load[1] = {-1};
    if (::getloadavg(load, 1) != 1 || !detail::measure_again_when_quiet(cached, load[0])) return std::nullopt;
    return fmt::format("the cached figures were measured under load {:.2f}; measuring again now that the machine is quiet "
                       "(load {:.2f})",
                       cached.load_average, load[0]);
}

Limits limits(bool refresh, const Progress& progress, const Warn& warn) {
    const Identity id = identify();
    std::string said;  // a folder problem found while reading is not repeated when storing
    const Warn once = [&](const std::string& message) {
        if (!said.empty() && message.size() >= said.size() && message.compare(message.size() - said.size(), said.size(), said) == 0) {
            say(warn, "the figures are not cached (see above)");
            return;
        }
        said = message;
        say(warn, message);
    };
    if (!refresh) {
        if (std::optional<Limits> cached = load_cached(id, once)) {
            const std::optional<std::string> again = measure_again_now(*cached);
            if (!again) return *cached;
            say(warn, *again);
        }
    }
    Limits measured = measure(progress);
    store_cached(measured, once);
    return measured;
}

}  // namespace vitals::machine
