// A stand-in for libFuzzer's LLVMFuzzerMutate in builds without libFuzzer (the replay main,
// accucheck_fuzz_tool), so that the custom mutators also run, and are tested, there.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

// One byte changed, inserted or erased.
extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size) {
  if (max_size == 0) return 0;
  static std::uint64_t state = 0x853c49e6748fea9bULL;
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  const std::uint64_t r = state >> 33;
  if (size == 0 || (r % 3 == 0 && size < max_size)) {
    const std::size_t at = size ? r % (size + 1) : 0;
    std::memmove(data + at + 1, data + at, size - at);
    data[at] = static_cast<std::uint8_t>(r >> 8);
    return size + 1;
  }
  if (r % 3 == 1 && size > 1) {
    const std::size_t at = r % size;
    std::memmove(data + at, data + at + 1, size - at - 1);
    return size - 1;
  }
  data[r % size] ^= static_cast<std::uint8_t>(1u << (r >> 8) % 8);
  return std::min(size, max_size);
}
