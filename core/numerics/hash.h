// SplitMix64 and 64-bit FNV-1a, the two hashes behind every seeded stream and every
// content-named file (seeds a campaign prints, committed corpora, case-file and seed names):
// defined once here. Their outputs are part of what a seed or a file name means, so they
// never change; core/numerics/hash_test.cpp pins the published values.
//
// Usable from CUDA device code too (impls/cuda/kernels fill test data with splitmix64).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#if defined(__CUDACC__)
#define ACCUCHECK_HOST_DEVICE __host__ __device__
#else
#define ACCUCHECK_HOST_DEVICE
#endif

namespace accucheck {

// SplitMix64 (Steele, Lea & Flood, OOPSLA 2014; Vigna's splitmix64.c). The state advances by
// the golden gamma, 2^64 / phi, and each output is the state mixed by a fixed bijection.
inline constexpr std::uint64_t kSplitMix64Gamma = 0x9e3779b97f4a7c15ULL;

// The word a SplitMix64 generator in state z returns. A bijection of 64-bit words that passes
// BigCrush as a counter hash, so it also serves as a mixer of seeds and counters.
ACCUCHECK_HOST_DEVICE constexpr std::uint64_t splitmix64(std::uint64_t z) {
  z += kSplitMix64Gamma;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// The generator: next() returns splitmix64 of the state, then advances the state by the gamma.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t seed) : state_(seed) {}
  constexpr std::uint64_t next() {
    const std::uint64_t z = state_;
    state_ += kSplitMix64Gamma;
    return splitmix64(z);
  }

 private:
  std::uint64_t state_;
};

// 64-bit FNV-1a (Fowler, Noll, Vo): h = (h ^ byte) * prime over the bytes, from the offset basis.
inline constexpr std::uint64_t kFnv1aOffsetBasis = 0xcbf29ce484222325ULL;
inline constexpr std::uint64_t kFnv1aPrime = 0x100000001b3ULL;

// The hash of `bytes`, continuing from `hash` (a hash of what came before them).
constexpr std::uint64_t fnv1a(std::span<const std::uint8_t> bytes, std::uint64_t hash = kFnv1aOffsetBasis) {
  for (std::uint8_t b : bytes) hash = (hash ^ b) * kFnv1aPrime;
  return hash;
}
constexpr std::uint64_t fnv1a(std::string_view text, std::uint64_t hash = kFnv1aOffsetBasis) {
  for (char c : text) hash = (hash ^ static_cast<unsigned char>(c)) * kFnv1aPrime;
  return hash;
}
// The eight bytes of `word`, least significant first, continuing from `hash`.
constexpr std::uint64_t fnv1a_le64(std::uint64_t word, std::uint64_t hash = kFnv1aOffsetBasis) {
  for (int i = 0; i < 8; ++i) hash = (hash ^ ((word >> (8 * i)) & 0xff)) * kFnv1aPrime;
  return hash;
}

}  // namespace accucheck
