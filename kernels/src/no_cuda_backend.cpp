// The kernel set's CUDA side in a build without CUDA: every entry says so. CUDA tensors
// cannot be made in such a build (Tensor::empty refuses first), so these are reached
// only by misuse; they throw rather than pretend.
#include <stdexcept>

#include "cuda_backend.hpp"

namespace vitals::kernels::cuda_backend {
namespace {
[[noreturn]] void no_cuda() {
    throw std::runtime_error("vitals was built without CUDA (VITALS_CUDA=OFF or no toolkit found); rebuild with -DVITALS_CUDA=ON");
}
}  // namespace

bool built() { return false; }
void* allocate(std::size_t, Stream) { no_cuda(); }
void deallocate(void*, Stream) noexcept {}
void copy(void*, const void*, std::size_t, CopyKind, Stream) { no_cuda(); }
void fill_zero(void*, std::size_t, Stream) { no_cuda(); }
void synchronize(Stream) {}

template <class T>
void gemm(bool, bool, std::int64_t, std::int64_t, std::int64_t, const T*, const T*, T*, bool, Stream) { no_cuda(); }
template <class T>
void broadcast_rows(const T*, T*, std::int64_t, std::int64_t, Stream) { no_cuda(); }
template <class T>
void sum_rows(const T*, T*, std::int64_t, std::int64_t, Stream) { no_cuda(); }
template <class T>
void relu(const T*, T*, std::int64_t, Stream) { no_cuda(); }
template <class T>
void relu_backward(const T*, const T*, T*, std::int64_t, Stream) { no_cuda(); }
template <class T, class M>
void relation_mask(const T*, Relation, T, M*, std::int64_t, Stream) { no_cuda(); }
std::int64_t nonzero_flat(const void*, DType, std::int64_t, std::int64_t*, Stream) { no_cuda(); }
void unravel(const std::int64_t*, std::int64_t, const Shape&, std::int64_t*, Stream) { no_cuda(); }
template <class T>
std::int64_t masked_select(const T*, const void*, DType, std::int64_t, T*, Stream) { no_cuda(); }
template <class T>
void mse_loss(const T*, const T*, T*, std::int64_t, Stream) { no_cuda(); }
template <class T>
void mse_loss_backward(const T*, const T*, T*, std::int64_t, Stream) { no_cuda(); }
template <class T>
void sgd_step(T*, const T*, T, std::int64_t, Stream) { no_cuda(); }

#define VITALS_NO_CUDA_INSTANTIATE(T)                                                                          \
    template void gemm<T>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const T*, const T*, T*, bool,   \
                          Stream);                                                                             \
    template void broadcast_rows<T>(const T*, T*, std::int64_t, std::int64_t, Stream);                          \
    template void sum_rows<T>(const T*, T*, std::int64_t, std::int64_t, Stream);                                \
    template void relu<T>(const T*, T*, std::int64_t, Stream);                                                  \
    template void relu_backward<T>(const T*, const T*, T*, std::int64_t, Stream);                               \
    template void relation_mask<T, bool>(const T*, Relation, T, bool*, std::int64_t, Stream);                   \
    template void relation_mask<T, float>(const T*, Relation, T, float*, std::int64_t, Stream);                 \
    template void relation_mask<T, double>(const T*, Relation, T, double*, std::int64_t, Stream);               \
    template std::int64_t masked_select<T>(const T*, const void*, DType, std::int64_t, T*, Stream);             \
    template void mse_loss<T>(const T*, const T*, T*, std::int64_t, Stream);                                    \
    template void mse_loss_backward<T>(const T*, const T*, T*, std::int64_t, Stream);                           \
    template void sgd_step<T>(T*, const T*, T, std::int64_t, Stream);
VITALS_NO_CUDA_INSTANTIATE(float)
VITALS_NO_CUDA_INSTANTIATE(double)
#undef VITALS_NO_CUDA_INSTANTIATE

}  // namespace vitals::kernels::cuda_backend
