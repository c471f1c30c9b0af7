// A benchmark program whose statement says what it runs with: each call labels itself
// with the OpenMP and Eigen thread counts it sees, and runs a kernel-set operation. For
// the tests that every command applies a case's num_threads.
#include <omp.h>

#include <Eigen/Core>
#include <memory>
#include <string>
#include <vitals/kernels/kernels.hpp>
#include <vitals/vitals.hpp>

VITALS_CASES(thread_cases) {
    namespace k = vitals::kernels;
    std::vector<vitals::Case> cases;
    for (const int threads : {1, 2}) {
        cases.push_back({"threads/" + std::to_string(threads), [threads] {
                             auto x = std::make_shared<k::Tensor>(k::Tensor::randn({64, 64}, k::DType::f32));
                             return vitals::Timer({.stmt =
                                                       [x] {
                                                           const vitals::profiler::RecordFunction seen(
                                                               vitals::profiler::copy_name,
                                                               "omp=" + std::to_string(omp_get_max_threads()) +
                                                                   " eigen=" + std::to_string(Eigen::nbThreads()));
                                                           vitals::do_not_optimize(k::relu(*x));
                                                       },
                                                   .label = "threads",
                                                   .num_threads = threads});
                         }});
    }
    return cases;
}

VITALS_MAIN()
