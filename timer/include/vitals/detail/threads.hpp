#pragma once

namespace vitals::detail {

// Sets the intra-op thread count (OpenMP and Eigen) for its lifetime, then restores it.
class ThreadCountScope {
public:
    explicit ThreadCountScope(int num_threads);
    ~ThreadCountScope();
    ThreadCountScope(const ThreadCountScope&) = delete;
    ThreadCountScope& operator=(const ThreadCountScope&) = delete;

private:
    int previous_omp_;
    int previous_eigen_;
};

}  // namespace vitals::detail
