// CUDA errors are reported, never ignored: every runtime call goes through CUDA_CHECK, which
// throws BackendFailure naming the file, the line, the call and the error. This runs in CI
// without a GPU (where the first CUDA call fails for want of a device) as well as on one (where
// an invalid copy fails), label unit.
#include <gtest/gtest.h>

#include <string>

#include "checking/backend.h"
#include "cuda/device.h"
#include "cuda/exact/kernels.h"

namespace accucheck {
namespace {

TEST(CudaCheck, AFailingCallThrowsBackendFailureWithFileLineAndError) {
  std::string message;
  try {
    if (cuda::device_status().usable) {
      // A copy from an address that is not device memory fails on any device.
      char host[16];
      cuda::copy_to_host(host, reinterpret_cast<const void*>(std::uintptr_t{16}), sizeof host);
    } else {
      cuda::device_alloc(1024);  // no device (or no driver): the runtime says why
    }
  } catch (const BackendFailure& e) {
    message = e.what();
  }
  ASSERT_FALSE(message.empty()) << "the failing CUDA call did not throw BackendFailure";
  EXPECT_NE(message.find("exact.cu:"), std::string::npos) << message;  // file and line
  EXPECT_NE(message.find("cuda"), std::string::npos) << message;       // the call, e.g. cudaMalloc(&p, bytes)
  EXPECT_NE(message.find("cudaError"), std::string::npos) << message;  // the error's name
  std::printf("device: %s\nreported: %s\n", cuda::device_status().description.c_str(), message.c_str());
}

TEST(CudaCheck, WithoutADeviceNothingIsRegisteredAndNothingFails) {
  const auto names = cuda::gpu_backend_names();
  if (cuda::device_status().usable) {
    EXPECT_FALSE(names.empty());
    for (const auto& n : names) {
      const Backend* b = Registry::global().find(n);
      ASSERT_NE(b, nullptr) << n;
      EXPECT_EQ(b->device, Device::cuda) << n;
    }
  } else {
    EXPECT_TRUE(names.empty());
    for (const Backend& b : Registry::global().all()) EXPECT_EQ(b.device, Device::cpu) << b.name;
  }
}

}  // namespace
}  // namespace accucheck
