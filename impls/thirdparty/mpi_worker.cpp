// accucheck_mpi_worker: the MPI program behind the mpi_allreduce_* backends (openmpi.cpp), started
// once per backend as `mpirun -np P accucheck_mpi_worker DIRECTORY` and kept running. Rank r reads
// its requests from the fifo DIRECTORY/rank<r>, rank 0 writes the results to DIRECTORY/responses.
// A request: four little-endian uint64 (D, k, format: 0 f64, 1 f32, 2 bf16, 0), then k * D
// doubles, this rank's share of each element's terms, term-major (term i of every element, then
// term i + 1). The rank sums its share in order in the format (its own accumulation, the gradient
// it holds; -0 when k = 0), and MPI_Allreduce with MPI_SUM (a user-defined sum for bf16) gives the
// result: D doubles. The end of a rank's fifo stops the world.
//
// Each rank waits for its next request in a blocking read, so an idle world costs no CPU (Open
// MPI's blocking collectives spin, which a broadcast of the request would make every rank do).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

enum : std::uint64_t { kF64 = 0, kF32 = 1, kBf16 = 2 };

// bf16 as the top half of an f32, rounded to nearest even (NaN kept quiet). An f32 sum of two
// bf16 values rounded this way is the correctly rounded bf16 sum (p_f32 = 24 >= 2*8 + 2).
std::uint16_t to_bf16(float x) {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  if (std::isnan(x)) return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1);
  return static_cast<std::uint16_t>(bits >> 16);
}
float from_bf16(std::uint16_t h) {
  const std::uint32_t bits = std::uint32_t{h} << 16;
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
void bf16_sum(void* in, void* inout, int* count, MPI_Datatype*) {
  auto* a = static_cast<const std::uint16_t*>(in);
  auto* b = static_cast<std::uint16_t*>(inout);
  for (int i = 0; i < *count; ++i) b[i] = to_bf16(from_bf16(a[i]) + from_bf16(b[i]));
}

bool read_all(std::FILE* f, void* data, std::size_t bytes) { return std::fread(data, 1, bytes, f) == bytes; }

// The share's k terms per element summed in order; -0 (the exact identity) when k = 0.
template <class T, class Add>
void local_sums(const std::vector<double>& share, std::size_t elements, std::size_t k, std::vector<T>& out,
                T negative_zero, Add add, T (*convert)(double)) {
  out.assign(elements, negative_zero);
  for (std::size_t j = 0; j < elements && k > 0; ++j) {
    T acc = convert(share[j]);
    for (std::size_t i = 1; i < k; ++i) acc = add(acc, convert(share[i * elements + j]));
    out[j] = acc;
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::FILE* requests = nullptr;
  std::FILE* responses = nullptr;
  const std::string directory = argc == 2 ? argv[1] : "";
  if (directory.empty() || !(requests = std::fopen((directory + "/rank" + std::to_string(rank)).c_str(), "rb")) ||
      (rank == 0 && !(responses = std::fopen((directory + "/responses").c_str(), "wb")))) {
    std::fprintf(stderr,
                 "accucheck_mpi_worker: usage: accucheck_mpi_worker DIRECTORY (of fifos rank0.. and responses)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Op bf16_op;
  MPI_Op_create(&bf16_sum, /*commute=*/1, &bf16_op);
  std::vector<double> share, result;
  for (;;) {
    std::uint64_t header[4] = {0, 0, 0, 0};
    if (!read_all(requests, header, sizeof header) || header[0] == 0) break;
    const std::size_t elements = header[0], k = header[1];
    share.resize(elements * k);
    if (!read_all(requests, share.data(), share.size() * sizeof(double))) MPI_Abort(MPI_COMM_WORLD, 3);
    result.assign(elements, 0.0);
    const int count = static_cast<int>(elements);
    if (header[2] == kF64) {
      std::vector<double> local, sum(elements);
      local_sums<double>(
          share, elements, k, local, -0.0, [](double a, double b) { return a + b; }, [](double x) { return x; });
      MPI_Allreduce(local.data(), sum.data(), count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      std::copy(sum.begin(), sum.end(), result.begin());
    } else if (header[2] == kF32) {
      std::vector<float> local, sum(elements);
      local_sums<float>(
          share, elements, k, local, -0.0f, [](float a, float b) { return a + b; },
          [](double x) { return static_cast<float>(x); });
      MPI_Allreduce(local.data(), sum.data(), count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      std::copy(sum.begin(), sum.end(), result.begin());
    } else {
      std::vector<std::uint16_t> local, sum(elements);
      local_sums<std::uint16_t>(
          share, elements, k, local, std::uint16_t{0x8000},
          [](std::uint16_t a, std::uint16_t b) { return to_bf16(from_bf16(a) + from_bf16(b)); },
          [](double x) { return to_bf16(static_cast<float>(x)); });  // x is a bf16 value: exact
      MPI_Allreduce(local.data(), sum.data(), count, MPI_UINT16_T, bf16_op, MPI_COMM_WORLD);
      std::transform(sum.begin(), sum.end(), result.begin(), [](std::uint16_t h) { return double{from_bf16(h)}; });
    }
    if (rank == 0) {
      if (std::fwrite(result.data(), sizeof(double), result.size(), responses) != result.size() ||
          std::fflush(responses) != 0)
        MPI_Abort(MPI_COMM_WORLD, 4);
    }
  }
  MPI_Op_free(&bf16_op);
  std::fclose(requests);
  if (responses) std::fclose(responses);
  MPI_Finalize();
  return 0;
}
