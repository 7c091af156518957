// Code shared by the CUDA kernels (nvcc) and their CPU order models (the host compiler): the
// same function, compiled twice, is the surest way for a model to match its kernel bit for bit.
#pragma once

#if defined(__CUDACC__)
#define ACCUCHECK_HD __host__ __device__
#define ACCUCHECK_HD_INLINE __host__ __device__ __forceinline__
#else
#define ACCUCHECK_HD
#define ACCUCHECK_HD_INLINE inline
#endif
