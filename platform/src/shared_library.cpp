#include "vitals/shared_library.hpp"

#include <dlfcn.h>

#include <stdexcept>

namespace vitals {
namespace {

std::string loader_error() {
    const char* text = ::dlerror();
    return text != nullptr ? text : "unknown loader error";
}

}  // namespace

SharedLibrary::SharedLibrary(std::initializer_list<const char*> names) {
    for (const char* name : names) {
        // RTLD_LOCAL: its symbols serve only the lookups below, never other libraries.
        handle_ = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (handle_ != nullptr) {
            name_ = name;
            why_not_.clear();
            return;
        }
        why_not_ += (why_not_.empty() ? "" : "; ") + loader_error();
    }
}

void* SharedLibrary::symbol(const char* symbol) const {
    if (handle_ == nullptr) throw std::runtime_error("cannot use " + std::string(symbol) + ": " + why_not_);
    ::dlerror();  // clear, so a null symbol can be told from a failed lookup
    void* address = ::dlsym(handle_, symbol);
    if (address == nullptr) {
        throw std::runtime_error(name_ + " has no " + symbol + " (" + loader_error() +
                                 "): it is older than the headers vitals was built with");
    }
    return address;
}

bool shared_library_exists(const char* name, std::string* why) {
    void* handle = ::dlopen(name, RTLD_LAZY | RTLD_LOCAL);
    if (handle == nullptr) {
        if (why != nullptr) *why = loader_error();
        return false;
    }
    ::dlclose(handle);  // drops only this reference: a library open before stays open
    return true;
}

}  // namespace vitals
