// Eigen's thread count follows a Timer's num_threads: the kernel set registers this hook
// with the platform (vitals/threads.hpp), so the Timer itself never links Eigen.
#pragma once

namespace vitals::kernels {

// Registers the hook once; called from the kernel set's static initialisation.
bool register_eigen_thread_count();

}  // namespace vitals::kernels
