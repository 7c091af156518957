// Summation orders of the tree backends (impls/cpu/pairwise.cpp, blocked.cpp, lanes.cpp),
// restated from their definitions as templates over the value type: on float they must give
// the backends' bits (impls/tests/backends_test.cpp), on Depth the height of the tree they
// build, which core's tree_height must match (core/tests/bound_test.cpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>

namespace accucheck::test {

// The number of roundings on the longest leaf-to-root path. Adding an empty value (the -0
// identity of the lanes backend) is exact, so it does not count.
struct Depth {
  int depth = 0;
  bool empty = false;
  friend Depth operator+(Depth a, Depth b) {
    if (a.empty) return b;
    if (b.empty) return a;
    return {std::max(a.depth, b.depth) + 1, false};
  }
};

// The lanes' starting value: adding it changes nothing.
template <class T> T identity();
template <> inline float identity<float>() { return -0.0f; }
template <> inline Depth identity<Depth>() { return {0, true}; }

// NumPy's pairwise_sum: a left-to-right loop below 8 terms; up to 128, eight strided partial
// sums combined by a fixed 3-level tree, then the remainder left to right; above 128, the two
// halves, split at a multiple of 8.
template <class T>
T model_numpy(const T* a, std::size_t n) {
  if (n > 128) {
    const std::size_t half = n / 2 - (n / 2) % 8;
    return model_numpy(a, half) + model_numpy(a + half, n - half);
  }
  if (n < 8) return std::accumulate(a + 1, a + n, a[0]);
  const std::size_t strided = n - n % 8;
  T r[8];
  std::copy(a, a + 8, r);
  for (std::size_t i = 8; i < strided; ++i) r[i % 8] = r[i % 8] + a[i];
  const T tree = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
  return std::accumulate(a + strided, a + n, tree);
}

// Blocks of b terms, each summed left to right, the block sums added left to right.
template <class T>
T model_blocked(const T* x, std::size_t n, std::size_t b) {
  T total{};
  for (std::size_t start = 0; start < n; start += b) {
    const T block = std::accumulate(x + start + 1, x + std::min(n, start + b), x[start]);
    total = start == 0 ? block : total + block;
  }
  return total;
}

// 8 lanes (term i into lane i mod 8), combined by a balanced tree.
template <class T>
T model_lanes8(const T* x, std::size_t n) {
  T lane[8];
  std::fill(lane, lane + 8, identity<T>());
  for (std::size_t i = 0; i < n; ++i) lane[i % 8] = i < 8 ? x[i] : lane[i % 8] + x[i];
  return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
}

// Recursive halving (the textbook pairwise tree).
inline Depth model_halving(std::size_t n) {
  if (n == 1) return {0, false};
  return model_halving(n / 2) + model_halving(n - n / 2);
}

}  // namespace accucheck::test
