// gemm through cuBLAS, and the two small kernels around it in addmm and its gradient.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <utility>

#include "cuda/check.hpp"
#include "cuda/cublas_api.hpp"
#include "cuda_backend.hpp"

namespace vitals::kernels::cuda_backend {
namespace {

// Move-only owner of a cuBLAS handle.
class BlasHandle {
public:
    BlasHandle() { VITALS_CUBLAS_CHECK(detail::cublas().create(&handle_)); }
    ~BlasHandle() {
        if (handle_ != nullptr) VITALS_IGNORE_STATUS(detail::cublas().destroy(handle_));
    }
    BlasHandle(BlasHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    BlasHandle& operator=(BlasHandle&&) = delete;
    BlasHandle(const BlasHandle&) = delete;
    BlasHandle& operator=(const BlasHandle&) = delete;

    cublasHandle_t get() const { return handle_; }

private:
    cublasHandle_t handle_ = nullptr;
};

// A handle is not safe to share between threads that set different streams, so each thread has its own,
// created on its first gemm.
cublasHandle_t handle_for(Stream stream) {
    thread_local BlasHandle handle;
    VITALS_CUBLAS_CHECK(detail::cublas().set_stream(handle.get(), stream));
    return handle.get();
}

cublasStatus_t column_major_gemm(cublasHandle_t handle, cublasOperation_t op_x, cublasOperation_t op_y,
                                 std::int64_t rows, std::int64_t cols, std::int64_t inner, const float* alpha,
                                 const float* x, std::int64_t ldx, const float* y, std::int64_t ldy,
                                 const float* beta, float* out, std::int64_t ldo) {
    return detail::cublas().sgemm(handle, op_x, op_y, rows, cols, inner, alpha, x, ldx, y, ldy, beta, out, ldo);
}

cublasStatus_t column_major_gemm(cublasHandle_t handle, cublasOperation_t op_x, cublasOperation_t op_y,
                                 std::int64_t rows, std::int64_t cols, std::int64_t inner, const double* alpha,
                                 const double* x, std::int64_t ldx, const double* y, std::int64_t ldy,
                                 const double* beta, double* out, std::int64_t ldo) {
    return detail::cublas().dgemm(handle, op_x, op_y, rows, cols, inner, alpha, x, ldx, y, ldy, beta, out, ldo);
}

template <class T>
__global__ void broadcast_rows_kernel(const T* bias, T* c, std::int64_t rows, std::int64_t cols) {
    const std::int64_t total = rows * cols;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
         i += std::int64_t(gridDim.x) * blockDim.x) {
        c[i] = bias[i % cols];
    }
}

// Block of column_tile x row_lanes threads: threadIdx.x picks the column (coalesced reads along a row),
// threadIdx.y strides down the rows; the row_lanes partial sums are then added in a fixed order, so the
// result is the same on every run.
constexpr int column_tile = 32;
constexpr int row_lanes = 8;

template <class T>
__global__ void sum_rows_kernel(const T* x, T* out, std::int64_t rows, std::int64_t cols) {
    __shared__ T partial[row_lanes][column_tile];
    const std::int64_t column = blockIdx.x * std::int64_t(column_tile) + threadIdx.x;
    T sum = T(0);
    if (column < cols) {
        for (std::int64_t row = threadIdx.y; row < rows; row += row_lanes) sum += x[row * cols + column];
    }
    partial[threadIdx.y][threadIdx.x] = sum;
    __syncthreads();
    if (threadIdx.y == 0 && column < cols) {
        T total = partial[0][threadIdx.x];
        for (int lane = 1; lane < row_lanes; ++lane) total += partial[lane][threadIdx.x];
        out[column] = total;
    }
}

}  // namespace

template <class T>
void gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, const T* a, const T* b,
          T* c, bool accumulate, Stream stream) {
    if (m == 0 || n == 0) return;
    if (k == 0) {
        // An empty sum: C keeps its value when accumulating, else becomes zero.
        if (!accumulate) fill_zero(c, static_cast<std::size_t>(m * n) * sizeof(T), stream);
        return;
    }
    // cuBLAS is column-major, and a row-major matrix read as column-major is its transpose. So compute
    // C^T = op(B)^T op(A)^T: B comes first, m and n swap, and each leading dimension is the row length
    // of the operand as stored.
    const std::int64_t lda = transpose_a ? m : k;
    const std::int64_t ldb = transpose_b ? k : n;
    const T alpha = T(1);
    const T beta = accumulate ? T(1) : T(0);
    VITALS_CUBLAS_CHECK(column_major_gemm(handle_for(stream), transpose_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                                          transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &alpha, b, ldb, a, lda,
                                          &beta, c, n));
}

template <class T>
void broadcast_rows(const T* bias, T* c, std::int64_t rows, std::int64_t cols, Stream stream) {
    if (rows == 0 || cols == 0) return;
    broadcast_rows_kernel<<<detail::blocks_for(rows * cols), detail::threads_per_block, 0, stream>>>(bias, c, rows,
                                                                                                      cols);
    VITALS_CUDA_CHECK_LAUNCH(broadcast_rows_kernel);
}

template <class T>
void sum_rows(const T* x, T* out, std::int64_t rows, std::int64_t cols, Stream stream) {
    if (cols == 0) return;
    const auto blocks = static_cast<unsigned>((cols + column_tile - 1) / column_tile);
    sum_rows_kernel<<<blocks, dim3(column_tile, row_lanes), 0, stream>>>(x, out, rows, cols);
    VITALS_CUDA_CHECK_LAUNCH(sum_rows_kernel);
}

#define VITALS_INSTANTIATE_BLAS(T)                                                                                  \
    template void gemm<T>(bool, bool, std::int64_t, std::int64_t, std::int64_t, const T*, const T*, T*, bool,      \
                          Stream);                                                                                  \
    template void broadcast_rows<T>(const T*, T*, std::int64_t, std::int64_t, Stream);                              \
    template void sum_rows<T>(const T*, T*, std::int64_t, std::int64_t, Stream);
VITALS_INSTANTIATE_BLAS(float)
VITALS_INSTANTIATE_BLAS(double)
#undef VITALS_INSTANTIATE_BLAS

}  // namespace vitals::kernels::cuda_backend
