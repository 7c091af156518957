// NCCL's all-reduce as backends: cuda_nccl_allreduce_npP_F, P the number of GPUs, one rank per GPU.
// NCCL refuses two ranks on one device since 2.5 ("Duplicate GPU detected", ncclInvalidUsage;
// measured with NCCL 2.28.3 on an H100 by nccl_probe: docs/gpu-results.md "NCCL"), so a machine
// with one GPU registers none and nccl_status() says why.
//
// As mpi_allreduce_npP_F (impls/thirdparty/openmpi.cpp): element j's n terms are dealt to the P
// ranks in contiguous shares (rank r: terms [r n / P, (r+1) n / P)), each share summed in order
// in F on the host (the gradient each GPU accumulated itself), then one ncclAllReduce with
// ncclSum over the P partial buffers, in F (NCCL adds 16-bit values in their own format). Bound
// tree(ranks:P,F): a chain of ceil(n/P) terms per share, then whatever tree NCCL's ring, tree or
// NVLS algorithm makes of the P partials. Determinism: NCCL fixes its order by algorithm,
// channels and chunk size for a given size and topology: bitwise-deterministic on one machine
// and NCCL version (claimed, checked by the determinism property).
//
// libnccl.so.2 is opened with dlopen, like cuBLAS (cublas.cpp), and only on a machine with two GPUs
// or more: a one-GPU process does not load its 200 MB, and a build needs only NCCL's header.
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <nccl.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "checking/backend.h"
#include "cuda/common/cuda_check.h"
#include "cuda/common/runtime_library.h"
#include "cuda/device.h"
#include "numerics/format.h"
#include "numerics/soft_float.h"

namespace accucheck::cuda {
namespace {

struct Nccl {
  std::string error;  // why it is not usable ("" when it is)
  int version = 0;
  decltype(&ncclGetVersion) get_version = nullptr;
  decltype(&ncclCommInitAll) comm_init_all = nullptr;
  decltype(&ncclCommAbort) comm_abort = nullptr;
  decltype(&ncclAllReduce) all_reduce = nullptr;
  decltype(&ncclGroupStart) group_start = nullptr;
  decltype(&ncclGroupEnd) group_end = nullptr;
  decltype(&ncclGetErrorString) error_string = nullptr;
};

const Nccl& nccl() {
  static const Nccl library = [] {
    Nccl n;
    void* lib = open_runtime_library("libnccl.so.2", ACCUCHECK_NCCL_LIBRARY_DIR, n.error);
    if (!lib) return n;
    auto find = [&](auto& fn, const char* symbol) {
      fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, symbol));
      if (!fn && n.error.empty()) n.error = std::string("libnccl.so.2 has no ") + symbol;
    };
    find(n.get_version, "ncclGetVersion");
    find(n.comm_init_all, "ncclCommInitAll");
    find(n.comm_abort, "ncclCommAbort");
    find(n.all_reduce, "ncclAllReduce");
    find(n.group_start, "ncclGroupStart");
    find(n.group_end, "ncclGroupEnd");
    find(n.error_string, "ncclGetErrorString");
    if (n.error.empty()) n.get_version(&n.version);
    return n;
  }();
  return library;
}

std::string& status_text() {
  static std::string text = "NCCL backends not probed yet";
  return text;
}

void nccl_check(ncclResult_t r, const char* call) {
  if (r != ncclSuccess) throw BackendFailure(std::string(call) + ": " + nccl().error_string(r));
}

ncclDataType_t nccl_type(Format f) {
  switch (f) {
    case Format::f64: return ncclDouble;
    case Format::f32: return ncclFloat;
    case Format::f16: return ncclHalf;
    default: return ncclBfloat16;
  }
}

// One communicator and one stream per GPU, made at the first workload and kept (ncclCommInitAll
// costs about a second). Not destroyed at exit: this object lives in the registry, destroyed
// after NCCL's and the CUDA runtime's statics may be, where ncclCommDestroy can hang; the process
// end releases them. After a failure the communicators are aborted and made anew.
class World {
 public:
  explicit World(int ranks) : comms_(static_cast<std::size_t>(ranks)), streams_(comms_.size()) {}
  void make() {
    if (ready_) return;
    std::vector<int> devices(comms_.size());
    for (std::size_t r = 0; r < devices.size(); ++r) {
      devices[r] = static_cast<int>(r);
      if (!streams_[r]) {
        CUDA_CHECK(cudaSetDevice(devices[r]));
        CUDA_CHECK(cudaStreamCreate(&streams_[r]));
      }
    }
    nccl_check(nccl().comm_init_all(comms_.data(), static_cast<int>(comms_.size()), devices.data()), "ncclCommInitAll");
    ready_ = true;
  }
  void abort() {
    if (ready_)
      for (ncclComm_t c : comms_) nccl().comm_abort(c);
    ready_ = false;
  }
  ncclComm_t comm(std::size_t r) const { return comms_[r]; }
  cudaStream_t stream(std::size_t r) const { return streams_[r]; }

 private:
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
  bool ready_ = false;
};

// The P partial buffers of a dense workload: rank r's share of element j's terms, summed in order in T.
template <class T>
std::vector<std::vector<unsigned char>> partial_sums(const DenseWorkload& w, std::size_t ranks) {
  const std::size_t n = w.steps + 1;
  const auto term = [&](std::size_t i, std::size_t j) {
    return i == 0 ? w.initial[j] : w.addends[(i - 1) * w.elements + j];
  };
  const std::size_t size = storage_size(w.format);
  std::vector<std::vector<unsigned char>> out(ranks, std::vector<unsigned char>(w.elements * size));
  for (std::size_t r = 0; r < ranks; ++r) {
    const std::size_t begin = n * r / ranks, end = n * (r + 1) / ranks;
    for (std::size_t j = 0; j < w.elements; ++j) {
      T sum = from_value<T>(-0.0);  // an empty share adds -0: exact
      for (std::size_t i = begin; i < end; ++i)
        sum = i == begin ? from_value<T>(term(i, j)) : sum + from_value<T>(term(i, j));
      store_value(to_value(sum), w.format, out[r].data() + j * size);
    }
  }
  return out;
}

template <class T>
DenseRun nccl_run(int ranks) {
  auto world = std::make_shared<World>(ranks);
  return [world, ranks](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    const std::size_t P = static_cast<std::size_t>(ranks), size = storage_size(w.format), bytes = w.elements * size;
    if (w.elements == 0) return;
    const auto partials = partial_sums<T>(w, P);
    std::vector<void*> buffers(P, nullptr);
    std::vector<unsigned char> back(bytes);
    try {
      world->make();
      for (std::size_t r = 0; r < P; ++r) {
        CUDA_CHECK(cudaSetDevice(static_cast<int>(r)));
        CUDA_CHECK(cudaMalloc(&buffers[r], bytes));
        CUDA_CHECK(cudaMemcpy(buffers[r], partials[r].data(), bytes, cudaMemcpyHostToDevice));
      }
      // As nccl_probe ran it on the H100: one grouped in-place ncclAllReduce per rank, each on
      // its GPU's stream. The group is closed whatever a call inside it returned.
      nccl_check(nccl().group_start(), "ncclGroupStart");
      ncclResult_t status = ncclSuccess;
      for (std::size_t r = 0; r < P && status == ncclSuccess; ++r)
        status = nccl().all_reduce(buffers[r], buffers[r], w.elements, nccl_type(w.format), ncclSum, world->comm(r),
                                   world->stream(r));
      const ncclResult_t end = nccl().group_end();
      nccl_check(status, "ncclAllReduce");
      nccl_check(end, "ncclGroupEnd");
      for (std::size_t r = 0; r < P; ++r) {
        CUDA_CHECK(cudaSetDevice(static_cast<int>(r)));
        CUDA_CHECK(cudaStreamSynchronize(world->stream(r)));
      }
      // Every rank ends with the same bits (all-reduce); rank 0's stand for all.
      CUDA_CHECK(cudaSetDevice(0));
      CUDA_CHECK(cudaMemcpy(back.data(), buffers[0], bytes, cudaMemcpyDeviceToHost));
    } catch (...) {
      world->abort();  // the next workload starts new communicators
      for (std::size_t r = 0; r < P; ++r)
        if (buffers[r]) cudaSetDevice(static_cast<int>(r)), cudaFree(buffers[r]);
      cudaSetDevice(0);
      throw;
    }
    for (std::size_t r = 0; r < P; ++r) cudaSetDevice(static_cast<int>(r)), cudaFree(buffers[r]);
    cudaSetDevice(0);
    for (std::size_t j = 0; j < w.elements; ++j) result[j] = load_value(back.data() + j * size, w.format);
  };
}

template <class T>
Backend nccl_backend(int ranks) {
  constexpr Format f = storage_format_v<T>;
  const std::string F(name(f)), P = std::to_string(ranks);
  return dense_backend("cuda_nccl_allreduce_np" + P + "_" + F, f, f, "tree(ranks:" + P + "," + F + ")",
                       Determinism::bitwise_deterministic,
                       "ncclAllReduce (NCCL " + std::to_string(nccl().version) + ", ncclSum) over " + P +
                           " GPUs, one rank each: each rank sums its share of the terms in order, then the algorithm "
                           "NCCL picks",
                       nccl_run<T>(ranks));
}

}  // namespace

const std::string& nccl_status() { return status_text(); }

namespace {

// Made only on a usable device (on_gpu); NCCL is loaded only where there are two GPUs or more.
std::vector<Backend> nccl_backends() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 0;
  if (devices < 2) {  // decided before loading NCCL (200 MB) into every GPU process
    status_text() = "no NCCL backend: NCCL needs one GPU per rank and this machine has " + std::to_string(devices) +
                    " (NCCL refuses two ranks on one device: ncclInvalidUsage, docs/gpu-results.md \"NCCL\")";
    return {};
  }
  if (!nccl().error.empty()) {
    status_text() = "no NCCL backend: " + nccl().error;
    return {};
  }
  status_text() = "4 NCCL backends over " + std::to_string(devices) + " GPUs";
  return {nccl_backend<double>(devices), nccl_backend<float>(devices), nccl_backend<Half>(devices),
          nccl_backend<BFloat16>(devices)};
}
ACCUCHECK_REGISTER_BACKEND(on_gpu(&nccl_backends));

}  // namespace
}  // namespace accucheck::cuda
