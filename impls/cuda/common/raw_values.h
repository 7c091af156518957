// Workload values as the kernels' raw values (f64 as double, f32 as float, f16 and bf16 as their
// 16-bit patterns) and as columns (`elements` sums of n terms each, sum j's terms contiguous at
// [j*n, (j+1)*n) in summation order, the buffer's value first): the registrations' side of
// every <family>/kernels.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "checking/backend.h"
#include "numerics/soft_float.h"

namespace accucheck::cuda {

inline std::size_t raw_size(Format f) { return f == Format::f64 ? 8 : f == Format::f32 ? 4 : 2; }

inline void put_raw(std::vector<unsigned char>& out, std::size_t at, double v, Format f) {
  switch (f) {
    case Format::f64: std::memcpy(out.data() + at * 8, &v, 8); return;
    case Format::f32: {
      const float x = static_cast<float>(v);
      std::memcpy(out.data() + at * 4, &x, 4);
      return;
    }
    default: {
      const auto bits = static_cast<std::uint16_t>(encode(v, f));
      std::memcpy(out.data() + at * 2, &bits, 2);
      return;
    }
  }
}

inline double get_raw(const std::vector<unsigned char>& in, std::size_t at, Format f) {
  switch (f) {
    case Format::f64: {
      double v;
      std::memcpy(&v, in.data() + at * 8, 8);
      return v;
    }
    case Format::f32: {
      float x;
      std::memcpy(&x, in.data() + at * 4, 4);
      return x;
    }
    default: {
      std::uint16_t bits;
      std::memcpy(&bits, in.data() + at * 2, 2);
      return decode(bits, f);
    }
  }
}

inline double term(const DenseWorkload& w, std::size_t i, std::size_t j) {
  return i == 0 ? w.initial[j] : w.addends[(i - 1) * w.elements + j];
}

// Sum j's terms at [j*n, (j+1)*n), raw values of `as` (the storage format, or f32 for the
// exact kernel's float path).
inline std::vector<unsigned char> columns(const DenseWorkload& w, Format as) {
  const std::size_t n = w.steps + 1;
  std::vector<unsigned char> out(n * w.elements * raw_size(as));
  for (std::size_t j = 0; j < w.elements; ++j)
    for (std::size_t i = 0; i < n; ++i) put_raw(out, j * n + i, term(w, i, j), as);
  return out;
}

// A column kernel of <family>/kernels.h as a dense run in format f.
using ColumnKernel = void (*)(Format, const void*, std::size_t, std::size_t, void*);

inline DenseRun column_run(ColumnKernel kernel, Format f) {
  return [kernel, f](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    const auto in = columns(w, f);
    std::vector<unsigned char> out(w.elements * raw_size(f));
    kernel(f, in.data(), w.steps + 1, w.elements, out.data());
    for (std::size_t j = 0; j < w.elements; ++j) result[j] = get_raw(out, j, f);
  };
}

}  // namespace accucheck::cuda
