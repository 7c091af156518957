// Stated error bounds (BOUNDS.md) as data: kind, parameters, the format whose unit roundoff
// they use, and the source they come from; parsed from and printed as bound expressions such
// as "recursive(f32)", "tree(blocked:64,f32)", "widened(recursive(f64),f32)".
//
// Evaluation is rigorous: every bound is computed as an interval of doubles rounded outward,
// and when the interval cannot decide a comparison the bound is recomputed in exact rational
// arithmetic (or, for exp and sqrt, as a rational upper bound). No tolerance is ever added.
//
// The code is in bounds/: each kind's parse, print and formula together in its family's file
// (recursive.cpp, compensated.cpp, fused.cpp, ...), all kinds listed once in kinds.cpp
// (bounds/kind.h); adding a kind: docs/bounds.md "Adding a bound kind".
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "numerics/exact.h"
#include "numerics/format.h"

namespace accucheck {

enum class BoundKind : std::uint8_t {
  recursive,            // (n-1) u A
  anyorder,             // (n-1)u/(1+(n-1)u) A when n-1 <= 1/(2u), else (n-1) u A
  tree,                 // min(h u A or gamma_h A, anyorder) with h = height of the tree
  kahan,                // (3u + 14(n+1)u^2) A for u <= 1/128, n u <= 1/2
  neumaier,             // u|S| + gamma_{n-1}^2 A
  widened,              // u_out |S| + (1+u_out) inner
  products,             // N u A (+ underflow term of the products)
  correctly_rounded,    // computed == RNE(S)
  faithful,             // computed in {RD(S), RU(S)}
  reproducible_binned,  // Ahrens, Nguyen & Demmel Thm 5.8
  stochastic,           // gamma~_{n-1}(lambda) A, with probability >= 1 - 2 exp(-lambda^2/2)
  ftz,                  // inner + (2n-1) min_normal
  ulps,                 // |computed - RNE(S)| <= k ulps (an empirical claim)
  // min(sum_i gamma_{d_i} |x_i|, the tree bound of height max d_i, anyorder) for an exact order
  // whose leaf i passes through d_i roundings: a shape's tree or explicit tables per n
  // (characterize derives it; docs/bounds.md "Per-leaf bounds").
  depths,
  // gamma(m, v) A + 2m 2^(emin-p), m = ceil((n-1)/K), v = (1+eta)(1+u) - 1, eta = rho/(1+rho),
  // rho = (K+1) 2^(1-W): K addends and the accumulator added by one fused operation that aligns
  // them to the largest exponent and keeps W bits (truncating the rest), then rounds once into F
  // (tensor-core accumulation; derived in docs/bounds.md "Fused multi-term addition").
  fused,
  // (g + L u (1 + g)) A + (1 + L u) 2M 2^(emin-p): the same fused additions restarted from zero for
  // each chunk of N addends, each chunk's sum then added to the F accumulator by one rounding
  // (DeepSeek-V3's promotion every N_C = 128 elements); g = gamma(ceil(min(N, n-1)/K), v) as in
  // fused, L = ceil((n-1)/N) chunks, M = ceil((n-1)/K) fused steps (docs/bounds.md "Promotion").
  // fused_promoted(K,W,N,Q,F): the chunks' fused sums truncated to Q bits, g and the underflow term
  // as in fused_truncated (Hopper's FP8 with DeepSeek-V3's promotion).
  fused_promoted,
  // gamma(m, v) A + 2m 2^(emin-Q+1), v = (1+eta)(1+r) - 1, r = 2^(1-Q): fused's steps with each
  // fused sum rounded toward zero to Q significant bits (Q <= p) in F's exponent range, as the
  // tensor cores of V100..B200 do (Hopper's FP8: Q = 14); docs/bounds.md "Truncated results".
  fused_truncated,
  // inner + 2^(2-B) A: the products' inputs truncated toward zero to B significant bits before
  // exact multiplication (TF32: B = 11), inner bounding the accumulation of the truncated
  // products; needs normal inputs (docs/bounds.md "Truncated inputs").
  truncated_inputs,
};

// The tree shapes whose height h(n) the evaluator knows. h(n) is the largest number of
// roundings any addend passes through (Higham 2002 sec. 4.2; Lange & Rump 2019).
struct TreeShape {
  enum class Kind : std::uint8_t {
    sequential,  // left to right from the initial value: h = n-1
    pairwise,    // recursive halving: h = ceil(log2 n)
    numpy,       // NumPy's pairwise_sum: 8 accumulators up to 128, halving above
    blocked,     // blocks of b summed in order, block sums in order: (b-1) + (ceil(n/b)-1)
    lanes,       // L lanes in order, then a pairwise tree over lanes: ceil(n/L)-1 + ceil(log2 L)
    // NumPy's reduction of a contiguous row through its buffered iterator: blocks of B (the
    // buffer size, 8192 by default) each summed by pairwise_sum, the block sums added in order
    // to the identity: max(h_numpy(min(n,B)) + k-1, h_numpy(last block) + 1), k = ceil(n/B).
    numpy_buffered,
    // XLA CPU's tree_reduction_rewriter: windows of W reduced in any order, level by level,
    // until one value is left: the sum over levels of min(n_l, W) - 1, n_{l+1} = ceil(n_l / W).
    windows,
    // torch.sum on the CPU (ATen/native/cpu/SumKernel.cpp, cascade_sum, v1.13): the deepest of
    // the trees its layouts get, multi_row_sum's 4-level cascade, row_sum (4 interleaved
    // cascades) and the 8-lane inner sums of f32 and of 16-bit inputs (pairs pre-added).
    torch_sum,
    // The CUDA block reduction of impls/cuda (docs/bounds.md, "CUDA reduction trees"): tiles of
    // THREADS*ITEMS addends dealt to G = min(tiles, GRID) blocks in a grid-stride loop, each
    // thread summing its items in order, a warp-shuffle tree per warp and one over the warp
    // sums, then a second pass of one block over the G block sums. `cuda_block:32:1:1` is one
    // warp per sum (the warp-shuffle tree).
    cuda_block,
    // NCCL's tree all-reduce over n ranks in nodes of G (impls/common/allreduce_orders.h;
    // docs/bounds.md "All-reduce"): a chain inside each node, NCCL's double binary tree across
    // nodes, each node adding its children's sums after its own; h is the deeper of the two trees.
    nccl_tree,
    // P ranks each summing a contiguous share of the terms in order (at most ceil(n/P) of them),
    // then any tree over the min(n, P) shares: (ceil(n/P) - 1) + (min(n, P) - 1) (a black-box
    // all-reduce after each rank's own accumulation; docs/bounds.md "All-reduce over ranks").
    ranks,
  } kind = Kind::pairwise;
  std::uint64_t parameter = 0;  // b, L, THREADS (cuda_block: a power of two, 32..1024), G (nccl_tree) or P (ranks)
  std::uint64_t items = 0;      // cuda_block: ITEMS per thread and tile
  std::uint64_t grid = 0;       // cuda_block: GRID, the most blocks of the first pass
  bool operator==(const TreeShape&) const = default;
};
std::uint64_t tree_height(const TreeShape& shape, std::uint64_t n);
std::string shape_text(const TreeShape& shape);  // "blocked:64"

// The leaf depths a `depths` bound states: explicit tables for some n (a revealed order), else
// a shape whose exact tree gives them at any n (summation_tree.h shape_tree); at an n it does
// not cover, `depths` is anyorder.
struct DepthProfile {
  std::optional<TreeShape> shape;
  std::vector<std::pair<std::uint64_t, std::vector<std::uint32_t>>> tables;  // by n, ascending
  // The depths at n (nullptr when neither covers n). Shape trees are built once per thread and n.
  const std::vector<std::uint32_t>* at(std::uint64_t n) const;
};

struct BoundExpr {
  BoundKind kind = BoundKind::recursive;
  Format format = Format::f64;  // whose unit roundoff the bound uses (u_acc, or u_out)
  TreeShape shape;              // tree
  std::int64_t count = 0;   // ulps: k; reproducible_binned: K (fold); fused*: K (addends per step); truncated_inputs: B
  std::int64_t width = 0;   // reproducible_binned: W (bin width); fused*: W (window bits)
  std::int64_t period = 0;  // fused_promoted: N (addends between promotions, a multiple of K)
  std::int64_t result_bits = 0;  // fused_truncated, fused_promoted(K,W,N,Q,F): Q (bits the fused sums are truncated to)
  double lambda = 0.0;           // stochastic
  std::shared_ptr<const BoundExpr> inner;      // widened, ftz, truncated_inputs
  std::shared_ptr<const DepthProfile> depths;  // depths
};

std::string to_string(const BoundExpr& bound);
std::string to_string(BoundKind kind);
// nullopt with *error set (saying which part of the text is wrong) on failure.
std::optional<BoundExpr> parse_bound(std::string_view text, std::string* error = nullptr);

// Where each kind comes from, for docs and reports.
std::string_view bound_source(BoundKind kind);
// Formats whose overflow threshold the precondition checks (besides the output format).
std::vector<Format> bound_formats(const BoundExpr& bound);

// Whether the kind is a bound on |computed - S| (true) or a rounding claim checked against
// RNE/RD/RU of S (correctly_rounded, faithful, ulps).
bool is_error_bound(BoundKind kind);
// Whether evaluating it needs each element's terms in order (a `depths` bound, and a fused
// bound with truncated sums, also inside widened, ftz or truncated_inputs): without them a depths
// bound is the looser min(tree bound, anyorder), a truncated fused one counts K + 1 losing
// operands per step.
bool bound_needs_terms(const BoundExpr& bound);

// The outcome of one bound evaluation for one element.
struct BoundCheck {
  bool precondition_met = false;  // finite addends and A + bound below every overflow threshold
  bool vacuous = false;           // the bound promises no accuracy: infinite, or >= A
  double bound = 0.0;             // the bound, rounded upward to a double (+inf if undefined)
  bool within = true;             // |error| <= bound, decided exactly
};

// Checks |abs_error| <= bound for an error bound kind, where abs_error is the exact
// |computed - S| in the fixed-point grid. `output` is the format of the result buffer.
// `terms`: the element's terms in summation order, for a bound that needs them (else empty).
BoundCheck check_error_bound(const BoundExpr& bound, Format output, const ExactSum& exact, const FixedInt& abs_error,
                             std::span<const double> terms = {});

// The same from the nearest doubles judge() already has: RNE of |error|, A and |S| into f64,
// each with whether it was inexact. Comparisons they decide (RNE is monotone: RNE(e) < b
// implies e < b) cost no fixed-point or rational arithmetic; `abs_error` is called for the exact
// |error| only when they do not (an error next to a bound endpoint).
struct NearestValues {
  double abs_error = 0, abs_sum = 0, abs_exact = 0;
  bool abs_error_inexact = true, abs_sum_inexact = true, abs_exact_inexact = true;
};
BoundCheck check_error_bound(const BoundExpr& bound, Format output, const ExactSum& exact, const NearestValues& nearest,
                             const std::function<FixedInt()>& abs_error, std::span<const double> terms = {});

}  // namespace accucheck
