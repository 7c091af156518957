// The .npy reader and writer: every dtype and header version, the exact bytes numpy writes,
// and every malformed file refused with its name and what is wrong.
#include "io/npy.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

namespace accucheck {
namespace {

using Bytes = std::vector<unsigned char>;

// A .npy file with a hand-written header (padded like numpy's, ending in '\n').
Bytes npy_file(const std::string& dict, const Bytes& data, int major = 1, bool pad = true) {
  std::string header = dict;
  const std::size_t prefix = major == 1 ? 10 : 12;
  if (pad)
    while ((prefix + header.size() + 1) % 64) header += ' ';
  header += '\n';
  Bytes out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<unsigned char>(major), 0};
  const std::size_t n = header.size();
  out.push_back(n & 0xff);
  out.push_back((n >> 8) & 0xff);
  if (major != 1) {
    out.push_back((n >> 16) & 0xff);
    out.push_back((n >> 24) & 0xff);
  }
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

template <class T>
Bytes bytes_of(std::initializer_list<T> values) {
  Bytes out(values.size() * sizeof(T));
  std::size_t i = 0;
  for (T v : values) std::memcpy(out.data() + sizeof(T) * i++, &v, sizeof(T));
  return out;
}

std::string error_of(const Bytes& file, const std::string& source = "grads.npy") {
  try {
    parse_npy(file, source);
  } catch (const NpyError& e) {
    return e.what();
  }
  return "(no error)";
}

#define EXPECT_ERROR(file, text)                                 \
  do {                                                           \
    const std::string message = error_of(file);                  \
    EXPECT_EQ(message.rfind("grads.npy: ", 0), 0u) << message;   \
    EXPECT_NE(message.find(text), std::string::npos) << message; \
  } while (0)

TEST(Npy, ReadsTheBytesNumpyWrites) {
  // numpy.save("x.npy", numpy.array([[1, 2, 3], [4, 5, 6.5]], dtype=numpy.float32)), byte for byte.
  const Bytes file =
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", bytes_of<float>({1, 2, 3, 4, 5, 6.5f}));
  ASSERT_EQ(file.size(), 128u + 24u) << "numpy pads the header to 64 bytes in all";
  const NpyArray a = parse_npy(file, "x.npy");
  EXPECT_EQ(a.dtype, NpyDtype::f32);
  EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3}));
  EXPECT_EQ(a.shape_text(), "(2, 3)");
  EXPECT_EQ(a.float_format(), Format::f32);
  EXPECT_EQ(a.floats(), (std::vector<double>{1, 2, 3, 4, 5, 6.5}));
}

TEST(Npy, EveryDtype) {
  EXPECT_EQ(
      parse_npy(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }", bytes_of<double>({0.1, -1e300})),
                "a")
          .floats(),
      (std::vector<double>{0.1, -1e300}));
  // float16: 1.0, the smallest subnormal 2^-24, -65504, +inf.
  const NpyArray h = parse_npy(npy_file("{'descr': '<f2', 'fortran_order': False, 'shape': (4,), }",
                                        bytes_of<std::uint16_t>({0x3c00, 0x0001, 0xfbff, 0x7c00})),
                               "h");
  EXPECT_EQ(h.float_format(), Format::f16);
  EXPECT_EQ(h.floats(), (std::vector<double>{1.0, std::ldexp(1.0, -24), -65504.0, INFINITY}));
  // uint16: bfloat16 bit patterns only when asked.
  const NpyArray b = parse_npy(npy_file("{'descr': '<u2', 'fortran_order': False, 'shape': (3,), }",
                                        bytes_of<std::uint16_t>({0x3f80, 0xc040, 0x0001})),
                               "b");
  EXPECT_EQ(b.float_format(), std::nullopt);
  EXPECT_EQ(b.float_format(true), Format::bf16);
  EXPECT_EQ(b.floats(true), (std::vector<double>{1.0, -3.0, std::ldexp(1.0, -133)}));
  EXPECT_THROW(b.floats(false), NpyError);
  EXPECT_EQ(b.integers(), (std::vector<std::int64_t>{0x3f80, 0xc040, 1}));
  EXPECT_EQ(parse_npy(npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (3,), }",
                               bytes_of<std::int32_t>({-1, 0, 7})),
                      "i")
                .integers(),
            (std::vector<std::int64_t>{-1, 0, 7}));
  const NpyArray i8 = parse_npy(
      npy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (2,), }", bytes_of<std::int64_t>({1LL << 40, -5})),
      "j");
  EXPECT_EQ(i8.integers(), (std::vector<std::int64_t>{1LL << 40, -5}));
  EXPECT_THROW(i8.floats(), NpyError);
  EXPECT_THROW(
      parse_npy(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", bytes_of<float>({1})), "f")
          .integers(),
      NpyError);
}

TEST(Npy, HeaderVersionsAndLayouts) {
  // Version 2.0 and 3.0 (4-byte header length; 3.0 allows UTF-8), keys in any order, double
  // quotes, no trailing comma, scalars, zero-sized dimensions, Python 2 longs.
  for (int major : {2, 3}) {
    const NpyArray a = parse_npy(
        npy_file("{\"shape\": (3,), \"fortran_order\": False, \"descr\": \"<f8\"}", bytes_of<double>({1, 2, 3}), major),
        "v");
    EXPECT_EQ(a.version, major);
    EXPECT_EQ(a.count(), 3u);
  }
  const NpyArray scalar =
      parse_npy(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", bytes_of<float>({2.5f})), "s");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.count(), 1u);
  EXPECT_EQ(scalar.shape_text(), "()");
  const NpyArray empty = parse_npy(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }", {}), "e");
  EXPECT_EQ(empty.count(), 0u);
  EXPECT_EQ(
      parse_npy(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1L, 2L), }", bytes_of<float>({1, 2})), "l")
          .count(),
      2u);
  // An unpadded header is accepted too (numpy itself reads it).
  EXPECT_EQ(
      parse_npy(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", bytes_of<float>({1}), 1, false),
                "u")
          .count(),
      1u);
}

TEST(Npy, WriterRoundTripsEveryFormat) {
  const std::size_t shape[] = {2, 3};
  const double values[] = {1.0, -0.0, 0.5, INFINITY, 3.0, -2.0};
  for (Format f : all_formats) {
    const Bytes file = npy_bytes(f, shape, values);
    EXPECT_EQ(file.size() % 2, 0u);
    const NpyArray a = parse_npy(file, "w");
    EXPECT_EQ(a.shape, (std::vector<std::size_t>{2, 3}));
    const auto back = a.floats(f == Format::bf16);
    ASSERT_EQ(back.size(), 6u);
    for (std::size_t i = 0; i < 6; ++i) {
      EXPECT_EQ(back[i], values[i]) << name(f);
      EXPECT_EQ(std::signbit(back[i]), std::signbit(values[i])) << name(f);
    }
  }
  const std::string path = ::testing::TempDir() + "/npy_test_roundtrip.npy";
  const std::size_t shape3[] = {1, 2, 3};
  write_npy(path, Format::f16, shape3, values);
  const NpyArray r = read_npy(path);
  EXPECT_EQ(r.dtype, NpyDtype::f16);
  EXPECT_EQ(r.shape, (std::vector<std::size_t>{1, 2, 3}));
  EXPECT_EQ(r.source, path);
  EXPECT_THROW(write_npy(path, Format::f32, shape, std::span<const double>(values, 5)), NpyError);
}

// FP8 as uint8 bit patterns ('|u1', as numpy writes uint8; '<u1' read too): E4M3 0x7e is 448
// and 0x01 its smallest subnormal 2^-9, E5M2 0x7b is 57344 and 0xfc -inf (OCP FP8, Table 1);
// the same bytes are integers, and no floats without the format; the writer round-trips.
TEST(Npy, Fp8BitPatternsAsUint8) {
  const Bytes bytes = {0x7e, 0x01, 0xb8, 0x7b, 0xfc};
  const NpyArray a = parse_npy(npy_file("{'descr': '|u1', 'fortran_order': False, 'shape': (5,), }", bytes), "u8");
  EXPECT_EQ(a.dtype, NpyDtype::u8);
  EXPECT_EQ(a.float_format(), std::nullopt);
  EXPECT_EQ(a.float_format(false, Format::e4m3), Format::e4m3);
  const auto e4m3 = a.floats(false, Format::e4m3);
  EXPECT_EQ(e4m3[0], 448.0);
  EXPECT_EQ(e4m3[1], std::ldexp(1.0, -9));
  EXPECT_EQ(e4m3[2], -1.0);  // 1.0111.000
  const auto e5m2 = a.floats(false, Format::e5m2);
  EXPECT_EQ(e5m2[3], 57344.0);
  EXPECT_EQ(e5m2[4], -INFINITY);
  EXPECT_EQ(a.integers(), (std::vector<std::int64_t>{0x7e, 1, 0xb8, 0x7b, 0xfc}));
  try {
    (void)a.floats();
    ADD_FAILURE() << "uint8 read as floats without a format";
  } catch (const NpyError& e) {
    EXPECT_NE(std::string(e.what()).find("--fp8"), std::string::npos) << e.what();
  }
  EXPECT_EQ(parse_npy(npy_file("{'descr': '<u1', 'fortran_order': False, 'shape': (5,), }", bytes), "u8").dtype,
            NpyDtype::u8);
  const std::size_t shape[] = {5};
  for (Format f : fp8_formats) {
    const NpyArray back = parse_npy(npy_bytes(f, shape, a.floats(false, f)), "w");
    EXPECT_EQ(back.dtype, NpyDtype::u8);
    EXPECT_EQ(back.data, a.data) << name(f);
  }
}

TEST(Npy, MalformedFilesAreRefusedWithTheirNameAndTheFault) {
  const Bytes good =
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }", bytes_of<float>({1, 2, 3, 4, 5, 6}));
  EXPECT_ERROR(Bytes{}, "too short to be a .npy file (0 bytes)");
  EXPECT_ERROR(Bytes(good.begin(), good.begin() + 9), "too short");
  Bytes magic = good;
  magic[1] = 'X';
  EXPECT_ERROR(magic, "not a .npy file: the magic string is '\\x93XUMPY'");
  Bytes text(40, 'a');
  EXPECT_ERROR(text, "not a .npy file");
  Bytes version = good;
  version[6] = 4;
  EXPECT_ERROR(version, "format version 4.0 is not supported");
  Bytes long_header = good;
  long_header[8] = 0xff;
  long_header[9] = 0xff;
  EXPECT_ERROR(long_header, "header: length 65535 runs past the end of the file");
  EXPECT_ERROR(Bytes(good.begin(), good.begin() + 60), "runs past the end of the file (60 bytes): truncated");
  EXPECT_ERROR(Bytes(good.begin(), good.end() - 1),
               "data: truncated: shape (2, 3) of <f4 needs 24 bytes, the file has 23 after the header");
  Bytes trailing = good;
  trailing.push_back(0);
  EXPECT_ERROR(trailing, "data: 1 bytes after the end of the array");
  EXPECT_ERROR(npy_file("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", bytes_of<float>({1})),
               "dtype '>f4' is big-endian; save it as little-endian (arr.astype('<f4'))");
  EXPECT_ERROR(npy_file("{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", Bytes(8)),
               "dtype '<c8' is not supported");
  EXPECT_ERROR(npy_file("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", Bytes(1)),
               "dtype '|b1' is not supported");
  EXPECT_ERROR(npy_file("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }", Bytes(4)),
               "structured dtype");
  EXPECT_ERROR(
      npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", bytes_of<float>({1, 2, 3, 4, 5, 6})),
      "fortran_order is True");
  EXPECT_ERROR(npy_file("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,), }", Bytes(4)),
               "fortran_order must be True or False");
  EXPECT_ERROR(npy_file("{'descr': '<f4', 'shape': (1,), }", Bytes(4)), "no 'fortran_order'");
  EXPECT_ERROR(npy_file("{'fortran_order': False, 'shape': (1,), }", Bytes(4)), "no 'descr'");
  EXPECT_ERROR(npy_file("{'descr': '<f4', 'fortran_order': False, }", Bytes(4)), "no 'shape'");
  EXPECT_ERROR(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'extra': 1}", Bytes(4)),
               "unknown key 'extra'");
  EXPECT_ERROR(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }", Bytes(4)),
               "shape must be a tuple of non-negative integers");
  EXPECT_ERROR(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': [1], }", Bytes(4)), "shape must be a tuple");
  EXPECT_ERROR(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,) ", Bytes(4)), "expected ',' or '}'");
  EXPECT_ERROR(npy_file("['descr', '<f4']", Bytes(4)), "must be a Python dict literal");
  EXPECT_ERROR(npy_file("{'descr: '<f4', 'fortran_order': False, 'shape': (1,), }", Bytes(4)), "header:");
  // Absurd sizes are refused from the header alone, before anything is allocated.
  EXPECT_ERROR(
      npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4611686018427387904), }",
               Bytes(8)),
      "is absurdly large");
  EXPECT_ERROR(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999999,), }", Bytes(8)),
               "absurdly large");
  EXPECT_ERROR(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 64), }", Bytes(8)),
               "more than the limit");
  std::string many = "(";
  for (int i = 0; i < 40; ++i) many += "1, ";
  EXPECT_ERROR(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': " + many + "), }", Bytes(4)),
               "more than 32 dimensions");
  Bytes non_ascii = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", Bytes(4));
  non_ascii[20] = 0xe9;
  EXPECT_ERROR(non_ascii, "non-ASCII");
}

TEST(Npy, HandMadeArraysAreCheckedBeforeReading) {
  NpyArray a;
  a.source = "made.npy";
  a.dtype = NpyDtype::f32;
  a.shape = {4, 2};
  a.data.resize(28);  // 8 floats need 32 bytes
  EXPECT_THROW(a.floats(), NpyError);
  a.dtype = NpyDtype::i64;
  EXPECT_THROW(a.integers(), NpyError);
  a.data.resize(64);
  EXPECT_EQ(a.integers().size(), 8u);
}

TEST(Npy, FilesAreReadHeaderFirst) {
  const std::string dir = ::testing::TempDir();
  try {
    read_npy(dir + "/does_not_exist.npy");
    FAIL();
  } catch (const NpyError& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/does_not_exist.npy: cannot open"), std::string::npos) << e.what();
  }
  try {
    read_npy(dir);
    FAIL();
  } catch (const NpyError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  // A header that promises a terabyte on a tiny file: refused, nothing allocated.
  const std::string huge = dir + "/npy_test_huge.npy";
  const Bytes file = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (262144, 1048576), }", Bytes(16));
  FILE* f = std::fopen(huge.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  std::fwrite(file.data(), 1, file.size(), f);
  std::fclose(f);
  try {
    read_npy(huge);
    FAIL();
  } catch (const NpyError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  huge + ": header: shape (262144, 1048576) of <f4 is 1099511627776 bytes, more than the limit"),
              std::string::npos)
        << e.what();
  }
  NpyLimits small;
  small.max_bytes = 1 << 30;
  const std::string ok = dir + "/npy_test_tiny_header.npy";
  // A header of length 0 and 1 leaves data in the prefix bytes the reader fetched first.
  const Bytes tiny = npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", bytes_of<float>({1, 2, 3}));
  f = std::fopen(ok.c_str(), "wb");
  std::fwrite(tiny.data(), 1, tiny.size(), f);
  std::fclose(f);
  EXPECT_EQ(read_npy(ok, small).floats(), (std::vector<double>{1, 2, 3}));
}

}  // namespace
}  // namespace accucheck
