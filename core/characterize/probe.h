// characterize's probes: columns of n leaf values run through the backend, one per element
// of a workload, within a value budget per call (docs/characterize.md).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "checking/backend.h"
#include "checking/judge.h"
#include "checking/workload.h"
#include "numerics/hash.h"

namespace accucheck::characterization {

using Clock = std::chrono::steady_clock;

// The backend failed while being probed (its own failure, reported as that length's result).
struct ProbeFailure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Where the probe columns go: `element` unset: columns fill elements 0.. of as many calls as the
// value budget needs; set: one column per call, at that element of a buffer of `width` elements
// (the others zero), for an order that depends on the element index.
struct Placement {
  std::optional<std::size_t> element;
  std::size_t width = 1;
};

class Prober {
 public:
  using Fill = std::function<void(std::size_t column, std::span<double> leaves)>;

  Prober(const Backend& backend, WorkloadKind kind, std::size_t values_per_call, std::size_t width)
      : backend_(backend), kind_(kind), budget_(std::max<std::size_t>(values_per_call, 1)), width_(width) {}

  WorkloadKind kind() const { return kind_; }
  // Sparse probes: how row 0's pairs fall into steps (workload()); 0 unless a check asks otherwise.
  void set_sparse_layout(int layout) { sparse_layout_ = layout; }
  Format format() const { return backend_.storage; }
  std::uint64_t calls() const { return calls_; }
  // Elements per call for n leaves: every call of one length has this many (padded with zero
  // columns), since a kernel's order may depend on the buffer's width (a vector body and a tail,
  // a parallel split by size): the width asked for, else 1025 (one past a multiple of every
  // vector and block size), within the value budget.
  std::size_t batch(std::size_t n) const { return std::clamp<std::size_t>(budget_ / n, 1, width_ ? width_ : 1025); }
  // The widest buffer of the budget, up to 1025: where element dependence is looked for.
  std::size_t wide(std::size_t n) const { return std::clamp<std::size_t>(budget_ / n, 1, 1025); }

  // The results of `count` columns filled by `fill`.
  std::vector<double> run(std::size_t n, std::size_t count, const Fill& fill, const RunOptions& options = {},
                          const Placement& placement = {}) {
    std::vector<double> results(count);
    std::vector<std::vector<double>> columns;
    if (placement.element) {
      for (std::size_t c = 0; c < count; ++c) {
        std::vector<std::vector<double>> one(placement.width, std::vector<double>(n, 0.0));
        fill(c, one[*placement.element]);
        results[c] = call(n, one, options)[*placement.element];
      }
      return results;
    }
    const std::size_t per_call = batch(n);
    for (std::size_t first = 0; first < count; first += per_call) {
      const std::size_t k = std::min(per_call, count - first);
      columns.assign(per_call, std::vector<double>(n, 0.0));
      for (std::size_t c = 0; c < k; ++c) fill(first + c, columns[c]);
      const auto out = call(n, columns, options);
      std::copy(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(k),
                results.begin() + static_cast<std::ptrdiff_t>(first));
    }
    return results;
  }

  // One call with these columns at elements 0..k-1.
  std::vector<double> call(std::size_t n, const std::vector<std::vector<double>>& columns, const RunOptions& options) {
    const Workload w = workload(n, columns);
    ++calls_;
    try {
      auto results = run_backend(backend_, w, options);
      results.resize(columns.size());  // a second row's elements (sparse layout 2) are not probes
      return results;
    } catch (const BackendFailure& e) {
      throw ProbeFailure(std::string(name(e.kind)) + ": " + e.what());
    } catch (const std::exception& e) {
      throw ProbeFailure(std::string("error: ") + e.what());
    }
  }

  // The workload of the probe kind whose element c sums columns[c] (leaf 0 the initial value).
  Workload workload(std::size_t n, const std::vector<std::vector<double>>& columns) const {
    const std::size_t k = columns.size();
    const Format f = backend_.storage;
    switch (kind_) {
      case WorkloadKind::dense: {
        DenseWorkload w;
        w.format = f;
        w.elements = k;
        w.steps = n - 1;
        w.family = "characterize";
        w.initial.resize(k);
        w.addends.resize((n - 1) * k);
        for (std::size_t c = 0; c < k; ++c) {
          w.initial[c] = columns[c][0];
          for (std::size_t t = 1; t < n; ++t) w.addends[(t - 1) * k + c] = columns[c][t];
        }
        return w;
      }
      case WorkloadKind::sparse: {
        // Row 0 hit n-1 times; element d of the row is column d. Layout 0: in one step; 1: one
        // pair per step; 2: steps of 1 to 3 of its pairs, with pairs of a second row (zero
        // vectors) between them.
        SparseWorkload w;
        w.format = f;
        w.rows = sparse_layout_ == 2 ? 2 : 1;
        w.dim = k;
        w.family = "characterize";
        w.initial.assign(w.rows * k, 0.0);
        for (std::size_t c = 0; c < k; ++c) w.initial[c] = columns[c][0];
        SplitMix64 rng(n * 0x9e37u + 1);
        w.step_offsets = {0};
        std::size_t in_step = 0, step_size = 1 + rng.next() % 3;
        for (std::size_t q = 1; q < n; ++q) {
          w.row_index.push_back(0);
          for (std::size_t c = 0; c < k; ++c) w.values.push_back(columns[c][q]);
          if (sparse_layout_ == 2 && rng.next() % 2) {
            w.row_index.push_back(1);
            w.values.insert(w.values.end(), k, 0.0);
          }
          ++in_step;
          const bool step_ends = sparse_layout_ == 1 || (sparse_layout_ == 2 && in_step == step_size);
          if (step_ends && q + 1 < n) {
            w.step_offsets.push_back(w.row_index.size());
            in_step = 0;
            step_size = 1 + rng.next() % 3;
          }
        }
        w.step_offsets.push_back(w.row_index.size());
        w.steps = w.step_offsets.size() - 1;
        return w;
      }
      case WorkloadKind::product: {
        // One GEMM step with beta = 1: C (k x 1) += A (k x n-1) * B (n-1 x 1), B all ones, so that
        // element c's terms are C[c] and the products A[c][i] * 1 = column c's leaves.
        ProductWorkload w;
        w.format = f;
        w.rows = k;
        w.cols = 1;
        w.batch = n - 1;
        w.steps = 1;
        w.family = "characterize";
        w.initial.resize(k);
        w.a.resize(k * (n - 1));
        w.b.assign(n - 1, 1.0);
        for (std::size_t c = 0; c < k; ++c) {
          w.initial[c] = columns[c][0];
          for (std::size_t i = 1; i < n; ++i) w.a[c * (n - 1) + (i - 1)] = columns[c][i];
        }
        return w;
      }
    }
    throw std::logic_error("unknown workload kind");
  }

 private:
  const Backend& backend_;
  WorkloadKind kind_;
  std::size_t budget_;
  std::size_t width_;
  std::uint64_t calls_ = 0;
  int sparse_layout_ = 0;
};

inline bool same_bits(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) || (std::isnan(a) && std::isnan(b));
}

}  // namespace accucheck::characterization
