// Bound expressions as text: the parser, the printer, tree heights and sources.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>

#include "checking/bound.h"
#include "checking/summation_tree.h"

namespace accucheck {
namespace {

struct KindInfo {
  BoundKind kind;
  std::string_view name;
  std::string_view source;
};

constexpr KindInfo kKinds[] = {
    {BoundKind::recursive, "recursive", "Rump, BIT 52 (2012); AN23 sec. 4.6.2"},
    {BoundKind::anyorder, "anyorder", "AN23 eq. (4.11); Lange & Rump (2019), AN23 Thm 4.5"},
    {BoundKind::tree, "tree", "Lange & Rump (2019), AN23 Thm 4.4; Higham (2002) sec. 4.2"},
    {BoundKind::kahan, "kahan", "Hallman & Ipsen, arXiv 2203.15928 (2022), as cited in AN23 sec. 5.3"},
    {BoundKind::neumaier, "neumaier", "Ogita, Rump & Oishi, SIAM J. Sci. Comput. 26 (2005), Prop. 4.5"},
    {BoundKind::widened, "widened", "composition: u_out|S| + (1+u_out)*inner"},
    {BoundKind::products, "products", "Jeannerod & Rump, SIAM J. Matrix Anal. Appl. 34 (2013); Higham (2002) sec. 3.1"},
    {BoundKind::correctly_rounded, "correctly_rounded", "IEEE 754-2019"},
    {BoundKind::faithful, "faithful", "Rump, Ogita & Oishi, SIAM J. Sci. Comput. 31 (2008)"},
    {BoundKind::reproducible_binned, "reproducible_binned",
     "Ahrens, Nguyen & Demmel, UCB/EECS-2015-229, Thm 5.8 eq. (5.26)"},
    {BoundKind::stochastic, "stochastic", "Connolly, Higham & Mary, SIAM J. Sci. Comput. 43 (2021); AN23 sec. 4.6.4"},
    {BoundKind::ftz, "ftz", "derived: flush-to-zero moves each input and result by less than min_normal"},
    {BoundKind::ulps, "ulps", "stated by the backend (empirical)"},
    {BoundKind::fused, "fused",
     "derived (docs/bounds.md 'Fused multi-term addition'); the model: MMA-Sim, arXiv 2511.10909, and Khattak & "
     "Mikaitis, arXiv 2512.07004; Higham (2002) Lemma 3.1"},
    {BoundKind::fused_truncated, "fused_truncated",
     "derived (docs/bounds.md 'Truncated results'); the rounding toward zero: MMA-Sim (arXiv 2511.10909) and Khattak & "
     "Mikaitis (arXiv 2512.07004), as their public models implement it"},
    {BoundKind::fused_promoted, "fused_promoted",
     "derived (docs/bounds.md 'Promotion'): fused per chunk composed with Rump, BIT 52 (2012) for the FP32 additions; "
     "the scheme: DeepSeek-V3 technical report (2024) sec. 3.3.2"},
    {BoundKind::truncated_inputs, "truncated_inputs",
     "derived (docs/bounds.md 'Truncated inputs'); TF32's truncated inputs: MMA-Sim (arXiv 2511.10909) and Khattak & "
     "Mikaitis (arXiv 2512.07004), as their public models implement it"},
    {BoundKind::depths, "depths",
     "Higham (2002) sec. 4.2 per-leaf gamma_{d_i}; Lange & Rump (2019), AN23 Thm 4.4 and 4.5 (docs/bounds.md)"},
};

const KindInfo& info(BoundKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k;
  return kKinds[0];
}

// A tiny recursive-descent parser over: NAME [ '(' ARG {',' ARG} ')' ].
struct Node {
  std::string head;  // identifier or literal ("f32", "blocked:64", "3", "recursive")
  std::vector<Node> arguments;
  bool has_parentheses = false;
};

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  bool parse(Node& out, std::string& error) {
    if (!node(out, error)) return false;
    skip_space();
    if (position_ != text_.size()) {
      error = "unexpected '" + std::string(text_.substr(position_)) + "' at position " + std::to_string(position_);
      return false;
    }
    return true;
  }

 private:
  void skip_space() {
    while (position_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[position_]))) ++position_;
  }
  static bool word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '.' || c == '-' || c == '+';
  }
  bool node(Node& out, std::string& error) {
    if (++depth_ > 16) {
      error = "bound expression nested too deeply";
      return false;
    }
    skip_space();
    const std::size_t start = position_;
    while (position_ < text_.size() && word_char(text_[position_])) ++position_;
    if (position_ == start) {
      error = position_ < text_.size()
                  ? "unexpected '" + std::string(1, text_[position_]) + "' at position " + std::to_string(position_)
                  : "bound expression ends early";
      return false;
    }
    out.head = std::string(text_.substr(start, position_ - start));
    skip_space();
    if (position_ < text_.size() && text_[position_] == '(') {
      out.has_parentheses = true;
      ++position_;
      skip_space();
      if (position_ < text_.size() && text_[position_] == ')') {
        ++position_;
        --depth_;
        return true;
      }
      for (;;) {
        Node argument;
        if (!node(argument, error)) return false;
        out.arguments.push_back(std::move(argument));
        skip_space();
        if (position_ < text_.size() && text_[position_] == ',') {
          ++position_;
          continue;
        }
        if (position_ < text_.size() && text_[position_] == ')') {
          ++position_;
          break;
        }
        error = "expected ',' or ')' at position " + std::to_string(position_) + " in '" + out.head + "(...)'";
        return false;
      }
    }
    --depth_;
    return true;
  }

  std::string_view text_;
  std::size_t position_ = 0;
  int depth_ = 0;
};

bool parse_unsigned(std::string_view text, std::uint64_t& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool to_format(const Node& node, Format& out, std::string& error) {
  auto f = parse_format(node.head);
  if (!f || node.has_parentheses) {
    error = "'" + node.head + "' is not a format (f64, f32, f16, bf16)";
    return false;
  }
  out = *f;
  return true;
}

// cuda_block:THREADS:ITEMS:GRID, THREADS a power of two in [32, 1024] (whole warps, at most 32
// warp sums), ITEMS in [1, 1024], GRID in [1, 2^20].
bool to_cuda_block(const std::string& h, TreeShape& out, std::string& error) {
  std::uint64_t values[3] = {0, 0, 0};
  std::size_t at = std::string_view("cuda_block:").size();
  for (int k = 0; k < 3; ++k) {
    const std::size_t end = k < 2 ? h.find(':', at) : h.size();
    if (end == std::string::npos || !parse_unsigned(std::string_view(h).substr(at, end - at), values[k])) {
      error = "tree shape '" + h + "' must be cuda_block:THREADS:ITEMS:GRID (three positive integers)";
      return false;
    }
    at = end + 1;
  }
  const auto [threads, items, grid] = values;
  if (threads < 32 || threads > 1024 || (threads & (threads - 1)) != 0 || items < 1 || items > 1024 || grid < 1 ||
      grid > (1u << 20)) {
    error =
        "tree shape '" + h + "': THREADS must be a power of two in [32, 1024], ITEMS in [1, 1024], GRID in [1, 2^20]";
    return false;
  }
  out = {TreeShape::Kind::cuda_block, threads, items, grid};
  return true;
}

bool to_shape(const Node& node, TreeShape& out, std::string& error) {
  const std::string& h = node.head;
  if (node.has_parentheses) {
    error = "tree shape '" + h + "' takes no arguments";
    return false;
  }
  if (h == "sequential") {
    out = {TreeShape::Kind::sequential, 0};
    return true;
  }
  if (h == "pairwise") {
    out = {TreeShape::Kind::pairwise, 0};
    return true;
  }
  if (h == "numpy") {
    out = {TreeShape::Kind::numpy, 0};
    return true;
  }
  if (h == "torch_sum") {
    out = {TreeShape::Kind::torch_sum, 0};
    return true;
  }
  if (h.starts_with("cuda_block:")) return to_cuda_block(h, out, error);
  auto colon = h.find(':');
  if (colon != std::string::npos) {
    std::string_view kind = std::string_view(h).substr(0, colon);
    std::uint64_t parameter = 0;
    if (!parse_unsigned(std::string_view(h).substr(colon + 1), parameter) || parameter == 0 || parameter > (1u << 30)) {
      error = "tree shape '" + h + "' needs a positive integer after ':'";
      return false;
    }
    if (kind == "blocked") {
      out = {TreeShape::Kind::blocked, parameter};
      return true;
    }
    if (kind == "lanes") {
      out = {TreeShape::Kind::lanes, parameter};
      return true;
    }
    if (kind == "ranks") {
      out = {TreeShape::Kind::ranks, parameter};
      return true;
    }
    if (kind == "nccl_tree") {
      out = {TreeShape::Kind::nccl_tree, parameter};
      return true;
    }
    if (kind == "numpy_buffered") {
      out = {TreeShape::Kind::numpy_buffered, parameter};
      return true;
    }
    if (kind == "windows") {
      if (parameter < 2) {
        error = "tree shape '" + h + "': windows of at least 2";
        return false;
      }
      out = {TreeShape::Kind::windows, parameter};
      return true;
    }
  }
  error = "unknown tree shape '" + h +
          "' (sequential, pairwise, numpy, blocked:B, lanes:L, numpy_buffered:B, windows:W, torch_sum, "
          "cuda_block:THREADS:ITEMS:GRID, nccl_tree:G, ranks:P)";
  return false;
}

std::optional<BoundExpr> build(const Node& node, std::string& error);

// depths(PROFILE, ..., F): at most one shape with a fixed order, and tables nN:DEPTHS whose N
// depths (summation_tree.h depths_text) are those of a tree over N leaves.
bool to_depth_profile(const Node& node, DepthProfile& out, std::string& error) {
  if (node.arguments.size() < 2) {
    error = "'depths' takes one or more profiles (a shape, or nN:DEPTHS) and a format";
    return false;
  }
  for (std::size_t k = 0; k + 1 < node.arguments.size(); ++k) {
    const Node& a = node.arguments[k];
    const std::string& h = a.head;
    if (h.size() > 1 && h[0] == 'n' && std::isdigit(static_cast<unsigned char>(h[1]))) {
      const auto colon = h.find(':');
      std::uint64_t n = 0;
      if (colon == std::string::npos || !parse_unsigned(std::string_view(h).substr(1, colon - 1), n) || n == 0) {
        error = "depths profile '" + h + "' must be nN:DEPTHS";
        return false;
      }
      std::string why;
      auto depths = parse_depths_text(h.substr(colon + 1), &why);
      if (!depths) {
        error = "depths profile n" + std::to_string(n) + ": " + why;
        return false;
      }
      if (depths->size() != n) {
        error = "depths profile n" + std::to_string(n) + " lists " + std::to_string(depths->size()) + " leaves";
        return false;
      }
      for (const auto& [m, d] : out.tables)
        if (m == n) {
          error = "depths profile n" + std::to_string(n) + " given twice";
          return false;
        }
      out.tables.emplace_back(n, std::move(*depths));
      continue;
    }
    TreeShape shape;
    if (!to_shape(a, shape, error)) return false;
    if (!shape_has_fixed_order(shape)) {
      error =
          "depths needs a shape with one fixed order (sequential, numpy, blocked:B, lanes:L with L a power of two, "
          "numpy_buffered:B, cuda_block:T:I:G), not '" +
          h + "'";
      return false;
    }
    if (out.shape) {
      error = "depths takes at most one shape";
      return false;
    }
    out.shape = shape;
  }
  std::sort(out.tables.begin(), out.tables.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return true;
}

bool expect_arguments(const Node& node, std::size_t count, std::string& error) {
  if (node.arguments.size() != count) {
    error = "'" + node.head + "' takes " + std::to_string(count) + " argument" + (count == 1 ? "" : "s") + ", got " +
            std::to_string(node.arguments.size());
    return false;
  }
  return true;
}

// KIND(K,W,F) with integers K and W in their ranges: bound.count, bound.width and bound.format.
struct Range {
  std::uint64_t low, high;
};
bool count_width_format(const Node& node, Range count, Range width, const char* usage, BoundExpr& bound,
                        std::string& error) {
  std::uint64_t k = 0, w = 0;
  if (!expect_arguments(node, 3, error)) return false;
  if (!parse_unsigned(node.arguments[0].head, k) || k < count.low || k > count.high ||
      !parse_unsigned(node.arguments[1].head, w) || w < width.low || w > width.high) {
    error = usage;
    return false;
  }
  if (!to_format(node.arguments[2], bound.format, error)) return false;
  bound.count = static_cast<std::int64_t>(k);
  bound.width = static_cast<std::int64_t>(w);
  return true;
}

// KIND(K,W,X,F): fused(K,W,F)'s arguments with an integer X third, valid by `valid(X, bound)`
// once K, W and F are read.
template <class Valid>
std::optional<std::uint64_t> fused_with_third(const Node& node, const char* usage, const Valid& valid, BoundExpr& bound,
                                              std::string& error) {
  if (!expect_arguments(node, 4, error)) return std::nullopt;
  std::uint64_t third = 0;
  Node three = node;
  three.arguments.erase(three.arguments.begin() + 2);
  if (!parse_unsigned(node.arguments[2].head, third)) {
    error = usage;
    return std::nullopt;
  }
  if (!count_width_format(three, {1, 64}, {2, 53}, usage, bound, error)) return std::nullopt;
  if (!valid(third, bound)) {
    error = usage;
    return std::nullopt;
  }
  return third;
}

// The error bound a wrapper of two arguments (widened, ftz, truncated_inputs) holds as its first.
std::optional<BoundExpr> build_inner(const Node& node, std::string& error) {
  if (!expect_arguments(node, 2, error)) return std::nullopt;
  auto inner = build(node.arguments[0], error);
  if (!inner) return std::nullopt;
  if (!is_error_bound(inner->kind)) {
    error = "'" + node.head + "' needs an error bound inside, not '" + to_string(inner->kind) + "'";
    return std::nullopt;
  }
  return inner;
}

std::optional<BoundExpr> build(const Node& node, std::string& error) {
  const KindInfo* kind = nullptr;
  for (const auto& k : kKinds)
    if (k.name == node.head) kind = &k;
  if (!kind) {
    error = "unknown bound kind '" + node.head + "'";
    return std::nullopt;
  }
  BoundExpr bound;
  bound.kind = kind->kind;
  switch (kind->kind) {
    case BoundKind::recursive:
    case BoundKind::anyorder:
    case BoundKind::kahan:
    case BoundKind::neumaier:
    case BoundKind::products:
      if (!expect_arguments(node, 1, error) || !to_format(node.arguments[0], bound.format, error)) return std::nullopt;
      return bound;
    case BoundKind::tree:
      if (!expect_arguments(node, 2, error) || !to_shape(node.arguments[0], bound.shape, error) ||
          !to_format(node.arguments[1], bound.format, error))
        return std::nullopt;
      return bound;
    case BoundKind::widened:
    case BoundKind::ftz: {
      auto inner = build_inner(node, error);
      if (!inner) return std::nullopt;
      if (!to_format(node.arguments[1], bound.format, error)) return std::nullopt;
      bound.inner = std::make_shared<const BoundExpr>(std::move(*inner));
      return bound;
    }
    case BoundKind::truncated_inputs: {
      // truncated_inputs(INNER,B): the format is the inner bound's (whose thresholds apply).
      std::uint64_t bits = 0;
      auto inner = build_inner(node, error);
      if (!inner) return std::nullopt;
      if (!parse_unsigned(node.arguments[1].head, bits) || node.arguments[1].has_parentheses || bits < 2 || bits > 53) {
        error = "truncated_inputs(INNER,B) needs an integer 2 <= B <= 53, got '" + node.arguments[1].head + "'";
        return std::nullopt;
      }
      bound.count = static_cast<std::int64_t>(bits);
      bound.format = inner->format;
      bound.inner = std::make_shared<const BoundExpr>(std::move(*inner));
      return bound;
    }
    case BoundKind::correctly_rounded:
    case BoundKind::faithful:
      if (!expect_arguments(node, 0, error)) return std::nullopt;
      return bound;
    case BoundKind::depths: {
      auto profile = std::make_shared<DepthProfile>();
      if (!to_depth_profile(node, *profile, error) || !to_format(node.arguments.back(), bound.format, error))
        return std::nullopt;
      bound.depths = std::move(profile);
      return bound;
    }
    case BoundKind::ulps: {
      std::uint64_t k = 0;
      if (!expect_arguments(node, 1, error)) return std::nullopt;
      if (!parse_unsigned(node.arguments[0].head, k) || k > (1u << 30)) {
        error = "ulps(K) needs a non-negative integer K, got '" + node.arguments[0].head + "'";
        return std::nullopt;
      }
      bound.count = static_cast<std::int64_t>(k);
      return bound;
    }
    case BoundKind::reproducible_binned:
      if (!count_width_format(node, {2, 8}, {1, 60},
                              "reproducible_binned(K,W,F) needs integers 2 <= K <= 8 and 1 <= W <= 60", bound, error))
        return std::nullopt;
      return bound;
    case BoundKind::fused:
      if (!count_width_format(node, {1, 64}, {2, 53}, "fused(K,W,F) needs integers 1 <= K <= 64 and 2 <= W <= 53",
                              bound, error))
        return std::nullopt;
      return bound;
    case BoundKind::fused_truncated: {
      const auto result_bits = fused_with_third(
          node,
          "fused_truncated(K,W,Q,F) needs integers 1 <= K <= 64, 2 <= W <= 53 and "
          "2 <= Q <= the precision of F",
          [](std::uint64_t q, const BoundExpr& b) {
            return q >= 2 && q <= static_cast<std::uint64_t>(traits(b.format).precision);
          },
          bound, error);
      if (!result_bits) return std::nullopt;
      bound.result_bits = static_cast<std::int64_t>(*result_bits);
      return bound;
    }
    case BoundKind::fused_promoted: {
      // fused_promoted(K,W,N,F), or fused_promoted(K,W,N,Q,F) with each chunk's fused sums truncated
      // to Q bits as in fused_truncated (Hopper's FP8 promoted to FP32).
      const char* usage =
          "fused_promoted(K,W,N,F) or fused_promoted(K,W,N,Q,F) needs integers 1 <= K <= 64, 2 <= W <= 53, "
          "N a multiple of K up to 2^20 and 2 <= Q <= the precision of F";
      Node four = node;
      std::uint64_t result_bits = 0;
      if (node.arguments.size() == 5) {
        if (!parse_unsigned(node.arguments[3].head, result_bits)) {
          error = usage;
          return std::nullopt;
        }
        four.arguments.erase(four.arguments.begin() + 3);
      }
      const auto period = fused_with_third(
          four, usage,
          [](std::uint64_t n, const BoundExpr& b) {
            return n > 0 && n <= (std::uint64_t{1} << 20) && n % static_cast<std::uint64_t>(b.count) == 0;
          },
          bound, error);
      if (!period) return std::nullopt;
      if (node.arguments.size() == 5 &&
          (result_bits < 2 || result_bits > static_cast<std::uint64_t>(traits(bound.format).precision))) {
        error = usage;
        return std::nullopt;
      }
      bound.period = static_cast<std::int64_t>(*period);
      bound.result_bits = static_cast<std::int64_t>(result_bits);
      return bound;
    }
    case BoundKind::stochastic: {
      if (!expect_arguments(node, 2, error)) return std::nullopt;
      const std::string& text = node.arguments[0].head;
      char* end = nullptr;
      const double lambda = std::strtod(text.c_str(), &end);
      if (end != text.c_str() + text.size() || !(lambda > 0) || lambda > 64) {
        error = "stochastic(LAMBDA,F) needs 0 < LAMBDA <= 64, got '" + text + "'";
        return std::nullopt;
      }
      if (!to_format(node.arguments[1], bound.format, error)) return std::nullopt;
      bound.lambda = lambda;
      return bound;
    }
  }
  error = "unhandled bound kind";
  return std::nullopt;
}

}  // namespace

std::string shape_text(const TreeShape& s) {
  switch (s.kind) {
    case TreeShape::Kind::sequential: return "sequential";
    case TreeShape::Kind::pairwise: return "pairwise";
    case TreeShape::Kind::numpy: return "numpy";
    case TreeShape::Kind::blocked: return "blocked:" + std::to_string(s.parameter);
    case TreeShape::Kind::lanes: return "lanes:" + std::to_string(s.parameter);
    case TreeShape::Kind::numpy_buffered: return "numpy_buffered:" + std::to_string(s.parameter);
    case TreeShape::Kind::windows: return "windows:" + std::to_string(s.parameter);
    case TreeShape::Kind::torch_sum: return "torch_sum";
    case TreeShape::Kind::nccl_tree: return "nccl_tree:" + std::to_string(s.parameter);
    case TreeShape::Kind::ranks: return "ranks:" + std::to_string(s.parameter);
    case TreeShape::Kind::cuda_block:
      return "cuda_block:" + std::to_string(s.parameter) + ":" + std::to_string(s.items) + ":" + std::to_string(s.grid);
  }
  return "?";
}

namespace {

std::uint64_t ceil_log2(std::uint64_t n) {
  std::uint64_t h = 0;
  while ((std::uint64_t{1} << h) < n) ++h;
  return h;
}

std::uint64_t numpy_height(std::uint64_t n, std::map<std::uint64_t, std::uint64_t>& memo) {
  // numpy/core/src/umath/loops_utils.h.src, pairwise_sum: below 8 a plain loop; up to 128
  // eight accumulators (n/8 addends each), a 3-level tree, then the n%8 leftovers in order;
  // above, split at n/2 rounded down to a multiple of 8 and recurse.
  if (n <= 1) return 0;
  if (n < 8) return n - 1;
  if (n <= 128) return (n / 8 - 1) + 3 + (n % 8);
  // The two halves differ by less than 16, so each level has only a few distinct lengths:
  // memoized, the recursion visits O(log n) of them instead of O(n / 64) nodes.
  if (auto found = memo.find(n); found != memo.end()) return found->second;
  std::uint64_t half = n / 2;
  half -= half % 8;
  const std::uint64_t height = 1 + std::max(numpy_height(half, memo), numpy_height(n - half, memo));
  memo.emplace(n, height);
  return height;
}

// Roundings on the deepest path of a partial sum; `empty` is a sum still at its zero start,
// to which the first addition is exact (torch's accumulators start at 0).
struct PathDepth {
  std::uint64_t depth = 0;
  bool empty = true;
  PathDepth plus(PathDepth other) const {
    if (empty) return other;
    if (other.empty) return *this;
    return {std::max(depth, other.depth) + 1, false};
  }
};

// ATen/native/cpu/SumKernel.cpp (v1.13), multi_row_sum for one of its rows: four levels of
// accumulators; level 0 takes 2^p leaves (p = max(4, CeilLog2(size) / 4)), then each full level
// is added into the next and cleared, carrying on while the count is a multiple of the next
// level's span; the leftovers go into level 0, and levels 1..3 are added into it in order.
PathDepth torch_multi_row_sum(std::uint64_t size, PathDepth leaf) {
  const std::uint64_t power = std::max<std::uint64_t>(4, ceil_log2(size) / 4);
  const std::uint64_t step = std::uint64_t{1} << power, mask = step - 1;
  PathDepth acc[4];
  std::uint64_t i = 0;
  for (; i + step <= size;) {
    for (std::uint64_t j = 0; j < step; ++j, ++i) acc[0] = acc[0].plus(leaf);
    for (int j = 1; j < 4; ++j) {
      acc[j] = acc[j].plus(acc[j - 1]);
      acc[j - 1] = PathDepth{};
      if ((i & (mask << (j * power))) != 0) break;
    }
  }
  for (; i < size; ++i) acc[0] = acc[0].plus(leaf);
  for (int j = 1; j < 4; ++j) acc[0] = acc[0].plus(acc[j]);
  return acc[0];
}

// row_sum: the row as (size/4, 4), four multi_row_sum columns, the size%4 leftovers into the
// first, then the other three added to it.
PathDepth torch_row_sum(std::uint64_t size, PathDepth leaf) {
  const PathDepth column = torch_multi_row_sum(size / 4, leaf);
  PathDepth total = column;
  for (std::uint64_t i = (size / 4) * 4; i < size; ++i) total = total.plus(leaf);
  for (int k = 1; k < 4; ++k) total = total.plus(column);
  return total;
}

// vectorized_inner_sum: row_sum over the vectors of `width` values (8 f32 lanes; 16-bit inputs
// load 16 values as 8 lanes of pre-added pairs), the tail summed from 0, then the 8 lanes added to it.
PathDepth torch_inner_sum(std::uint64_t size, std::uint64_t width) {
  const PathDepth lanes = torch_row_sum(size / width, PathDepth{width == 16 ? 1u : 0u, false});
  PathDepth total;
  for (std::uint64_t k = (size / width) * width; k < size; ++k) total = total.plus(PathDepth{0, false});
  for (int k = 0; k < 8; ++k) total = total.plus(lanes);
  return total;
}

std::uint64_t torch_sum_height(std::uint64_t n) {
  const PathDepth leaf{0, false};
  std::uint64_t height = std::max(torch_multi_row_sum(n, leaf).depth, torch_row_sum(n, leaf).depth);
  if (n >= 8) height = std::max(height, torch_inner_sum(n, 8).depth);
  if (n >= 16) height = std::max(height, torch_inner_sum(n, 16).depth);
  return height;
}

// The deepest leaf of impls/cuda's block reduction (docs/bounds.md, "CUDA reduction trees") is
// the first item of thread 0 of block 0: block 0 gets the most tiles (0, G, 2G, ...), thread 0
// the most items of each tile, and lane 0 of warp 0 is the root of both shuffle trees, and block
// 0's sum is the first item of thread 0 of the second pass. Its roundings: m1 - 1 in the thread's
// sequential sum, ceil(log2 k1) in the block's two shuffle levels over the k1 threads that hold
// an item (ceil(log2 min(32, k)) + ceil(log2 ceil(k/32)) = ceil(log2 k)), and the same two terms
// for the second pass over the G block sums. Adding the -0 identity of an empty thread, warp or
// lane is exact and does not count.
std::uint64_t cuda_block_height(std::uint64_t threads, std::uint64_t items, std::uint64_t grid, std::uint64_t n) {
  const std::uint64_t tile = threads * items;
  const std::uint64_t tiles = (n + tile - 1) / tile;
  const std::uint64_t g = std::min(tiles, grid);
  const std::uint64_t block0_tiles = (tiles + g - 1) / g;
  const std::uint64_t last = (block0_tiles - 1) * g;  // block 0's last tile
  const std::uint64_t last_items =
      last == tiles - 1 ? std::min(items, (n - last * tile + threads - 1) / threads) : items;
  const std::uint64_t m1 = (block0_tiles - 1) * items + last_items;
  const std::uint64_t k1 = tiles == 1 ? std::min(threads, n) : threads;
  const std::uint64_t m2 = (g + threads - 1) / threads;
  const std::uint64_t k2 = std::min(threads, g);
  return (m1 - 1) + ceil_log2(k1) + (m2 - 1) + ceil_log2(k2);
}

// NCCL's tree all-reduce over n ranks in nodes of G (NVIDIA/nccl v2.28.9 src/graph/trees.cc
// ncclGetBtree/ncclGetDtree, connect.cc setTreeDown; the model: impls/common/allreduce_orders.h).
// Tree 0 over the N = ceil(n/G) nodes links node v != 0 to its parent through v's lowest set bit
// b: (v ^ b) | 2b, or v ^ b when that is not a node; a parent's children are one below and one
// above it, so their order by number is NCCL's down0, down1. Tree 1 is tree 0 on renumbered
// nodes (mirrored when N is even, shifted by one when odd), so only which node holds the short
// last chain differs. A node's value is the left fold of [own, chain of the other G-1 ranks, the
// children's sums]: the first operand passes m-1 roundings, operand i >= 1 passes m-i. A chain
// of L values (each rank adding its own value to the sum below it) costs its deepest leaf L-1.
std::uint64_t nccl_tree_height(std::uint64_t gpus, std::uint64_t n) {
  const std::uint64_t nodes = (n + gpus - 1) / gpus;
  const std::uint64_t last_node_size = n - (nodes - 1) * gpus;
  std::vector<std::vector<std::uint64_t>> children(nodes);
  for (std::uint64_t v = 1; v < nodes; ++v) {
    const std::uint64_t bit = v & (~v + 1);
    std::uint64_t parent = (v ^ bit) | (bit << 1);
    if (parent >= nodes) parent = v ^ bit;
    children[parent].push_back(v);  // ascending v: down0 before down1
  }
  std::uint64_t height = 0;
  for (int tree = 0; tree < 2; ++tree) {
    // The renumbered node that is the last node (the possibly shorter chain): itself in tree 0,
    // 0 under the mirror, N - 2 (mod N) under the shift.
    const std::uint64_t short_node = tree == 0 ? nodes - 1 : nodes % 2 == 0 ? 0 : (2 * nodes - 2) % nodes;
    std::function<std::uint64_t(std::uint64_t)> deepest = [&](std::uint64_t v) -> std::uint64_t {
      std::vector<std::uint64_t> operand_depths{0};
      const std::uint64_t size = v == short_node ? last_node_size : gpus;
      if (size > 1) operand_depths.push_back(size - 2);
      for (std::uint64_t c : children[v]) operand_depths.push_back(deepest(c));
      const std::uint64_t m = operand_depths.size();
      std::uint64_t d = 0;
      for (std::uint64_t i = 0; i < m; ++i) d = std::max(d, operand_depths[i] + (i == 0 ? m - 1 : m - i));
      return d;
    };
    height = std::max(height, deepest(0));
  }
  return height;
}

}  // namespace

std::uint64_t tree_height(const TreeShape& shape, std::uint64_t n) {
  if (n <= 1) return 0;
  switch (shape.kind) {
    case TreeShape::Kind::sequential: return n - 1;
    case TreeShape::Kind::pairwise: return ceil_log2(n);
    case TreeShape::Kind::numpy: {
      std::map<std::uint64_t, std::uint64_t> memo;
      return numpy_height(n, memo);
    }
    case TreeShape::Kind::blocked: {
      const std::uint64_t b = shape.parameter;
      return (std::min(n, b) - 1) + ((n + b - 1) / b - 1);
    }
    case TreeShape::Kind::lanes: {
      const std::uint64_t lanes = shape.parameter;
      return ((n + lanes - 1) / lanes - 1) + ceil_log2(lanes);
    }
    case TreeShape::Kind::numpy_buffered: {
      // numpy/core/src/umath/reduction.c and nditer_api.c (v1.24): the buffered iterator hands the
      // add loop at most B elements of the row at a time; each call is pairwise_sum(block) added
      // to the running output, which starts at the identity 0 (that first addition is exact).
      // Block j's leaves: h_numpy(block) + (k - j), one less for block 0.
      const std::uint64_t b = shape.parameter;
      const std::uint64_t blocks = (n + b - 1) / b;
      std::map<std::uint64_t, std::uint64_t> memo;
      std::uint64_t height = numpy_height(std::min(n, b), memo) + (blocks - 1);
      if (blocks >= 2) height = std::max(height, numpy_height(n - (blocks - 1) * b, memo) + 1);
      return height;
    }
    case TreeShape::Kind::windows: {
      // xla/service/tree_reduction_rewriter.cc: a reduction longer than W becomes a reduce-window
      // of W (zero-padded), again until at most W are left; within a window the order is free
      // (the reducer is emitted with reassoc), so a window of m values costs at most m-1 roundings.
      const std::uint64_t w = shape.parameter;
      std::uint64_t height = 0;
      for (std::uint64_t level = n; level > 1; level = (level + w - 1) / w) height += std::min(level, w) - 1;
      return height;
    }
    case TreeShape::Kind::torch_sum: {
      // O(n) to walk the cascade: the last length asked for is kept (an element's bound is
      // evaluated for each of a case's elements, which share n).
      thread_local std::uint64_t last_n = 0, last_height = 0;
      if (n != last_n) {
        last_height = torch_sum_height(n);
        last_n = n;
      }
      return last_height;
    }
    case TreeShape::Kind::cuda_block: return cuda_block_height(shape.parameter, shape.items, shape.grid, n);
    case TreeShape::Kind::ranks: {
      const std::uint64_t ranks = shape.parameter;
      return ((n + ranks - 1) / ranks - 1) + (std::min(n, ranks) - 1);
    }
    case TreeShape::Kind::nccl_tree: {
      thread_local std::uint64_t last_gpus = 0, last_n = 0, last_height = 0;  // O(n) each: kept as torch_sum's
      if (n != last_n || shape.parameter != last_gpus) {
        last_height = nccl_tree_height(shape.parameter, n);
        last_n = n;
        last_gpus = shape.parameter;
      }
      return last_height;
    }
  }
  return n - 1;
}

std::string to_string(BoundKind kind) { return std::string(info(kind).name); }
std::string_view bound_source(BoundKind kind) { return info(kind).source; }

bool is_error_bound(BoundKind kind) {
  return kind != BoundKind::correctly_rounded && kind != BoundKind::faithful && kind != BoundKind::ulps;
}

bool bound_needs_terms(const BoundExpr& bound) {
  if (bound.kind == BoundKind::depths) return true;
  // Truncated fused sums: the terms' significant bits decide how many operands a step can lose
  // (bound_eval.cpp, docs/bounds.md "Truncated results").
  if (bound.result_bits != 0) return true;
  return bound.inner && bound_needs_terms(*bound.inner);
}

const std::vector<std::uint32_t>* DepthProfile::at(std::uint64_t n) const {
  const auto table =
      std::lower_bound(tables.begin(), tables.end(), n, [](const auto& t, std::uint64_t m) { return t.first < m; });
  if (table != tables.end() && table->first == n) return &table->second;
  if (!shape) return nullptr;
  // A campaign judges many elements of one length: the last few (shape, n) are kept per thread,
  // in slots replaced in turn (a pointer returned stays valid until 8 other lengths were asked).
  struct Cached {
    TreeShape shape;
    std::uint64_t n = 0;
    std::vector<std::uint32_t> depths;
  };
  thread_local std::array<Cached, 8> cache;
  thread_local std::size_t next_slot = 0;
  for (const auto& c : cache)
    if (c.n == n && c.shape == *shape) return &c.depths;
  const auto tree = shape_tree(*shape, n);
  if (!tree) return nullptr;
  Cached& slot = cache[next_slot];
  next_slot = (next_slot + 1) % cache.size();
  slot = {*shape, n, tree->leaf_depths()};
  return &slot.depths;
}

std::vector<Format> bound_formats(const BoundExpr& bound) {
  std::vector<Format> formats;
  if (bound.inner) formats = bound_formats(*bound.inner);
  if (bound.kind != BoundKind::correctly_rounded && bound.kind != BoundKind::faithful && bound.kind != BoundKind::ulps)
    formats.push_back(bound.format);
  return formats;
}

std::string to_string(const BoundExpr& bound) {
  const std::string name(info(bound.kind).name);
  const std::string format(accucheck::name(bound.format));
  switch (bound.kind) {
    case BoundKind::recursive:
    case BoundKind::anyorder:
    case BoundKind::kahan:
    case BoundKind::neumaier:
    case BoundKind::products: return name + "(" + format + ")";
    case BoundKind::tree: return name + "(" + shape_text(bound.shape) + "," + format + ")";
    case BoundKind::widened:
    case BoundKind::ftz: return name + "(" + to_string(*bound.inner) + "," + format + ")";
    case BoundKind::truncated_inputs:
      return name + "(" + to_string(*bound.inner) + "," + std::to_string(bound.count) + ")";
    case BoundKind::correctly_rounded:
    case BoundKind::faithful: return name;
    case BoundKind::ulps: return name + "(" + std::to_string(bound.count) + ")";
    case BoundKind::depths: {
      std::string text = name + "(";
      if (bound.depths->shape) text += shape_text(*bound.depths->shape) + ",";
      for (const auto& [n, depths] : bound.depths->tables)
        text += "n" + std::to_string(n) + ":" + depths_text(depths) + ",";
      return text + format + ")";
    }
    case BoundKind::reproducible_binned:
    case BoundKind::fused:
      return name + "(" + std::to_string(bound.count) + "," + std::to_string(bound.width) + "," + format + ")";
    case BoundKind::fused_promoted:
      return name + "(" + std::to_string(bound.count) + "," + std::to_string(bound.width) + "," +
             std::to_string(bound.period) + "," + (bound.result_bits ? std::to_string(bound.result_bits) + "," : "") +
             format + ")";
    case BoundKind::fused_truncated:
      return name + "(" + std::to_string(bound.count) + "," + std::to_string(bound.width) + "," +
             std::to_string(bound.result_bits) + "," + format + ")";
    case BoundKind::stochastic: {
      // Shortest text that parses back to the same lambda (an ostream's default 6 digits
      // would change the bound on the way through a case file).
      char lambda[64];
      const auto printed = std::to_chars(lambda, lambda + sizeof lambda, bound.lambda);
      return name + "(" + std::string(lambda, printed.ptr) + "," + format + ")";
    }
  }
  return name;
}

std::optional<BoundExpr> parse_bound(std::string_view text, std::string* error) {
  std::string message;
  Node root;
  Parser parser(text);
  std::optional<BoundExpr> result;
  if (parser.parse(root, message)) result = build(root, message);
  if (!result && error) *error = "bad bound expression '" + std::string(text) + "': " + message;
  return result;
}

}  // namespace accucheck
