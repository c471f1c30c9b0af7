#include "vitals/detail/threads.hpp"

#include <omp.h>

#include <Eigen/Core>

namespace vitals::detail {

ThreadCountScope::ThreadCountScope(int num_threads)
    : previous_omp_(omp_get_max_threads()), previous_eigen_(Eigen::nbThreads()) {
    omp_set_num_threads(num_threads);
    Eigen::setNbThreads(num_threads);
}

ThreadCountScope::~ThreadCountScope() {
    omp_set_num_threads(previous_omp_);
    Eigen::setNbThreads(previous_eigen_);
}

}  // namespace vitals::detail
