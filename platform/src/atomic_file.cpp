#include "vitals/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

namespace vitals {
namespace {

// The temporary beside `name`: hidden, with ".tmp." and mkstemp's six random characters.
constexpr std::string_view kTemporaryInfix = ".tmp.";
constexpr std::size_t kTemporaryExtra = 1 + kTemporaryInfix.size() + 6;

[[noreturn]] void fail(const std::filesystem::path& path, const char* what, int error) {
    throw std::runtime_error(fmt::format("cannot write '{}': {}: {}", path.string(), what, std::strerror(error)));
}
[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& why) {
    throw std::runtime_error(fmt::format("cannot write '{}': {}", path.string(), why));
}

// The descriptor a name stands for: "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N.
std::optional<int> descriptor_of(const std::filesystem::path& path) {
    const std::string s = path.string();
    if (s == "-" || s == "/dev/stdout") return STDOUT_FILENO;
    if (s == "/dev/stderr") return STDERR_FILENO;
    for (const std::string_view prefix : {"/dev/fd/", "/proc/self/fd/"}) {
        if (s.rfind(prefix, 0) == 0) {
            int fd = -1;
            const char* first = s.data() + prefix.size();
            const auto [end, error] = std::from_chars(first, s.data() + s.size(), fd);
            if (error == std::errc() && end == s.data() + s.size() && end != first) return fd;
        }
    }
    return std::nullopt;
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

// What writing `path` means: to a descriptor, in place (a device, pipe or socket), or a
// regular file (replaced through a temporary) at `file` (links followed).
struct Target {
    std::optional<int> descriptor;
    bool in_place = false;
    std::filesystem::path file;
    std::optional<struct stat> existing;  // the regular file being replaced
};

Target target_of(const std::filesystem::path& path) {
    if (path.empty()) refuse(path, "the path is empty; give a file name");
    if (const auto fd = descriptor_of(path)) {
        if (::fcntl(*fd, F_GETFD) < 0) refuse(path, fmt::format("descriptor {} is not open", *fd));
        return {fd, false, path, std::nullopt};
    }
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0) {
        if (S_ISDIR(st.st_mode)) refuse(path, "it is a folder; give a file name");
        if (!S_ISREG(st.st_mode)) return {std::nullopt, true, path, std::nullopt};
        std::error_code ec;
        const std::filesystem::path file = std::filesystem::canonical(path, ec);  // the regular file a link names
        if (ec) fail(path, "cannot resolve the path", ec.value());
        return {std::nullopt, false, file, st};
    }
    if (errno != ENOENT) fail(path, "cannot inspect the path", errno);
    struct stat link {};
    if (::lstat(path.c_str(), &link) == 0) refuse(path, "it is a symbolic link to a missing file; remove it or give another name");
    return {std::nullopt, false, path, std::nullopt};
}

std::filesystem::path folder_of(const std::filesystem::path& file) {
    const std::filesystem::path parent = file.parent_path();
    return parent.empty() ? std::filesystem::path(".") : parent;
}

void check_regular_target(const std::filesystem::path& path, const Target& t) {
    const std::filesystem::path folder = folder_of(t.file);
    struct stat folder_stat {};
    if (::stat(folder.c_str(), &folder_stat) != 0 || !S_ISDIR(folder_stat.st_mode)) {
        refuse(path, fmt::format("folder '{}' does not exist; create it first", folder.string()));
    }
    if (::access(folder.c_str(), W_OK) != 0) fail(path, "folder is not writable", errno);
    const long name_max = ::pathconf(folder.c_str(), _PC_NAME_MAX);
    const std::size_t name_length = t.file.filename().string().size();
    if (name_max > 0 && name_length + kTemporaryExtra > static_cast<std::size_t>(name_max)) {
        refuse(path, fmt::format("the file name is {} bytes; the folder allows {} and vitals needs {} more for its "
                                 "temporary file: use a shorter name",
                                 name_length, name_max, kTemporaryExtra));
    }
    // In a sticky folder (/tmp) only a file's owner, the folder's owner or root may
    // replace it.
    const uid_t me = ::geteuid();
    if (t.existing && (folder_stat.st_mode & S_ISVTX) != 0 && me != 0 && t.existing->st_uid != me &&
        folder_stat.st_uid != me) {
        refuse(path, "another user owns it in a folder that lets only owners replace files; give another name");
    }
}

using Produce = std::function<void(const WritePiece&)>;

void write_through_temporary(const std::filesystem::path& path, const Target& t, const Produce& produce) {
    const std::filesystem::path folder = folder_of(t.file);
    std::string name = ".";  // appended, not "." + name: GCC 12 warns (-Wrestrict) about that form
    name += t.file.filename().string();
    name += kTemporaryInfix;
    name += "XXXXXX";
    std::string temporary = (folder / name).string();
    const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);  // O_CREAT | O_EXCL, mode 0600
    if (fd < 0) fail(path, "cannot create temporary file", errno);
    const auto abandon = [&](const char* what, int error) {
        ::close(fd);
        ::unlink(temporary.c_str());
        fail(path, what, error);
    };
    // Large files: every 8 MiB written, the kernel is asked to start writing it out, so
    // the disk works while the rest is produced and the final fsync has little left.
    constexpr off_t kWriteBehind = off_t{8} << 20;
    off_t written = 0, flushed = 0;
    try {
        produce([&](std::string_view piece) {
            write_all(fd, piece, path);
            written += static_cast<off_t>(piece.size());
            if (written - flushed >= kWriteBehind) {
                (void)::sync_file_range(fd, flushed, written - flushed, SYNC_FILE_RANGE_WRITE);  // a hint: errors show at fsync
                flushed = written;
            }
        });
    } catch (...) {
        ::close(fd);
        ::unlink(temporary.c_str());
        throw;
    }
    // The new file gets what the old one had (mode, and owner where we may), else the
    // mode a plain create would give.
    if (t.existing) {
        if (::fchmod(fd, t.existing->st_mode & 07777) != 0) abandon("cannot set the mode", errno);
        if (::fchown(fd, t.existing->st_uid, t.existing->st_gid) != 0 && errno != EPERM) abandon("cannot set the owner", errno);
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        if (::fchmod(fd, 0666 & ~mask) != 0) abandon("cannot set the mode", errno);
    }
    if (::fsync(fd) != 0) abandon("flush failed", errno);
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(temporary.c_str());
        fail(path, "close failed", error);
    }
    if (::rename(temporary.c_str(), t.file.c_str()) != 0) {
        const int error = errno;
        ::unlink(temporary.c_str());
        fail(path, "rename failed", error);
    }
}

}  // namespace

void check_output_path(const std::filesystem::path& path) {
    const Target t = target_of(path);
    if (!t.descriptor && !t.in_place) check_regular_target(path, t);
}

bool is_standard_output(const std::filesystem::path& path) { return descriptor_of(path) == STDOUT_FILENO; }

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
    write_file_atomically_streamed(path, [&](const WritePiece& write) { write(content); });
}

void write_file_atomically_streamed(const std::filesystem::path& path, const Produce& produce) {
    const Target t = target_of(path);
    if (t.descriptor) {
        produce([&](std::string_view piece) { write_all(*t.descriptor, piece, path); });
        return;
    }
    if (t.in_place) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) fail(path, "cannot open", errno);
        try {
            produce([&](std::string_view piece) { write_all(fd, piece, path); });
        } catch (...) {
            ::close(fd);
            throw;
        }
        ::close(fd);
        return;
    }
    check_regular_target(path, t);
    write_through_temporary(path, t, produce);
}

void check_outputs_are_not_inputs(const std::vector<std::filesystem::path>& outputs,
                                  const std::vector<std::filesystem::path>& inputs) {
    for (const std::filesystem::path& out : outputs) {
        struct stat o {};
        const std::optional<int> out_fd = descriptor_of(out);
        const bool exists = out_fd ? ::fstat(*out_fd, &o) == 0 : ::stat(out.c_str(), &o) == 0;
        if (!exists || (!S_ISREG(o.st_mode) && !out_fd)) continue;  // a new file, or a device written in place
        for (const std::filesystem::path& in : inputs) {
            struct stat i {};
            const std::optional<int> in_fd = descriptor_of(in);
            if (!(in_fd ? ::fstat(*in_fd, &i) == 0 : ::stat(in.c_str(), &i) == 0)) continue;
            if (S_ISREG(o.st_mode) && o.st_dev == i.st_dev && o.st_ino == i.st_ino) {
                throw std::runtime_error(fmt::format("cannot write '{}': it is the input '{}'; writing it would destroy "
                                                     "what this command reads: give another output file",
                                                     out.string(), in.string()));
            }
        }
    }
}

}  // namespace vitals
