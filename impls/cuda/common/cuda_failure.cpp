// The throwing half of common/cuda_check.h, compiled by the host compiler so that the .cu files
// need not see core's headers.
#include <cublas_v2.h>

#include <string>

#include "checking/backend.h"
#include "cuda/common/cuda_check.h"

namespace accucheck::cuda {

void throw_cuda_failure(const char* file, int line, const char* call, const char* error_name, const char* error_text) {
  throw BackendFailure(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " + error_name + " (" +
                       error_text + ")");
}

void throw_cublas_failure(const char* file, int line, const char* call, int status) {
  // cuBLAS is loaded with dlopen (cublas.cpp): the status names come from its header, not the library.
  const char* name = "unknown cuBLAS status";
  switch (static_cast<cublasStatus_t>(status)) {
    case CUBLAS_STATUS_NOT_INITIALIZED: name = "CUBLAS_STATUS_NOT_INITIALIZED"; break;
    case CUBLAS_STATUS_ALLOC_FAILED: name = "CUBLAS_STATUS_ALLOC_FAILED"; break;
    case CUBLAS_STATUS_INVALID_VALUE: name = "CUBLAS_STATUS_INVALID_VALUE"; break;
    case CUBLAS_STATUS_ARCH_MISMATCH: name = "CUBLAS_STATUS_ARCH_MISMATCH"; break;
    case CUBLAS_STATUS_MAPPING_ERROR: name = "CUBLAS_STATUS_MAPPING_ERROR"; break;
    case CUBLAS_STATUS_EXECUTION_FAILED: name = "CUBLAS_STATUS_EXECUTION_FAILED"; break;
    case CUBLAS_STATUS_INTERNAL_ERROR: name = "CUBLAS_STATUS_INTERNAL_ERROR"; break;
    case CUBLAS_STATUS_NOT_SUPPORTED: name = "CUBLAS_STATUS_NOT_SUPPORTED"; break;
    case CUBLAS_STATUS_LICENSE_ERROR: name = "CUBLAS_STATUS_LICENSE_ERROR"; break;
    default: break;
  }
  throw BackendFailure(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " + name + " (status " +
                       std::to_string(status) + ")");
}

}  // namespace accucheck::cuda
