// Code: a statement the Timer runs, with the loop over calls compiled around it.
//
// A Code is built from any callable. It is type-erased once per *block*, not once per
// call: the loop that runs the callable n times is instantiated for the callable's own
// type, so the call inlines and an empty statement costs one loop iteration.
#pragma once

#include <atomic>
#include <concepts>
#include <cstdint>
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

// A callable on the heap, shared by copies: what std::shared_ptr<void> would do, without
// <memory>, whose text alone would more than double what every user of the Timer compiles.
class SharedCallable {
public:
    SharedCallable() = default;
    template <class F>
    explicit SharedCallable(F&& callable) : node_(new Holder<std::decay_t<F>>(std::forward<F>(callable))) {}
    SharedCallable(const SharedCallable& other) noexcept : node_(other.node_) { retain(); }
    SharedCallable(SharedCallable&& other) noexcept : node_(std::exchange(other.node_, nullptr)) {}
    SharedCallable& operator=(SharedCallable other) noexcept {
        std::swap(node_, other.node_);
        return *this;
    }
    ~SharedCallable() { release(); }

    void* get() const noexcept { return node_ == nullptr ? nullptr : node_->object; }

private:
    struct Node {
        std::atomic<long> references{1};
        void* object = nullptr;
        void (*destroy)(Node*) noexcept = nullptr;
    };
    template <class F>
    struct Holder : Node {
        template <class G>
        explicit Holder(G&& g) : callable(std::forward<G>(g)) {
            this->object = &callable;
            this->destroy = [](Node* node) noexcept { delete static_cast<Holder*>(node); };
        }
        F callable;
    };
    void retain() noexcept {
        if (node_ != nullptr) node_->references.fetch_add(1, std::memory_order_relaxed);
    }
    void release() noexcept {
        if (node_ != nullptr && node_->references.fetch_sub(1, std::memory_order_acq_rel) == 1) node_->destroy(node_);
    }
    Node* node_ = nullptr;
};
}  // namespace detail

class Code {
public:
    Code() = default;

    // Any callable taking no arguments; `text` is its source, shown in reports.
    template <class F>
        requires std::invocable<std::decay_t<F>&> && (!std::same_as<std::decay_t<F>, Code>)
    Code(F&& callable, std::string text = {})  // NOLINT: implicit, so `.stmt = [&] {...}` reads naturally
        : state_(std::forward<F>(callable)), run_(&detail::run_block<std::decay_t<F>>), text_(std::move(text)) {}

    // Runs the callable `calls` times in a loop compiled for its type.
    void run(std::int64_t calls) const {
        if (run_ != nullptr) run_(state_.get(), calls);
    }

    explicit operator bool() const { return run_ != nullptr; }
    const std::string& text() const { return text_; }

private:
    detail::SharedCallable state_;
    void (*run_)(void*, std::int64_t) = nullptr;
    std::string text_;
};

// Called after every measured block with (calls in the block, block seconds). Any
// callable of that shape; copies share it.
class BlockCallback {
public:
    BlockCallback() = default;
    template <class F>
        requires std::invocable<std::decay_t<F>&, std::int64_t, double> &&
                 (!std::same_as<std::decay_t<F>, BlockCallback>)
    BlockCallback(F&& callable)  // NOLINT: implicit, so `.callback = [&](auto n, double s) {...}` reads naturally
        : state_(std::forward<F>(callable)), call_([](void* f, std::int64_t number, double seconds) {
              (*static_cast<std::decay_t<F>*>(f))(number, seconds);
          }) {}

    void operator()(std::int64_t number, double block_seconds) const { call_(state_.get(), number, block_seconds); }
    explicit operator bool() const { return call_ != nullptr; }

private:
    detail::SharedCallable state_;
    void (*call_)(void*, std::int64_t, double) = nullptr;
};

}  // namespace vitals

// A Code whose report text is its own source: VITALS_CODE(z.noalias() = x * y).
// Captures by reference, like a statement written in place.
#define VITALS_CODE(...) ::vitals::Code([&] { __VA_ARGS__; }, #__VA_ARGS__)
