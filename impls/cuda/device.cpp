// The device probe and on_gpu (device.h).
#include "cuda/device.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace accucheck::cuda {
namespace {

DeviceStatus probe() {
  DeviceStatus s;
  if (const char* off = std::getenv("ACCUCHECK_CUDA_DISABLE"); off && *off && std::strcmp(off, "0") != 0) {
    s.description = "no CUDA device used: ACCUCHECK_CUDA_DISABLE is set";
    return s;
  }
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    s.description =
        std::string("no CUDA device: cudaGetDeviceCount: ") + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
    cudaGetLastError();  // clear the sticky error state of the runtime
    return s;
  }
  if (count == 0) {
    s.description = "no CUDA device: cudaGetDeviceCount found 0";
    return s;
  }
  cudaDeviceProp prop{};
  if (const cudaError_t p = cudaGetDeviceProperties(&prop, 0); p != cudaSuccess) {
    s.description = std::string("no usable CUDA device: cudaGetDeviceProperties: ") + cudaGetErrorString(p);
    return s;
  }
  int driver = 0;
  cudaDriverGetVersion(&driver);
  char text[512];
  std::snprintf(text, sizeof text, "%s (sm_%d%d, %.0f GiB, %d SMs, driver %d.%d)", prop.name, prop.major, prop.minor,
                static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0), prop.multiProcessorCount,
                driver / 1000, (driver % 1000) / 10);
  s.description = text;
  if (prop.major < 9) {
    s.description += ": older than the sm_90 code of this build, no GPU backend registered";
    return s;
  }
  s.usable = true;
  return s;
}

}  // namespace

const DeviceStatus& device_status() {
  static const DeviceStatus status = probe();
  return status;
}

std::vector<Backend> on_gpu(std::vector<Backend> (*make)()) {
  if (!device_status().usable) return {};
  std::vector<Backend> backends = make();
  for (Backend& b : backends) b.device = Device::cuda;
  return backends;
}

std::vector<std::string> gpu_backend_names() {
  std::vector<std::string> names;
  for (const Backend& b : Registry::global().all())
    if (b.device == Device::cuda) names.push_back(b.name);
  return names;
}

}  // namespace accucheck::cuda
