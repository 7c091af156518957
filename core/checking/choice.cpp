#include "checking/choice.h"

namespace accucheck {

int bytes_for_bound(std::uint64_t bound) {
  int bytes = 0;
  while (bound) {
    ++bytes;
    bound >>= 8;
  }
  return bytes;
}

std::uint64_t ByteChoiceStream::draw(std::uint64_t bound) {
  if (bound == 0) return 0;
  std::uint64_t value = 0;
  const int count = bytes_for_bound(bound);
  for (int i = 0; i < count; ++i) {
    value <<= 8;
    if (position_ < bytes_.size()) value |= bytes_[position_];
    ++position_;
  }
  // Values above the bound wrap; small byte values stay small choices.
  return bound == ~std::uint64_t{0} ? value : value % (bound + 1);
}

void ChoiceWriter::put(std::uint64_t value, std::uint64_t bound) {
  const int count = bytes_for_bound(bound);
  for (int i = count - 1; i >= 0; --i) bytes_.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

std::uint64_t SeededChoiceStream::draw(std::uint64_t bound) {
  const std::uint64_t x = next();
  if (bound == ~std::uint64_t{0}) return x;
  // Lemire's multiply-shift reduction (bias below 2^-64 * bound: irrelevant here).
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(x) * (bound + 1)) >> 64);
}

std::uint64_t RecordingChoiceStream::draw(std::uint64_t bound) {
  const std::uint64_t value = source_.draw(bound);
  const int count = bytes_for_bound(bound);
  for (int i = count - 1; i >= 0; --i) bytes_.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  return value;
}

}  // namespace accucheck
