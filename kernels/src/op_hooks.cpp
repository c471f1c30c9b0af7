#include "vitals/kernels/op_hooks.hpp"

namespace vitals::kernels {

namespace detail {
std::atomic<const OpObserver*> g_op_observer{nullptr};
}

void set_op_observer(const OpObserver* observer) { detail::g_op_observer.store(observer, std::memory_order_release); }

}  // namespace vitals::kernels
