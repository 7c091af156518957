// Shared by CPU backend files: run a summation over each element's addends in a storage type,
// and make one backend per format for a single ACCUCHECK_REGISTER_BACKEND line.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "checking/backend.h"
#include "numerics/soft_float.h"

namespace accucheck::impls {

// The values in storage type T (each rounded to nearest: exact for values of T's format).
template <class T>
std::vector<T> stored_as(const std::vector<double>& values) {
  std::vector<T> stored(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) stored[i] = from_value<T>(values[i]);
  return stored;
}

// The stored values back as doubles, into result (at least as long).
template <class T>
void write_values(const std::vector<T>& stored, std::span<double> result) {
  for (std::size_t i = 0; i < stored.size(); ++i) result[i] = to_value(stored[i]);
}

// Calls sum(std::span<const T>) on each element's addends (initial value first) in type T.
template <class T, class Sum>
void sum_each_element(const DenseWorkload& w, std::span<double> result, const Sum& sum) {
  std::vector<T> column(w.steps + 1);
  for (std::size_t j = 0; j < w.elements; ++j) {
    column[0] = from_value<T>(w.initial[j]);
    for (std::size_t t = 0; t < w.steps; ++t) column[t + 1] = from_value<T>(w.addends[t * w.elements + j]);
    result[j] = to_value(sum(std::span<const T>(column)));
  }
}

// The dense run that sums each element's addends in T with a default-constructed Sum.
template <class T, class Sum>
DenseRun sum_each_element_with() {
  return [](const DenseWorkload& w, std::span<double> result, const RunOptions&) {
    sum_each_element<T>(w, result, [](std::span<const T> x) { return Sum{}(x); });
  };
}

// A product workload's output elements in T, row-major like the buffer C: result[m * cols + n]
// is element(m, n, c) for c = C[m][n] converted to T.
template <class T, class Element>
void each_product_element(const ProductWorkload& w, std::span<double> result, const Element& element) {
  for (std::size_t m = 0; m < w.rows; ++m)
    for (std::size_t n = 0; n < w.cols; ++n)
      result[m * w.cols + n] = to_value(element(m, n, from_value<T>(w.initial[m * w.cols + n])));
}

// The bound of a sum accumulated in `accumulation` and rounded once into `storage`, whose bound in
// the accumulation format is `inner` applied to it ("tree(pairwise," gives tree(pairwise,A)):
// INNER(A), or widened(INNER(A),S) when the formats differ (docs/bounds.md, widened(INNER,F)).
inline std::string then_rounded_bound(const std::string& inner, Format storage, Format accumulation) {
  const std::string in_accumulation = inner + std::string(name(accumulation)) + ")";
  return storage == accumulation ? in_accumulation
                                 : "widened(" + in_accumulation + "," + std::string(name(storage)) + ")";
}
// The same for an in-order sum: recursive(A) or widened(recursive(A),S).
inline std::string recursive_then_rounded_bound(Format storage, Format accumulation) {
  return then_rounded_bound("recursive(", storage, accumulation);
}

// "{F}" in a name or bound template becomes the format's name.
inline std::string with_format(std::string text, Format f) {
  for (auto at = text.find("{F}"); at != std::string::npos; at = text.find("{F}")) text.replace(at, 3, name(f));
  return text;
}

// One backend <name>_<format> per format in `formats`, each accumulating in its own storage
// format with a per-element functor Sum (a template operator() over the storage type):
//   ACCUCHECK_REGISTER_BACKEND(per_format<NaiveSum>("naive", "recursive({F})",
//                                                   Determinism::bitwise_deterministic, "what it does", every_format));
template <class Sum>
std::vector<Backend> per_format(const char* name, const char* bound, Determinism determinism, const char* summary,
                                std::initializer_list<Format> formats) {
  std::vector<Backend> backends;
  for (Format f : formats) {
    DenseRun run;
    switch (f) {
      case Format::f64: run = sum_each_element_with<double, Sum>(); break;
      case Format::f32: run = sum_each_element_with<float, Sum>(); break;
      case Format::f16: run = sum_each_element_with<Half, Sum>(); break;
      case Format::bf16: run = sum_each_element_with<BFloat16, Sum>(); break;
      case Format::e4m3:
      case Format::e5m2: throw std::logic_error("no per-element backend stores fp8 values");
    }
    backends.push_back(dense_backend(with_format(std::string(name) + "_{F}", f), f, f, with_format(bound, f),
                                     determinism, summary, std::move(run)));
  }
  return backends;
}

// One backend per storage type in Types (float, Half, ...), each accumulating in its own format.
// "{F}" in the name, the bound and the summary becomes the format's name; `make` is dense_backend,
// sparse_backend or product_backend, and run_for.template operator()<T>() is the run for T:
//   ACCUCHECK_REGISTER_BACKEND(in_formats<float, Half>(dense_backend, []<class T>() { return &my_run<T>; },
//                                                      "mine_{F}", "recursive({F})",
//                                                      Determinism::bitwise_deterministic, "what it does"));
template <class... Types, class Make, class RunFor>
std::vector<Backend> in_formats(Make make, RunFor run_for, const std::string& name, const std::string& bound,
                                Determinism determinism, const std::string& summary) {
  return {make(with_format(name, storage_format_v<Types>), storage_format_v<Types>, storage_format_v<Types>,
               with_format(bound, storage_format_v<Types>), determinism, with_format(summary, storage_format_v<Types>),
               run_for.template operator()<Types>())...};
}

inline constexpr std::initializer_list<Format> every_format = {Format::f64, Format::f32, Format::f16, Format::bf16};

}  // namespace accucheck::impls
