// A shared library opened when first needed (dlopen), so that a program which never uses
// it never maps it: the CUDA parts open cuBLAS and CUPTI this way, and a CPU run loads
// neither. A library once opened stays open for the life of the process (its own
// destructors run at exit, after every user of it).
#pragma once

#include <initializer_list>
#include <string>

namespace vitals {

class SharedLibrary {
public:
    // Tries each name in order (sonames such as "libcublas.so.13"; the loader's usual
    // search path applies) and keeps the first that opens.
    explicit SharedLibrary(std::initializer_list<const char*> names);
    SharedLibrary(const SharedLibrary&) = delete;
    SharedLibrary& operator=(const SharedLibrary&) = delete;

    bool loaded() const { return handle_ != nullptr; }
    // The name that opened, or "" when none did.
    const std::string& name() const { return name_; }
    // Why none opened: each name with the loader's message ("" when one did).
    const std::string& why_not() const { return why_not_; }

    // The address of `symbol`; std::runtime_error naming the library and the symbol when
    // it is not there, or when the library is not loaded (with why_not()).
    void* symbol(const char* symbol) const;
    // The same as a function pointer: function<decltype(cublasCreate_v2)>("cublasCreate_v2").
    template <class F>
    F* function(const char* symbol_name) const {
        return reinterpret_cast<F*>(symbol(symbol_name));
    }
    // Points `pointer` at the function `symbol_name`, its type taken from the pointer:
    //   library.bind(api.create, "cublasCreate_v2");
    template <class F>
    void bind(F*& pointer, const char* symbol_name) const {
        pointer = function<F>(symbol_name);
    }

private:
    void* handle_ = nullptr;
    std::string name_;
    std::string why_not_;
};

// Whether a library of this name can be opened here; `why` gets the loader's message
// when it cannot. The library is closed again if it was not open before.
bool shared_library_exists(const char* name, std::string* why = nullptr);

}  // namespace vitals
