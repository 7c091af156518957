// The CUDA device as accucheck sees it, and the run-time registration of the GPU backends.
//
// impls/cuda/register.cpp probes the device once, from a static initializer of the (whole-
// archive) accucheck::cuda library: when cudaGetDeviceCount finds a device that can run this
// build's sm_90 code, every GPU backend is added to Registry::global(), so the property suite,
// the fuzzers and the CLI pick them up; with no device nothing is registered and nothing is
// reported as an error. ACCUCHECK_CUDA_DISABLE=1 skips the probe (and the driver start-up).
#pragma once

#include <string>
#include <vector>

namespace accucheck::cuda {

struct DeviceStatus {
  bool usable = false;
  std::string description;  // "NVIDIA H200 (sm_90, 139 GiB, driver 13.0)" or why there is none
};
const DeviceStatus& device_status();

// Registers the GPU backends if the device is usable (idempotent); returns their names.
const std::vector<std::string>& register_gpu_backends();

// Product backends of cublas.cpp (registered by register_gpu_backends()).
void register_cublas_backends(std::vector<std::string>& names);

// NCCL all-reduce backends of nccl.cpp (built where the toolkit has NCCL): registered when NCCL
// loads and there are at least two GPUs; nccl_status() says which, or why none.
void register_nccl_backends(std::vector<std::string>& names);
const std::string& nccl_status();

}  // namespace accucheck::cuda
