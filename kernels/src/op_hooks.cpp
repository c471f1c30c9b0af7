#include "vitals/kernels/op_hooks.hpp"

#include <vector>

namespace vitals::kernels {

namespace detail {
std::atomic<const OpObserver*> g_op_observer{nullptr};
}

void set_op_observer(const OpObserver* observer) { detail::g_op_observer.store(observer, std::memory_order_release); }

void detail::record_op_inputs(std::initializer_list<const Tensor*> inputs) {
    std::vector<profiler::InputMeta> metas;
    metas.reserve(inputs.size());
    for (const Tensor* t : inputs) metas.push_back({t->shape(), dtype_name(t->dtype())});
    profiler::detail::record_inputs(metas);
}

}  // namespace vitals::kernels
