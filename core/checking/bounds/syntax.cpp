// The bound expression parser (a tiny recursive descent over NAME [ '(' ARG {',' ARG} ')' ]) and
// the argument readers and print helpers that several kinds share (syntax.h).
#include "checking/bounds/syntax.h"

#include <cctype>
#include <charconv>
#include <memory>

namespace accucheck::bounds {
namespace {

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

}  // namespace

bool parse_node(std::string_view text, Node& out, std::string& error) { return Parser(text).parse(out, error); }

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

bool expect_arguments(const Node& node, std::size_t count, std::string& error) {
  if (node.arguments.size() != count) {
    error = "'" + node.head + "' takes " + std::to_string(count) + " argument" + (count == 1 ? "" : "s") + ", got " +
            std::to_string(node.arguments.size());
    return false;
  }
  return true;
}

bool parse_format_argument(const Node& node, BoundExpr& bound, std::string& error) {
  return expect_arguments(node, 1, error) && to_format(node.arguments[0], bound.format, error);
}
std::string print_format_argument(const BoundExpr& bound) { return call_text(bound, {format_text(bound)}); }

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
std::string print_count_width_format(const BoundExpr& bound) {
  return call_text(bound, {std::to_string(bound.count), std::to_string(bound.width), format_text(bound)});
}

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

std::string format_text(const BoundExpr& bound) { return std::string(accucheck::name(bound.format)); }

std::string call_text(const BoundExpr& bound, std::initializer_list<std::string> arguments) {
  std::string text = to_string(bound.kind) + "(";
  bool first = true;
  for (const std::string& argument : arguments) {
    if (!first) text += ",";
    text += argument;
    first = false;
  }
  return text + ")";
}

}  // namespace accucheck::bounds
