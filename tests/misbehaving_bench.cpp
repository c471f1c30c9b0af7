// A benchmark program whose cases misbehave the ways user code does: they exit, crash,
// hang, throw, change folder or close their output. For the runner tests of what is kept
// when that happens (test_workers.cpp).
//
// MISBEHAVE_AT=N makes a case misbehave only in the N-th process that builds it (0: in
// every one); the processes count in files under MISBEHAVE_COUNTS (a folder), one a case.
#include <signal.h>
#include <unistd.h>

#include <vitals/vitals.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

namespace {

// Whether this process is the one in which `name` misbehaves (counted once per process).
bool misbehaves_here(const std::string& name) {
    const char* at_text = std::getenv("MISBEHAVE_AT");
    const int at = at_text != nullptr ? std::atoi(at_text) : 0;
    if (at == 0) return true;
    const char* folder = std::getenv("MISBEHAVE_COUNTS");
    if (folder == nullptr) return at == 1;
    std::string file = std::string(folder) + "/" + name.substr(name.find('/') + 1);
    int count = 0;
    std::ifstream(file) >> count;
    std::ofstream(file) << ++count;
    return count == at;
}

vitals::Timer misbehaving(const std::string& name, void (*act)()) {
    const bool active = misbehaves_here(name);
    return vitals::Timer({.stmt = [active, act] {
                              if (active) act();
                              vitals::do_not_optimize(std::sqrt(2.0));
                          },
                          .label = "misbehave",
                          .sub_label = name});
}

}  // namespace

VITALS_CASE("misbehave/ok") { return misbehaving("ok", [] {}); }
VITALS_CASE("misbehave/exit") { return misbehaving("exit", [] { std::exit(0); }); }
VITALS_CASE("misbehave/quick-exit") { return misbehaving("quick-exit", [] { ::_exit(0); }); }
VITALS_CASE("misbehave/segv") {
    return misbehaving("segv", [] {
        ::signal(SIGSEGV, SIG_DFL);  // a real crash, also under a sanitizer's own handler
        ::raise(SIGSEGV);
    });
}
VITALS_CASE("misbehave/hang") {
    return misbehaving("hang", [] {
        for (;;) ::pause();
    });
}
VITALS_CASE("misbehave/throw") { return misbehaving("throw", [] { throw std::runtime_error("broke in this process"); }); }
VITALS_CASE("misbehave/chdir") {
    if (misbehaves_here("chdir") && ::chdir("/") != 0) throw std::runtime_error("chdir failed");
    return misbehaving("chdir-stmt", [] {});
}
VITALS_CASE("misbehave/close-output") {
    if (misbehaves_here("close-output")) {
        ::close(STDOUT_FILENO);
        ::close(STDERR_FILENO);
    }
    return misbehaving("close-output-stmt", [] {});
}

VITALS_MAIN()
