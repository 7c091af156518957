// The text side shared by every kind: a bound expression parsed into a tree of Nodes
// (NAME [ '(' ARG {',' ARG} ')' ]), the readers of the arguments several kinds take (an
// integer, a format, a tree shape, a count of arguments, an inner error bound) and the
// printer's helpers. A kind's own parse and print, from and to a Node, live with its formula
// (kind.h); `build` turns a Node into a BoundExpr through the table of kinds (kinds.cpp).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "checking/bound.h"

namespace accucheck::bounds {

struct Node {
  std::string head;  // identifier or literal ("f32", "blocked:64", "3", "recursive")
  std::vector<Node> arguments;
  bool has_parentheses = false;
};

// The whole of `text` as one Node; false with `error` set (saying where) on failure.
bool parse_node(std::string_view text, Node& out, std::string& error);

// The bound a Node states, by its head's kind (kinds.cpp); nullopt with `error` set on failure.
std::optional<BoundExpr> build(const Node& node, std::string& error);

bool parse_unsigned(std::string_view text, std::uint64_t& out);
bool to_format(const Node& node, Format& out, std::string& error);
// A tree shape's text (tree_shapes.cpp).
bool to_shape(const Node& node, TreeShape& out, std::string& error);
bool expect_arguments(const Node& node, std::size_t count, std::string& error);

// KIND(F), the arguments of recursive, anyorder, kahan, neumaier and products: bound.format.
bool parse_format_argument(const Node& node, BoundExpr& bound, std::string& error);
std::string print_format_argument(const BoundExpr& bound);

// KIND(K,W,F) with integers K and W in their ranges: bound.count, bound.width and bound.format.
struct Range {
  std::uint64_t low, high;
};
bool count_width_format(const Node& node, Range count, Range width, const char* usage, BoundExpr& bound,
                        std::string& error);
std::string print_count_width_format(const BoundExpr& bound);

// The error bound a wrapper of two arguments (widened, ftz, truncated_inputs) holds as its first.
std::optional<BoundExpr> build_inner(const Node& node, std::string& error);

// Printing: the bound's format ("f32"), and NAME(ARG,...,ARG) with the bound's kind name.
std::string format_text(const BoundExpr& bound);
std::string call_text(const BoundExpr& bound, std::initializer_list<std::string> arguments);

}  // namespace accucheck::bounds
