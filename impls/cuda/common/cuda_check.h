// CUDA_CHECK / CUBLAS_CHECK: every CUDA runtime and cuBLAS call goes through one of them, and a
// failure throws accucheck::BackendFailure with the file, the line, the call and the error
// string, so the harness reports it as a backend-failed verdict (never ignored, never an abort).
// The throwing function is compiled by the host compiler (cuda_failure.cpp, which sees core's
// backend.h); the .cu files only see its declaration.
#pragma once

namespace accucheck::cuda {

[[noreturn]] void throw_cuda_failure(const char* file, int line, const char* call, const char* error_name,
                                     const char* error_text);
[[noreturn]] void throw_cublas_failure(const char* file, int line, const char* call, int status);

}  // namespace accucheck::cuda

#define CUDA_CHECK(call)                                                                                        \
  do {                                                                                                          \
    const cudaError_t accucheck_cuda_status = (call);                                                           \
    if (accucheck_cuda_status != cudaSuccess)                                                                   \
      ::accucheck::cuda::throw_cuda_failure(__FILE__, __LINE__, #call, cudaGetErrorName(accucheck_cuda_status), \
                                            cudaGetErrorString(accucheck_cuda_status));                         \
  } while (0)

// After a kernel launch: the launch error (bad configuration) at once, and execution errors at
// the next synchronizing CUDA_CHECK.
#define CUDA_CHECK_LAUNCH() CUDA_CHECK(cudaGetLastError())

#define CUBLAS_CHECK(call)                                                                         \
  do {                                                                                             \
    const int accucheck_cublas_status = static_cast<int>(call);                                    \
    if (accucheck_cublas_status != 0)                                                              \
      ::accucheck::cuda::throw_cublas_failure(__FILE__, __LINE__, #call, accucheck_cublas_status); \
  } while (0)
