#include "eigen_threads.hpp"

#include <Eigen/Core>

#include "vitals/threads.hpp"

namespace vitals::kernels {
namespace {

int set_eigen_threads(int num_threads) {
    const int previous = Eigen::nbThreads();
    Eigen::setNbThreads(num_threads);
    return previous;
}

}  // namespace

bool register_eigen_thread_count() {
    register_thread_count_hook(&set_eigen_threads);
    return true;
}

}  // namespace vitals::kernels
