// fp8_codec_dump: fp8.h's codec as text, for fp8_vs_ml_dtypes.py to compare with ml-dtypes.
//   fp8_codec_dump decode   256 lines "code e4m3_bits e4m3_class e5m2_bits e5m2_class": each code's
//                           value as the bits of a double (16 hex digits) and its class
//   fp8_codec_dump encode   reads doubles as 16 hex digits of their bits, one a line; writes
//                           "e4m3 e4m3_saturating e5m2 e5m2_saturating", the codes in hex
#include <bit>
#include <cinttypes>
#include <cstdio>
#include <cstring>

#include "numerics/fp8.h"

namespace {

const char* class_name(accucheck::FloatClass c) {
  switch (c) {
    case accucheck::FloatClass::zero: return "zero";
    case accucheck::FloatClass::subnormal: return "subnormal";
    case accucheck::FloatClass::normal: return "normal";
    case accucheck::FloatClass::infinite: return "infinite";
    case accucheck::FloatClass::nan: return "nan";
  }
  return "?";
}

}  // namespace

int main(int argc, char** argv) {
  using namespace accucheck;
  if (argc == 2 && std::strcmp(argv[1], "decode") == 0) {
    for (int code = 0; code < 256; ++code) {
      std::printf("%02x", code);
      for (Format f : fp8_formats)
        std::printf(" %016" PRIx64 " %s", std::bit_cast<std::uint64_t>(fp8_decode(code, f)),
                    class_name(classify(fp8_decode(code, f), f)));
      std::printf("\n");
    }
    return 0;
  }
  if (argc == 2 && std::strcmp(argv[1], "encode") == 0) {
    std::uint64_t bits;
    while (std::scanf("%" SCNx64, &bits) == 1) {
      const double x = std::bit_cast<double>(bits);
      for (Format f : fp8_formats)
        std::printf("%02x %02x ", fp8_encode(x, f), fp8_encode(x, f, Fp8Overflow::saturating));
      std::printf("\n");
    }
    return 0;
  }
  std::fprintf(stderr, "usage: fp8_codec_dump decode | encode < doubles-as-hex-bits\n");
  return 2;
}
