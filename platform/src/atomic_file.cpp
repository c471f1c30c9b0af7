// Writing an OutputFile: to its descriptor, in place, or through a temporary created in
// the held folder and renamed over the entry there.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <stdexcept>
#include <string>

#include "output_common.hpp"
#include "vitals/atomic_file.hpp"

namespace vitals {
namespace {

using detail::fail;
using detail::refuse;
using Produce = std::function<void(const WritePiece&)>;

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

// A new file in `folder` under ".name.tmp.XXXXXX" (six random letters or digits),
// created exclusively, never through a link; mode 0600 until it is complete.
int create_temporary(int folder, const std::string& name, std::string& temporary, const std::filesystem::path& path) {
    static constexpr std::string_view kLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    std::random_device entropy;  // getrandom: unpredictable to whoever would plant the name
    std::uniform_int_distribution<std::size_t> pick(0, kLetters.size() - 1);
    for (int attempt = 0; attempt < 100; ++attempt) {
        temporary.assign(1, '.');  // not = "." or "." + name: GCC 12 warns (-Wrestrict) about those forms
        temporary += name;
        temporary += detail::kTemporaryInfix;
        for (int i = 0; i < 6; ++i) temporary += kLetters[pick(entropy)];
        const int fd = ::openat(folder, temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) return fd;
        if (errno != EEXIST) fail(path, "cannot create temporary file", errno);
    }
    fail(path, "cannot create temporary file", EEXIST);
}

}  // namespace

void OutputFile::write(std::string_view content) const {
    write_streamed([&](const WritePiece& write) { write(content); });
}

void OutputFile::write_streamed(const Produce& produce) const {
    switch (kind_) {
    case Kind::descriptor:
        produce([&](std::string_view piece) { write_all(descriptor_, piece, given_); });
        return;
    case Kind::in_place:
        write_in_place(produce);
        return;
    case Kind::replaced:
        write_replacing(produce);
        return;
    }
}

void OutputFile::write_in_place(const Produce& produce) const {
    const int fd = ::openat(folder_, name_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
    if (fd < 0) fail(given_, "cannot open", errno);
    const detail::Fd owned(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0) fail(given_, "cannot inspect the path", errno);
    if (S_ISREG(st.st_mode)) {
        refuse(given_, "it was a device or pipe when checked and is a regular file now; give the path again");
    }
    produce([&](std::string_view piece) { write_all(fd, piece, given_); });
}

void OutputFile::write_replacing(const Produce& produce) const {
    std::string temporary;
    const int fd = create_temporary(folder_, name_, temporary, given_);
    const auto abandon = [&](const char* what, int error) {
        ::close(fd);
        ::unlinkat(folder_, temporary.c_str(), 0);
        fail(given_, what, error);
    };
    // Large files: every 8 MiB written, the kernel is asked to start writing it out, so
    // the disk works while the rest is produced and the final fsync has little left.
    constexpr off_t kWriteBehind = off_t{8} << 20;
    off_t written = 0, flushed = 0;
    try {
        produce([&](std::string_view piece) {
            write_all(fd, piece, given_);
            written += static_cast<off_t>(piece.size());
            if (written - flushed >= kWriteBehind) {
                (void)::sync_file_range(fd, flushed, written - flushed, SYNC_FILE_RANGE_WRITE);  // a hint: errors show at fsync
                flushed = written;
            }
        });
    } catch (...) {
        ::close(fd);
        ::unlinkat(folder_, temporary.c_str(), 0);
        throw;
    }
    // The new file gets what the old one had (mode, and owner where we may), else the
    // mode a plain create would give. Only the file that was checked counts (not one
    // put there since), and in a folder anyone may write, only a file of this user or
    // of the folder's owner: root's output must not become another user's to read.
    struct stat now {}, folder {};
    bool keep = replaces_ && ::fstatat(folder_, name_.c_str(), &now, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(now.st_mode) &&
                now.st_dev == replaced_device_ && now.st_ino == replaced_inode_;
    if (keep && ::fstat(folder_, &folder) == 0 && detail::shared_sticky(folder.st_mode)) {
        keep = now.st_uid == ::geteuid() || now.st_uid == folder.st_uid;
    }
    if (keep) {
        if (::fchmod(fd, now.st_mode & 07777) != 0) abandon("cannot set the mode", errno);
        if (::fchown(fd, now.st_uid, now.st_gid) != 0 && errno != EPERM) abandon("cannot set the owner", errno);
    } else {
        const mode_t mask = ::umask(0);
        ::umask(mask);
        if (::fchmod(fd, 0666 & ~mask) != 0) abandon("cannot set the mode", errno);
    }
    if (::fsync(fd) != 0) abandon("flush failed", errno);
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlinkat(folder_, temporary.c_str(), 0);
        fail(given_, "close failed", error);
    }
    if (::renameat(folder_, temporary.c_str(), folder_, name_.c_str()) != 0) {
        const int error = errno;
        ::unlinkat(folder_, temporary.c_str(), 0);
        fail(given_, "rename failed", error);
    }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) { OutputFile(path).write(content); }

void write_file_atomically_streamed(const std::filesystem::path& path, const Produce& produce) {
    OutputFile(path).write_streamed(produce);
}


namespace {

// Gives the complete temporary the entry `name` unless something already has it
// (EEXIST), never replacing a file: link, then the temporary's own name removed; where
// the file system has no hard links, renameat2 with RENAME_NOREPLACE. 0 or an errno.
int take_name(int folder, const std::string& temporary, const std::string& name) {
    if (::linkat(folder, temporary.c_str(), folder, name.c_str(), 0) == 0) {
        ::unlinkat(folder, temporary.c_str(), 0);
        return 0;
    }
    const int link_error = errno;
    if (link_error == EEXIST) return EEXIST;
    if (link_error != EPERM && link_error != ENOTSUP && link_error != EOPNOTSUPP && link_error != EMLINK) return link_error;
#ifdef SYS_renameat2
    constexpr unsigned kNoReplace = 1;  // RENAME_NOREPLACE
    if (::syscall(SYS_renameat2, folder, temporary.c_str(), folder, name.c_str(), kNoReplace) == 0) return 0;
    return errno == EINVAL || errno == ENOSYS ? link_error : errno;
#else
    return link_error;
#endif
}

}  // namespace

std::optional<std::filesystem::path> write_new_file(const std::filesystem::path& folder_path,
                                                    const std::function<std::string(int attempt)>& name,
                                                    std::string_view content, int most_names) {
    const std::string first = name(0);
    const int opened = ::open(folder_path.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (opened < 0) fail(folder_path / first, "cannot open its folder", errno);
    const detail::Fd folder(opened);
    std::string temporary;
    const int fd = create_temporary(folder.get(), first, temporary, folder_path / first);
    const auto abandon = [&](const char* what, int error) {
        ::close(fd);
        ::unlinkat(folder.get(), temporary.c_str(), 0);
        fail(folder_path / first, what, error);
    };
    try {
        write_all(fd, content, folder_path / first);
    } catch (...) {
        ::close(fd);
        ::unlinkat(folder.get(), temporary.c_str(), 0);
        throw;
    }
    const mode_t mask = ::umask(0);
    ::umask(mask);
    if (::fchmod(fd, 0666 & ~mask) != 0) abandon("cannot set the mode", errno);
    if (::fsync(fd) != 0) abandon("flush failed", errno);
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlinkat(folder.get(), temporary.c_str(), 0);
        fail(folder_path / first, "close failed", error);
    }
    for (int attempt = 0; attempt < most_names; ++attempt) {
        const std::string entry = attempt == 0 ? first : name(attempt);
        const int error = take_name(folder.get(), temporary, entry);
        if (error == EEXIST) continue;
        if (error == 0) return folder_path / entry;
        ::unlinkat(folder.get(), temporary.c_str(), 0);
        fail(folder_path / entry, "cannot create it", error);
    }
    ::unlinkat(folder.get(), temporary.c_str(), 0);
    return std::nullopt;
}

}  // namespace vitals
