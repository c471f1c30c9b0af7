#include "vitals/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace vitals {
namespace {

std::filesystem::path folder_of(const std::filesystem::path& path) {
    const std::filesystem::path parent = path.parent_path();
    return parent.empty() ? std::filesystem::path(".") : parent;
}

[[noreturn]] void fail(const std::filesystem::path& path, const char* what, int error) {
    throw std::runtime_error(fmt::format("cannot write '{}': {}: {}", path.string(), what, std::strerror(error)));
}

}  // namespace

void check_output_path(const std::filesystem::path& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
        throw std::runtime_error(fmt::format("cannot write '{}': it is a folder; give a file name", path.string()));
    }
    const std::filesystem::path folder = folder_of(path);
    if (!std::filesystem::is_directory(folder, ec)) {
        throw std::runtime_error(
            fmt::format("cannot write '{}': folder '{}' does not exist; create it first", path.string(), folder.string()));
    }
    if (::access(folder.c_str(), W_OK) != 0) fail(path, "folder is not writable", errno);
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
    check_output_path(path);
    const std::filesystem::path temp = path.string() + fmt::format(".tmp.{}", ::getpid());
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail(path, "cannot create temporary file", errno);
    const auto abandon = [&](const char* what) {
        const int error = errno;
        ::close(fd);
        ::unlink(temp.c_str());
        fail(path, what, error);
    };
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0) {
            if (errno == EINTR) continue;
            abandon("write failed");
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0) abandon("flush failed");
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(temp.c_str());
        fail(path, "close failed", error);
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(temp.c_str());
        fail(path, "rename failed", error);
    }
}

}  // namespace vitals
