// A decimal-comma locale for the tests of locale-independent number reading: the
// process is switched as a program that calls setlocale(LC_ALL, "") under de_DE is.
#pragma once

#include <unistd.h>

#include <clocale>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace vitals::testing {

// Switches the whole process to de_DE.UTF-8 while it lives, then back to "C". Where
// the system lacks that locale it is compiled into a temporary folder with localedef
// (from the locale sources glibc installs, offline) and found through LOCPATH.
// `unavailable` says why when neither works; the test then skips with it.
class DecimalCommaLocale {
public:
    DecimalCommaLocale() {
        if (enter()) return;
        folder_ = std::filesystem::temp_directory_path() / ("vitals-locale-" + std::to_string(::getpid()));
        std::filesystem::create_directories(folder_);
        const std::string command =
            "localedef -i de_DE -f UTF-8 '" + (folder_ / "de_DE.UTF-8").string() + "' >/dev/null 2>&1";
        const int status = std::system(command.c_str());
        ::setenv("LOCPATH", folder_.c_str(), 1);
        if (enter()) return;
        unavailable = "no de_DE.UTF-8 locale here, and 'localedef -i de_DE -f UTF-8' could not make one (exit status " +
                      std::to_string(status) + "; it needs glibc's locale sources, the locales package)";
    }
    ~DecimalCommaLocale() {
        std::setlocale(LC_ALL, "C");
        if (!folder_.empty()) {
            ::unsetenv("LOCPATH");
            std::error_code ignored;
            std::filesystem::remove_all(folder_, ignored);
        }
    }
    DecimalCommaLocale(const DecimalCommaLocale&) = delete;
    DecimalCommaLocale& operator=(const DecimalCommaLocale&) = delete;

    std::string unavailable;  // empty: the process now reads numbers with a decimal comma

private:
    static bool enter() {
        return std::setlocale(LC_ALL, "de_DE.UTF-8") != nullptr && std::strcmp(std::localeconv()->decimal_point, ",") == 0;
    }
    std::filesystem::path folder_;
};

}  // namespace vitals::testing
