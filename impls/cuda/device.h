// The CUDA device as accucheck sees it, and how a GPU backend registers: like every backend, with
// one ACCUCHECK_REGISTER_BACKEND line in its own folder, given on_gpu(make):
//
//   ACCUCHECK_REGISTER_BACKEND(cuda::on_gpu(&tree_backends));
//
// device.cpp probes the device once, at the first on_gpu (a static initializer of the whole-archive
// accucheck::cuda library): where cudaGetDeviceCount finds a device that runs this build's sm_90
// code, `make` runs and its backends are registered as Device::cuda; with no device nothing is
// made, registered or reported as an error. ACCUCHECK_CUDA_DISABLE=1 skips the probe (and the
// driver start-up).
#pragma once

#include <string>
#include <vector>

#include "checking/backend.h"

namespace accucheck::cuda {

struct DeviceStatus {
  bool usable = false;
  std::string description;  // "NVIDIA H200 (sm_90, 139 GiB, driver 13.0)" or why there is none
};
const DeviceStatus& device_status();

// make()'s backends marked Device::cuda where the device is usable, else none (make is not called:
// it may load a library, such as cuBLAS, that only a GPU machine needs).
std::vector<Backend> on_gpu(std::vector<Backend> (*make)());

// The registered GPU backends' names, in name order (empty without a usable device).
std::vector<std::string> gpu_backend_names();

// The NCCL all-reduce backends (nccl/nccl.cpp, built where the toolkit has NCCL) are registered
// when NCCL loads and there are at least two GPUs; nccl_status() says which, or why none.
const std::string& nccl_status();

}  // namespace accucheck::cuda
