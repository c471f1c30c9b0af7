// An output path resolved once: each component opened in turn from the folder before it
// (so that nothing renamed later changes where the output goes), links followed by the
// protected_symlinks rule, and the entry at the end inspected for what writing it means.
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <climits>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <utility>

#include "output_common.hpp"
#include "vitals/atomic_file.hpp"

namespace vitals {
namespace detail {

void fail(const std::filesystem::path& path, const char* what, int error) {
    throw std::runtime_error(fmt::format("cannot write '{}': {}: {}", path.string(), what, std::strerror(error)));
}
void refuse(const std::filesystem::path& path, const std::string& why) {
    throw std::runtime_error(fmt::format("cannot write '{}': {}", path.string(), why));
}

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

}  // namespace detail

namespace {

using detail::fail;
using detail::Fd;
using detail::refuse;

constexpr int kMostLinks = 40;  // as the kernel's own limit (ELOOP)

// The parts of a path between slashes; a trailing slash leaves an empty last part (the
// path names a folder).
std::deque<std::string> parts_of(const std::string& text) {
    std::deque<std::string> parts;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t slash = text.find('/', start);
        const std::size_t end = slash == std::string::npos ? text.size() : slash;
        if (end > start) parts.push_back(text.substr(start, end - start));
        if (slash == std::string::npos) break;
        start = slash + 1;
    }
    if (text.size() > 1 && text.back() == '/') parts.emplace_back();
    return parts;
}

std::string joined(const std::string& folder, const std::string& name) {
    if (folder.empty()) return name;
    return folder.back() == '/' ? folder + name : folder + "/" + name;
}

Fd open_folder_at(int at, const char* name, const std::filesystem::path& path, const std::string& shown) {
    const int fd = ::openat(at, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOTDIR) refuse(path, fmt::format("'{}' is not a folder", shown));
        fail(path, fmt::format("cannot open folder '{}'", shown).c_str(), errno);
    }
    return Fd(fd);
}

std::string link_text(int folder, const std::string& name, const std::filesystem::path& path) {
    std::string text(256, '\0');
    while (true) {
        const ssize_t n = ::readlinkat(folder, name.c_str(), text.data(), text.size());
        if (n < 0) fail(path, "cannot read a symbolic link", errno);
        if (static_cast<std::size_t>(n) < text.size()) {
            text.resize(static_cast<std::size_t>(n));
            return text;
        }
        text.resize(text.size() * 2);
    }
}

// The kernel's protected_symlinks rule, applied whatever that setting is: in a sticky
// folder anyone may write, a link is followed only when it belongs to this user or to
// the folder's owner (someone else's link there may have been planted for us).
void check_link_rule(int folder, const struct stat& link, const std::string& shown, const std::filesystem::path& path) {
    struct stat f {};
    if (::fstat(folder, &f) != 0) fail(path, "cannot inspect the folder", errno);
    const uid_t me = ::geteuid();
    if (detail::shared_sticky(f.st_mode) && link.st_uid != me && link.st_uid != f.st_uid) {
        refuse(path, fmt::format("'{}' is a symbolic link of another user (uid {}) in a folder anyone may write; vitals "
                                 "follows such a link only when it is yours or the folder owner's, as the kernel's "
                                 "protected_symlinks rule does: remove the link or give another path",
                                 shown, link.st_uid));
    }
}

}  // namespace

OutputFile::OutputFile(const std::filesystem::path& path) : given_(path) {
    if (path.empty()) refuse(path, "the path is empty; give a file name");
    if (const auto fd = detail::descriptor_of(path)) {
        if (::fcntl(*fd, F_GETFD) < 0) refuse(path, fmt::format("descriptor {} is not open", *fd));
        kind_ = Kind::descriptor;
        descriptor_ = *fd;
        return;
    }
    const std::string text = path.string();
    std::deque<std::string> rest = parts_of(text);
    const bool absolute = text.front() == '/';
    std::string shown = absolute ? "/" : "";
    Fd folder = open_folder_at(AT_FDCWD, absolute ? "/" : ".", path, absolute ? "/" : ".");
    int links = 0;
    bool through_last_link = false;  // the last part was a link: its target is the file
    while (true) {
        if (rest.empty()) refuse(path, "it is a folder; give a file name");
        const std::string part = std::move(rest.front());
        rest.pop_front();
        const bool last = rest.empty();
        if (part.empty() || part == "." || part == "..") {
            if (last) refuse(path, "it is a folder; give a file name");
            if (part == "..") {
                folder = open_folder_at(folder.get(), "..", path, joined(shown, ".."));
                shown = joined(shown, "..");
            }
            continue;
        }
        const std::string here = joined(shown, part);
        struct stat st {};
        if (::fstatat(folder.get(), part.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno != ENOENT) fail(path, fmt::format("cannot inspect '{}'", here).c_str(), errno);
            if (through_last_link) refuse(path, "it is a symbolic link to a missing file; remove it or give another name");
            if (!last) refuse(path, fmt::format("folder '{}' does not exist; create it first", here));
            folder_ = folder.get();
            folder_shown_ = shown.empty() ? "." : shown;
            name_ = part;
            settle(nullptr, false);
            folder.release();  // held from here on, closed by the destructor
            return;
        }
        if (S_ISLNK(st.st_mode)) {
            if (++links > kMostLinks) refuse(path, "too many symbolic links on the way (a loop?); give the file's own path");
            check_link_rule(folder.get(), st, here, path);
            const std::string target = link_text(folder.get(), part, path);
            if (target.empty()) refuse(path, fmt::format("'{}' is an empty symbolic link", here));
            std::deque<std::string> target_parts = parts_of(target);
            rest.insert(rest.begin(), target_parts.begin(), target_parts.end());
            if (target.front() == '/') {
                folder = open_folder_at(AT_FDCWD, "/", path, "/");
                shown.assign(1, '/');  // not = "/": GCC 12 warns (-Wrestrict) about that form
            }
            through_last_link = through_last_link || last;
            continue;
        }
        if (!last) {
            if (!S_ISDIR(st.st_mode)) refuse(path, fmt::format("'{}' is not a folder", here));
            folder = open_folder_at(folder.get(), part.c_str(), path, here);
            shown = here;
            continue;
        }
        folder_ = folder.get();
        folder_shown_ = shown.empty() ? "." : shown;
        name_ = part;
        settle(&st, false);
        folder.release();
        return;
    }
}

// What writing the entry means, and whether this process may: a regular file (new or
// not) is replaced through a temporary, a device or pipe written in place.
void OutputFile::settle(const struct ::stat* entry, bool tagged) {
    if (entry != nullptr && S_ISDIR(entry->st_mode)) refuse(given_, "it is a folder; give a file name");
    if (entry != nullptr && !tagged && !S_ISREG(entry->st_mode)) {
        kind_ = Kind::in_place;
        return;
    }
    kind_ = Kind::replaced;
    replaces_ = entry != nullptr && S_ISREG(entry->st_mode);
    replaced_device_ = replaces_ ? entry->st_dev : 0;
    replaced_inode_ = replaces_ ? entry->st_ino : 0;
    struct stat folder {};
    if (::fstat(folder_, &folder) != 0) fail(given_, "cannot inspect the folder", errno);
    if (::faccessat(folder_, ".", W_OK, AT_EACCESS) != 0) {
        fail(given_, fmt::format("folder '{}' is not writable", folder_shown_).c_str(), errno);
    }
    const long name_max = ::fpathconf(folder_, _PC_NAME_MAX);
    if (name_max > 0 && name_.size() + detail::kTemporaryExtra > static_cast<std::size_t>(name_max)) {
        refuse(given_, fmt::format("the file name is {} bytes; the folder allows {} and vitals needs {} more for its "
                                   "temporary file: use a shorter name",
                                   name_.size(), name_max, detail::kTemporaryExtra));
    }
    // In a sticky folder (/tmp) only a file's owner, the folder's owner or root may
    // replace it.
    const uid_t me = ::geteuid();
    if (replaces_ && (folder.st_mode & S_ISVTX) != 0 && me != 0 && entry->st_uid != me && folder.st_uid != me) {
        refuse(given_, "another user owns it in a folder that lets only owners replace files; give another name");
    }
}

OutputFile::OutputFile(const OutputFile& other)
    : given_(other.given_), kind_(other.kind_), descriptor_(other.descriptor_), folder_shown_(other.folder_shown_),
      name_(other.name_), replaces_(other.replaces_), replaced_device_(other.replaced_device_),
      replaced_inode_(other.replaced_inode_) {
    if (other.folder_ >= 0) {
        folder_ = ::fcntl(other.folder_, F_DUPFD_CLOEXEC, 0);
        if (folder_ < 0) fail(given_, "cannot hold the folder again", errno);
    }
}

OutputFile::OutputFile(OutputFile&& other) noexcept { swap(other); }

OutputFile& OutputFile::operator=(OutputFile other) noexcept {
    swap(other);
    return *this;
}

OutputFile::~OutputFile() {
    if (folder_ >= 0) ::close(folder_);
}

void OutputFile::swap(OutputFile& other) noexcept {
    using std::swap;
    swap(given_, other.given_);
    swap(kind_, other.kind_);
    swap(descriptor_, other.descriptor_);
    swap(folder_, other.folder_);
    swap(folder_shown_, other.folder_shown_);
    swap(name_, other.name_);
    swap(replaces_, other.replaces_);
    swap(replaced_device_, other.replaced_device_);
    swap(replaced_inode_, other.replaced_inode_);
}

const std::filesystem::path& OutputFile::path() const { return given_; }

OutputFile OutputFile::tagged(const std::string& tag) const {
    if (tag.empty() || tag.find('/') != std::string::npos || tag.find('\0') != std::string::npos) {
        throw std::invalid_argument(fmt::format("OutputFile::tagged: '{}' is not a name part", tag));
    }
    OutputFile out(*this);
    if (kind_ != Kind::replaced) return out;
    const std::filesystem::path name(name_);
    out.name_ = name.stem().string() + "." + tag + name.extension().string();
    out.given_ = folder_shown_ == "." ? std::filesystem::path(out.name_) : std::filesystem::path(folder_shown_) / out.name_;
    struct stat st {};
    if (::fstatat(folder_, out.name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        out.settle(&st, true);
    } else if (errno == ENOENT) {
        out.settle(nullptr, true);
    } else {
        fail(out.given_, "cannot inspect the path", errno);
    }
    return out;
}

std::string OutputFile::in_place_path() const {
    if (kind_ != Kind::replaced) {
        refuse(given_, "it is a descriptor, device or pipe, and this output is a file changed in place; give a file's path");
    }
    if (replaces_) {
        struct stat folder {}, file {};
        if (::fstat(folder_, &folder) != 0) fail(given_, "cannot inspect the folder", errno);
        if (::fstatat(folder_, name_.c_str(), &file, AT_SYMLINK_NOFOLLOW) != 0) fail(given_, "cannot inspect the file", errno);
        if (file.st_dev != replaced_device_ || file.st_ino != replaced_inode_) {
            refuse(given_, "it was replaced since it was checked; run again");
        }
        // The kernel's protected_regular rule, whatever that setting is, and for root too:
        // another user's file in a sticky folder anyone may write is not theirs to change.
        if (detail::shared_sticky(folder.st_mode) && file.st_uid != ::geteuid() && file.st_uid != folder.st_uid) {
            refuse(given_, fmt::format("user {} owns it, in a folder anyone may write; vitals changes no other user's file "
                                       "there, as the kernel's protected_regular rule does: give another path",
                                       file.st_uid));
        }
        // A file kept and changed in place, which any user may rewrite, records nothing.
        if ((file.st_mode & S_IWOTH) != 0) {
            refuse(given_, fmt::format("any user may write it (mode {:04o}); take that away ('chmod o-w {}') or give another path",
                                       file.st_mode & 07777, given_.string()));
        }
    }
    // The held folder's own path as the kernel names it now: no link on the way, and a
    // folder renamed since the check is still the one reached.
    char folder[PATH_MAX];
    const ssize_t length = ::readlink(fmt::format("/proc/self/fd/{}", folder_).c_str(), folder, sizeof folder);
    if (length <= 0 || static_cast<std::size_t>(length) >= sizeof folder || folder[0] != '/') {
        refuse(given_, fmt::format("the path of folder '{}' cannot be read back from /proc/self/fd", folder_shown_));
    }
    const std::string path(folder, static_cast<std::size_t>(length));
    return path == "/" ? "/" + name_ : path + "/" + name_;
}

bool is_standard_output(const std::filesystem::path& path) { return detail::descriptor_of(path) == STDOUT_FILENO; }

void check_output_path(const std::filesystem::path& path) { (void)OutputFile(path); }

void check_outputs_are_not_inputs(const std::vector<std::filesystem::path>& outputs,
                                  const std::vector<std::filesystem::path>& inputs) {
    for (const std::filesystem::path& out : outputs) {
        struct stat o {};
        const std::optional<int> out_fd = detail::descriptor_of(out);
        const bool exists = out_fd ? ::fstat(*out_fd, &o) == 0 : ::stat(out.c_str(), &o) == 0;
        if (!exists || (!S_ISREG(o.st_mode) && !out_fd)) continue;  // a new file, or a device written in place
        for (const std::filesystem::path& in : inputs) {
            struct stat i {};
            const std::optional<int> in_fd = detail::descriptor_of(in);
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
