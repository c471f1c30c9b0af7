#include "cuda/cublas_api.hpp"

#include <stdexcept>
#include <string>
#include <type_traits>

#include "vitals/shared_library.hpp"

// cublas_v2.h maps the plain names onto versioned ones (cublasCreate is cublasCreate_v2):
// the library exports the versioned names, so a symbol is looked up by the name the
// macro expands to.
#define VITALS_EXPANDED_NAME(f) VITALS_STRINGIFY(f)
#define VITALS_STRINGIFY(f) #f
#define VITALS_SONAME_MAJOR(major) "libcublas.so." VITALS_STRINGIFY(major)
#ifndef VITALS_CUBLAS_BUILD_DIR
#define VITALS_CUBLAS_BUILD_DIR "."
#endif

namespace vitals::kernels::cuda_backend::detail {
namespace {

CublasApi load() {
    static const SharedLibrary library(
        {VITALS_SONAME_MAJOR(CUBLAS_VER_MAJOR), VITALS_CUBLAS_BUILD_DIR "/" VITALS_SONAME_MAJOR(CUBLAS_VER_MAJOR), "libcublas.so"});
    if (!library.loaded()) {
        throw std::runtime_error("cuBLAS is not installed where the loader looks (" + library.why_not() +
                                 "): install the CUDA toolkit's cuBLAS, or add its folder to LD_LIBRARY_PATH");
    }
    CublasApi api{};
    api.create = library.function<std::remove_pointer_t<decltype(api.create)>>(VITALS_EXPANDED_NAME(cublasCreate));
    api.destroy = library.function<std::remove_pointer_t<decltype(api.destroy)>>(VITALS_EXPANDED_NAME(cublasDestroy));
    api.set_stream =
        library.function<std::remove_pointer_t<decltype(api.set_stream)>>(VITALS_EXPANDED_NAME(cublasSetStream));
    api.sgemm = library.function<std::remove_pointer_t<decltype(api.sgemm)>>(VITALS_EXPANDED_NAME(cublasSgemm_64));
    api.dgemm = library.function<std::remove_pointer_t<decltype(api.dgemm)>>(VITALS_EXPANDED_NAME(cublasDgemm_64));
    api.status_string = library.function<std::remove_pointer_t<decltype(api.status_string)>>(
        VITALS_EXPANDED_NAME(cublasGetStatusString));
    api.status_name =
        library.function<std::remove_pointer_t<decltype(api.status_name)>>(VITALS_EXPANDED_NAME(cublasGetStatusName));
    return api;
}

}  // namespace

const CublasApi& cublas() {
    static const CublasApi api = load();  // a throw leaves it unset: the next call tries again
    return api;
}

}  // namespace vitals::kernels::cuda_backend::detail
