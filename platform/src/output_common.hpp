// What the output writer's two halves share (output_path.cpp resolves and checks a path,
// atomic_file.cpp writes it): the error messages, descriptor names, an owned descriptor.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace vitals::detail {

// The temporary beside `name`: hidden, with ".tmp." and six random characters.
constexpr std::string_view kTemporaryInfix = ".tmp.";
constexpr std::size_t kTemporaryExtra = 1 + kTemporaryInfix.size() + 6;

[[noreturn]] void fail(const std::filesystem::path& path, const char* what, int error);
[[noreturn]] void refuse(const std::filesystem::path& path, const std::string& why);

// The descriptor a name stands for: "-", /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N.
std::optional<int> descriptor_of(const std::filesystem::path& path);

// Whether a folder with this mode is sticky and anyone may write it (/tmp): there the
// kernel's protected_symlinks and protected_regular rules apply.
constexpr bool shared_sticky(unsigned mode) { return (mode & 01000) != 0 && (mode & 0002) != 0; }

// A descriptor closed when it goes out of scope.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    Fd(Fd&& other) noexcept : fd_(other.release()) {}
    Fd& operator=(Fd&& other) noexcept {
        reset(other.release());
        return *this;
    }
    ~Fd() { reset(); }
    int get() const { return fd_; }
    int release() {
        const int fd = fd_;
        fd_ = -1;
        return fd;
    }
    void reset(int fd = -1) {
        if (fd_ >= 0) ::close(fd_);
        fd_ = fd;
    }

private:
    int fd_ = -1;
};

}  // namespace vitals::detail
