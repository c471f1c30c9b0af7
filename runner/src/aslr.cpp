#include "aslr.hpp"

#include <fmt/format.h>
#include <sys/personality.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "command.hpp"

namespace vitals::cli {
namespace {

constexpr unsigned long kQuery = 0xffffffff;  // personality()'s "tell, change nothing"

bool personality_fixes_layout() {
    const int persona = ::personality(kQuery);
    return persona != -1 && (static_cast<unsigned long>(persona) & ADDR_NO_RANDOMIZE) != 0;
}

}  // namespace

std::string aslr_state() {
    if (personality_fixes_layout()) return "off (--no-aslr or setarch -R)";
    std::ifstream in("/proc/sys/kernel/randomize_va_space");
    int level = -1;
    if (in >> level && level == 0) return "off (kernel.randomize_va_space = 0)";
    return "on";
}

void reexecute_without_aslr(const std::vector<std::string>& arguments) {
    if (personality_fixes_layout()) return;
    const int persona = ::personality(kQuery);
    if (persona == -1 || ::personality(static_cast<unsigned long>(persona) | ADDR_NO_RANDOMIZE) == -1 || !personality_fixes_layout()) {
        throw UsageError(fmt::format("--no-aslr: the kernel refused to switch address randomisation off ({}); drop "
                                     "--no-aslr, or run under `setarch -R`",
                                     std::strerror(errno)));
    }
    std::vector<char*> argv;
    for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv("/proc/self/exe", argv.data());
    const int error = errno;
    ::personality(static_cast<unsigned long>(persona));  // as it was: this process goes on randomised
    throw UsageError(fmt::format("--no-aslr: could not execute this program again ({}); drop --no-aslr", std::strerror(error)));
}

void randomise_children() {
    const int persona = ::personality(kQuery);
    if (persona != -1 && (static_cast<unsigned long>(persona) & ADDR_NO_RANDOMIZE) != 0) {
        ::personality(static_cast<unsigned long>(persona) & ~static_cast<unsigned long>(ADDR_NO_RANDOMIZE));
    }
}

}  // namespace vitals::cli
