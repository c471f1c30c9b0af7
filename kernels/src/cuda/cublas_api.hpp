// The cuBLAS functions the kernel set calls, taken from libcublas when the first product
// runs on a device: a program that never multiplies on a GPU never maps cuBLAS (about
// 200 MB resident with cuBLASLt), and one on a machine without it says so. Internal
// header, for .cu files and cublas_api.cpp.
#pragma once

#include <cublas_v2.h>

namespace vitals::kernels::cuda_backend::detail {

struct CublasApi {
    decltype(&cublasCreate) create;
    decltype(&cublasDestroy) destroy;
    decltype(&cublasSetStream) set_stream;
    decltype(&cublasSgemm_64) sgemm;
    decltype(&cublasDgemm_64) dgemm;
    decltype(&cublasGetStatusString) status_string;
    decltype(&cublasGetStatusName) status_name;
};

// Opened once, on the first call; std::runtime_error saying which library could not be
// opened and why (each call after a failure says the same).
const CublasApi& cublas();

}  // namespace vitals::kernels::cuda_backend::detail
