#include "cuda/cublas_api.hpp"

#include <stdexcept>
#include <string>

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
    library.bind(api.create, VITALS_EXPANDED_NAME(cublasCreate));
    library.bind(api.destroy, VITALS_EXPANDED_NAME(cublasDestroy));
    library.bind(api.set_stream, VITALS_EXPANDED_NAME(cublasSetStream));
    library.bind(api.sgemm, VITALS_EXPANDED_NAME(cublasSgemm_64));
    library.bind(api.dgemm, VITALS_EXPANDED_NAME(cublasDgemm_64));
    library.bind(api.status_string, VITALS_EXPANDED_NAME(cublasGetStatusString));
    library.bind(api.status_name, VITALS_EXPANDED_NAME(cublasGetStatusName));
    return api;
}

}  // namespace

const CublasApi& cublas() {
    static const CublasApi api = load();  // a throw leaves it unset: the next call tries again
    return api;
}

}  // namespace vitals::kernels::cuda_backend::detail
