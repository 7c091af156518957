// nccl_probe: what NCCL does with this machine's GPUs, for the NCCL part of the all-reduce work
// (docs/gpu-results.md "NCCL"). ci/gpu-check.sh runs it and records its lines.
//   1. NCCL's version and the number of devices;
//   2. an f32 sum all-reduce over one rank per device, each rank's result checked: with one or two
//      ranks a sum has one rounding whatever the order, so the result must equal the f64 sum of
//      the rank values rounded to f32 (with more ranks the largest relative error is printed);
//   3. whether one communicator takes two ranks on one device, which checking NCCL's orders for
//      P > number of GPUs on a single GPU needs. NCCL's maintainers say it does not since 2.5
//      ("Duplicate GPU detected", NVIDIA/nccl#418); this measures it on the installed version.
// Exit status: 0 when it ran and every all-reduce result was right, 1 otherwise, 3 without a device.
#include <cmath>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

namespace {

bool cuda_ok(cudaError_t status, const char* what) {
  if (status == cudaSuccess) return true;
  std::printf("nccl_probe: %s: %s\n", what, cudaGetErrorString(status));
  return false;
}

const char* last_error(ncclComm_t comm) {
  const char* text = ncclGetLastError(comm);
  return text && *text ? text : "(no last error)";
}

// Rank r's element j: magnitudes spread over 2^-10 .. 2^10 with alternating signs, so sums round.
float rank_value(int rank, std::size_t j) {
  const double magnitude = std::ldexp(1.0 + static_cast<double>((j * 2654435761u + rank * 40503u) % 1021) / 1021.0,
                                      static_cast<int>((j + 7 * rank) % 21) - 10);
  return static_cast<float>(((j + rank) % 2 ? -1 : 1) * magnitude);
}

// All-reduces D floats over one rank per listed device; returns false on an error or a wrong sum.
bool all_reduce(const std::vector<int>& devices, const char* label) {
  const int ranks = static_cast<int>(devices.size());
  constexpr std::size_t D = 1 << 16;
  std::vector<ncclComm_t> comms(ranks);
  const ncclResult_t init = ncclCommInitAll(comms.data(), ranks, devices.data());
  if (init != ncclSuccess) {
    std::printf("nccl %s: ncclCommInitAll refused %d ranks: %s: %s\n", label, ranks, ncclGetErrorString(init),
                last_error(nullptr));
    return false;
  }
  std::vector<float*> buffers(ranks);
  std::vector<cudaStream_t> streams(ranks);
  std::vector<float> host(D);
  bool ok = true;
  for (int r = 0; r < ranks && ok; ++r) {
    for (std::size_t j = 0; j < D; ++j) host[j] = rank_value(r, j);
    ok = cuda_ok(cudaSetDevice(devices[r]), "cudaSetDevice") &&
         cuda_ok(cudaStreamCreate(&streams[r]), "cudaStreamCreate") &&
         cuda_ok(cudaMalloc(&buffers[r], D * sizeof(float)), "cudaMalloc") &&
         cuda_ok(cudaMemcpy(buffers[r], host.data(), D * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  ncclResult_t status = ncclSuccess;
  if (ok) {
    status = ncclGroupStart();
    for (int r = 0; r < ranks && status == ncclSuccess; ++r)
      status = ncclAllReduce(buffers[r], buffers[r], D, ncclFloat, ncclSum, comms[r], streams[r]);
    const ncclResult_t end = ncclGroupEnd();
    if (status == ncclSuccess) status = end;
    if (status != ncclSuccess)
      std::printf("nccl %s: ncclAllReduce: %s: %s\n", label, ncclGetErrorString(status), last_error(nullptr));
    ok = status == ncclSuccess;
  }
  double worst = 0;
  std::size_t wrong = 0;
  for (int r = 0; r < ranks && ok; ++r) {
    ok = cuda_ok(cudaSetDevice(devices[r]), "cudaSetDevice") && cuda_ok(cudaStreamSynchronize(streams[r]), "sync") &&
         cuda_ok(cudaMemcpy(host.data(), buffers[r], D * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (std::size_t j = 0; ok && j < D; ++j) {
      double exact = 0;  // at most a few terms of 24 bits within 2^20 of each other: exact in f64
      for (int q = 0; q < ranks; ++q) exact += rank_value(q, j);
      if (ranks <= 2 && host[j] != static_cast<float>(exact)) ++wrong;
      if (exact != 0) worst = std::fmax(worst, std::fabs((host[j] - exact) / exact));
    }
  }
  if (ok)
    std::printf(
        "nccl %s: %d rank(s), %zu f32 elements each: %zu results differ from the correctly rounded sum, "
        "largest relative error %.3g\n",
        label, ranks, D, wrong, worst);
  for (int r = 0; r < ranks; ++r) {
    if (buffers[r]) cudaFree(buffers[r]);
    ncclCommDestroy(comms[r]);
  }
  return ok && wrong == 0;
}

}  // namespace

int main() {
  int version = 0;
  ncclGetVersion(&version);
  int devices = 0;
  const cudaError_t count = cudaGetDeviceCount(&devices);
  std::printf("nccl version: %d (NCCL_VERSION_CODE of the library loaded; built against %d)\n", version,
              NCCL_VERSION_CODE);
  if (count != cudaSuccess || devices == 0) {
    std::printf("nccl_probe: no CUDA device: %s\n", count == cudaSuccess ? "0 devices" : cudaGetErrorString(count));
    return 3;
  }
  std::printf("nccl devices: %d\n", devices);
  std::vector<int> one_per_device(devices);
  for (int d = 0; d < devices; ++d) one_per_device[d] = d;
  const bool right = all_reduce(one_per_device, "one rank per device");
  // Two ranks on device 0: refused (ncclInvalidUsage) is the expected answer; accepted would be news.
  const bool shared = all_reduce({0, 0}, "two ranks on device 0");
  std::printf("nccl two ranks on one device: %s\n", shared ? "accepted, and summed right" : "not usable (above)");
  return right ? 0 : 1;
}
