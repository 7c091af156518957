// A counter-based random number generator: word(key, counter) is a pure function, so a model
// that draws "the k-th random word of element j at step t under seed s" gets the same word no
// matter in which order it asks (the property of Philox and other counter-based generators,
// Salmon et al., SC 2011). The mixing function is core's splitmix64 (hash.h), applied once per
// coordinate, which passes BigCrush as a counter hash.
#pragma once

#include <cstdint>

#include "numerics/hash.h"

namespace accucheck::impls {

// The random word at counter (a, b, c) under `seed`: each coordinate is mixed in turn, so
// neighbouring counters give independent-looking words.
inline std::uint64_t counter_word(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  return splitmix64(splitmix64(splitmix64(splitmix64(seed) ^ a) ^ b) ^ c);
}

// A stream of words for one counter prefix: word k is counter_word(seed, a, b, k).
class CounterStream {
 public:
  CounterStream(std::uint64_t seed, std::uint64_t a, std::uint64_t b)
      : prefix_(splitmix64(splitmix64(splitmix64(seed) ^ a) ^ b)) {}
  std::uint64_t next() { return splitmix64(prefix_ ^ index_++); }
  // Uniform in [0, n) for n >= 1 (Lemire's multiply-shift; the bias is below n / 2^64).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }

 private:
  std::uint64_t prefix_;
  std::uint64_t index_ = 0;
};

}  // namespace accucheck::impls
