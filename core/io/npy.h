// NumPy .npy files (format versions 1.0, 2.0 and 3.0): reading the arrays that a training run
// dumps with numpy.save, and writing them.
//
// Supported: little-endian dtypes '<f8' '<f4' '<f2' '<u2' '<i4' '<i8' ('=' and '|' byte orders
// are not written by numpy for these) and uint8 '|u1' ('<u1' and '>u1' read as it), C order only (fortran_order True is
// refused), any shape. Reading is bounds-checked throughout: every error is an NpyError whose message names the file
// and what is wrong ("grads.npy: header: dtype '>f4' is big-endian ..."). The format:
// https://numpy.org/doc/stable/reference/generated/numpy.lib.format.html
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/format.h"

namespace accucheck {

struct NpyError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// u8 last: the values before it keep their numbers.
enum class NpyDtype : std::uint8_t { f64, f32, f16, u16, i32, i64, u8 };
std::string_view npy_descr(NpyDtype d);  // "<f8", ...
std::size_t npy_item_size(NpyDtype d);
// Element `flat` of a C-ordered array of this shape, as "(1, 2)" ("(5)" for one dimension or none).
std::string npy_index_text(std::span<const std::size_t> shape, std::size_t flat);

struct NpyLimits {
  std::uint64_t max_bytes = std::uint64_t{16} << 30;  // data larger than this is refused before reading
  std::size_t max_dimensions = 32;
};

struct NpyArray {
  std::string source;  // the file name (or what the bytes came from), for messages
  int version = 1;     // major format version
  NpyDtype dtype = NpyDtype::f32;
  std::vector<std::size_t> shape;   // () for a scalar
  std::vector<unsigned char> data;  // count() * item size bytes, little-endian, C order

  std::size_t count() const;       // product of the shape (1 for a scalar)
  std::string shape_text() const;  // "(16, 8, 3)"

  // The float format of the data: f64, f32, f16; uint16 is bf16 when `u16_is_bf16`, uint8 is
  // `u8_fp8` (e4m3 or e5m2) when given (bit patterns: numpy has neither type; PyTorch's
  // tensor.view(torch.uint16 or torch.uint8) writes them). nullopt for the integer dtypes (and
  // uint16, uint8 without their flag).
  std::optional<Format> float_format(bool u16_is_bf16 = false, std::optional<Format> u8_fp8 = std::nullopt) const;
  // Every value as a double (exact for each float format). Throws NpyError for integers.
  std::vector<double> floats(bool u16_is_bf16 = false, std::optional<Format> u8_fp8 = std::nullopt) const;
  // Every value of an integer dtype (i4, i8, u2, u1) as int64. Throws NpyError for floats.
  std::vector<std::int64_t> integers() const;
};

// Parses a whole .npy file's bytes.
NpyArray parse_npy(std::span<const unsigned char> bytes, const std::string& source, const NpyLimits& limits = {});
// Reads a file: the header first, so that an absurd shape is refused before any allocation.
NpyArray read_npy(const std::string& path, const NpyLimits& limits = {});

// A .npy file (version 1.0, or 2.0 when the header needs it) holding `data` (count * item
// size little-endian bytes).
std::vector<unsigned char> npy_bytes(NpyDtype dtype, std::span<const std::size_t> shape,
                                     std::span<const unsigned char> data);
// Values of a float format written as '<f8', '<f4', '<f2', '<u2' bit patterns for bf16, or
// '|u1' bit patterns for E4M3 and E5M2.
std::vector<unsigned char> npy_bytes(Format format, std::span<const std::size_t> shape, std::span<const double> values);
// Writes atomically (temporary file and rename).
void write_npy(const std::string& path, Format format, std::span<const std::size_t> shape,
               std::span<const double> values);

}  // namespace accucheck
