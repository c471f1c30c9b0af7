// Code: a statement the Timer runs, with the loop over calls compiled around it.
//
// A Code is built from any callable. It is type-erased once per *block*, not once per
// call: the loop that runs the callable n times is instantiated for the callable's own
// type, so the call inlines and an empty statement costs one loop iteration.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace vitals {

// Keeps `value` alive and observable, so the compiler cannot delete the computation
// that produced it (the same contract as Google Benchmark's DoNotOptimize).
template <class T>
inline void do_not_optimize(T const& value) {
    asm volatile("" : : "r,m"(value) : "memory");
}
template <class T>
inline void do_not_optimize(T& value) {
    asm volatile("" : "+r,m"(value) : : "memory");
}
// Forces pending writes to memory to be treated as observed.
inline void clobber_memory() { asm volatile("" : : : "memory"); }

namespace detail {
// Makes the loop counter opaque so an empty body still costs one iteration per call,
// without forcing the body's own values out of registers.
inline void keep_iteration(std::int64_t& i) { asm volatile("" : "+r"(i)); }

template <class F>
void run_block(void* callable, std::int64_t calls) {
    F& f = *static_cast<F*>(callable);
    for (std::int64_t i = 0; i < calls; ++i) {
        f();
        keep_iteration(i);
    }
}
}  // namespace detail

class Code {
public:
    Code() = default;

    // Any callable taking no arguments; `text` is its source, shown in reports.
    template <class F>
        requires std::invocable<std::decay_t<F>&> && (!std::same_as<std::decay_t<F>, Code>)
    Code(F&& callable, std::string text = {})  // NOLINT: implicit, so `.stmt = [&] {...}` reads naturally
        : state_(std::make_shared<std::decay_t<F>>(std::forward<F>(callable))),
          run_(&detail::run_block<std::decay_t<F>>),
          text_(std::move(text)) {}

    // Runs the callable `calls` times in a loop compiled for its type.
    void run(std::int64_t calls) const {
        if (run_ != nullptr) run_(state_.get(), calls);
    }

    explicit operator bool() const { return run_ != nullptr; }
    const std::string& text() const { return text_; }

private:
    std::shared_ptr<void> state_;
    void (*run_)(void*, std::int64_t) = nullptr;
    std::string text_;
};

}  // namespace vitals

// A Code whose report text is its own source: VITALS_CODE(z.noalias() = x * y).
// Captures by reference, like a statement written in place.
#define VITALS_CODE(...) ::vitals::Code([&] { __VA_ARGS__; }, #__VA_ARGS__)
