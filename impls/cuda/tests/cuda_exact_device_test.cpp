// The exact reduction of device-resident data (exact/exact.cu, exact_sum_device), label gpu:
// 10^8 addends generated on the device, and adversarial arrays made on the host, checked against
// core's host oracle (FastExactAccumulator) and, cell for cell, against the host run of the same
// superaccumulator code (exact/superacc.h). Skips, saying why, without a usable device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "accucheck/testing/bits.h"
#include "cuda/device.h"
#include "cuda/exact/kernels.h"
#include "cuda/exact/superacc.h"
#include "numerics/fast_exact.h"

namespace accucheck {
namespace {

namespace hd = exact_hd;

// ci/gpu-check.sh sets ACCUCHECK_GPU_TEST_SMALL under compute-sanitizer (10-100x slower).
bool small() { return std::getenv("ACCUCHECK_GPU_TEST_SMALL") != nullptr; }

class ExactDevice : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!cuda::device_status().usable) GTEST_SKIP() << "GPU test skipped: " << cuda::device_status().description;
  }
};

using test::same_bits;

template <class T>
struct OnDevice {
  T* p = nullptr;
  std::size_t n = 0;
  explicit OnDevice(std::size_t count) : p(static_cast<T*>(cuda::device_alloc((count + 1) * sizeof(T)))), n(count) {}
  ~OnDevice() { cuda::device_free(p); }
};

// The device result against the oracle (S, or A = sum |x| with `absolute`) and the host model.
template <class T>
void check(const std::vector<T>& host, const cuda::DeviceExactResult& r, bool absolute, const std::string& what) {
  FastExactAccumulator oracle;
  hd::SuperAccumulator model;
  for (T x : host) {
    const T v = absolute ? std::fabs(x) : x;
    oracle.add(static_cast<double>(v));
    model.add(v);
  }
  EXPECT_TRUE(same_bits(r.rounded_f64, oracle.rounded(Format::f64)))
      << what << ": f64 " << hex_float(r.rounded_f64) << " vs oracle " << hex_float(oracle.rounded(Format::f64));
  EXPECT_TRUE(same_bits(r.rounded_f32, oracle.rounded(Format::f32)))
      << what << ": f32 " << hex_float(r.rounded_f32) << " vs oracle " << hex_float(oracle.rounded(Format::f32));
  hd::normalize(model.cell, 1);
  for (int i = 0; i < hd::kChunks; ++i) ASSERT_EQ(r.cells[i], model.cell[i]) << what << ": cell " << i;
  const unsigned specials = hd::kNaN | hd::kPosInf | hd::kNegInf | hd::kNotAllNegZero;
  EXPECT_EQ(r.flags & specials, model.flags & specials) << what;
}

template <class T>
void run_case(std::vector<T> host, const std::string& what, std::size_t offset = 0) {
  OnDevice<T> x(host.size() + offset);
  cuda::copy_to_device(x.p + offset, host.data(), host.size() * sizeof(T));
  for (bool absolute : {false, true})
    check(host, cuda::exact_sum_device(x.p + offset, host.size(), absolute), absolute, what + (absolute ? " |x|" : ""));
}

TEST_F(ExactDevice, HundredMillionAddendsGeneratedOnTheDevice) {
  const std::size_t n = small() ? 1'000'000 : 100'000'000;
  {
    OnDevice<float> x(n);
    cuda::fill_device(x.p, n, 1);
    std::vector<float> host(n);
    cuda::copy_to_host(host.data(), x.p, n * sizeof(float));
    check(host, cuda::exact_sum_device(x.p, n), false, "1e8 f32");
  }
  {
    OnDevice<double> x(n);
    cuda::fill_device(x.p, n, 2);
    std::vector<double> host(n);
    cuda::copy_to_host(host.data(), x.p, n * sizeof(double));
    check(host, cuda::exact_sum_device(x.p, n), false, "1e8 f64");
  }
}

TEST_F(ExactDevice, AdversarialArrays) {
  std::mt19937_64 rng(17);
  // Every float bit pattern class, cancellation, ties, specials, lengths off the vector width,
  // misaligned starts (the scalar path).
  for (std::size_t n : {1, 2, 3, 5, 1000, 65537, 1 << 20}) {
    if (small() && n > 70000) continue;
    std::vector<float> f(n);
    for (auto& v : f) {
      const auto bits = static_cast<std::uint32_t>(rng());
      std::memcpy(&v, &bits, sizeof v);
      if (!std::isfinite(v)) v = -0.0f;
    }
    run_case(f, "random float bits n=" + std::to_string(n));
    run_case(f, "random float bits, misaligned, n=" + std::to_string(n), 1);
    std::vector<double> d(n);
    for (auto& v : d) {
      const auto bits = static_cast<std::uint64_t>(rng());
      std::memcpy(&v, &bits, sizeof v);
      if (!std::isfinite(v)) v = 0.0;
    }
    run_case(d, "random double bits n=" + std::to_string(n));
    run_case(d, "random double bits, misaligned, n=" + std::to_string(n), 1);
  }
  const float fi = std::numeric_limits<float>::infinity();
  const double di = std::numeric_limits<double>::infinity();
  run_case(std::vector<float>{-0.0f, -0.0f, -0.0f}, "all -0 f32");
  run_case(std::vector<double>{-0.0, 0.0}, "-0 + 0 f64");
  run_case(std::vector<float>{1.0f, fi, 2.0f}, "+inf f32");
  run_case(std::vector<float>{1.0f, fi, -fi}, "inf - inf f32");
  run_case(std::vector<double>{std::nan(""), 1.0}, "NaN f64");
  run_case(std::vector<double>{DBL_MAX, DBL_MAX, -di}, "-inf f64");
  run_case(std::vector<double>{DBL_MAX, DBL_MAX, DBL_MAX, -DBL_MAX}, "f64 partial sums beyond DBL_MAX");
  run_case(std::vector<float>(small() ? 30'000 : 3'000'000, FLT_MAX), "f32 sum beyond FLT_MAX, exact in f64");
  std::vector<float> cancel;
  for (int i = 0; i < (small() ? 20000 : 200000); ++i) {
    const float v = std::ldexp(1.0f + static_cast<float>(i % 1000) / 1024, i % 250 - 125);
    cancel.push_back(v);
    cancel.push_back(-v);
  }
  cancel.push_back(std::numeric_limits<float>::denorm_min());
  std::shuffle(cancel.begin(), cancel.end(), rng);
  run_case(cancel, "f32 cancellation down to one subnormal");
}

}  // namespace
}  // namespace accucheck
