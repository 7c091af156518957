// A value type whose + records which values are added in which order: the order models of
// order_models.h (and the backends' loops restated in tests), evaluated on symbolic leaves, give
// the summation tree they build, as text written here independently of core's SummationTree:
// "((0 1) 2)", every node in parentheses, children by their smallest leaf.
#pragma once

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "accucheck/testing/order_models.h"

namespace accucheck::test {

class SymbolicSum {
 public:
  SymbolicSum() = default;  // the empty value: an identity, added without a node
  static SymbolicSum leaf(std::size_t i) {
    auto node = std::make_shared<Node>();
    node->leaf = static_cast<long>(i);
    node->smallest = static_cast<long>(i);
    SymbolicSum s;
    s.node_ = std::move(node);
    return s;
  }
  bool empty() const { return !node_; }

  friend SymbolicSum operator+(const SymbolicSum& a, const SymbolicSum& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    auto node = std::make_shared<Node>();
    node->children = {a.node_, b.node_};
    node->smallest = std::min(a.node_->smallest, b.node_->smallest);
    SymbolicSum s;
    s.node_ = std::move(node);
    return s;
  }

  // One node adding every operand at once (a tensor core's fused multi-term addition).
  static SymbolicSum fused(const std::vector<SymbolicSum>& operands) {
    auto node = std::make_shared<Node>();
    for (const auto& o : operands) {
      if (o.empty()) continue;
      node->children.push_back(o.node_);
      node->smallest = node->smallest < 0 ? o.node_->smallest : std::min(node->smallest, o.node_->smallest);
    }
    if (node->children.size() == 1) {
      SymbolicSum only;
      only.node_ = node->children[0];
      return only;
    }
    SymbolicSum s;
    if (!node->children.empty()) s.node_ = std::move(node);
    return s;
  }

  std::string text() const {
    if (empty()) return "";
    std::string out;
    write(*node_, out);
    return out;
  }

 private:
  struct Node {
    long leaf = -1;
    long smallest = -1;
    std::vector<std::shared_ptr<const Node>> children;
  };
  static void write(const Node& n, std::string& out) {
    if (n.leaf >= 0) {
      out += std::to_string(n.leaf);
      return;
    }
    auto kids = n.children;
    std::sort(kids.begin(), kids.end(), [](const auto& x, const auto& y) { return x->smallest < y->smallest; });
    out += '(';
    for (std::size_t k = 0; k < kids.size(); ++k) {
      if (k) out += ' ';
      write(*kids[k], out);
    }
    out += ')';
  }
  std::shared_ptr<const Node> node_;
};

template <>
inline SymbolicSum zero<SymbolicSum>() {
  return SymbolicSum{};
}
template <>
inline SymbolicSum identity<SymbolicSum>() {
  return SymbolicSum{};
}

// Leaves 0..n-1.
inline std::vector<SymbolicSum> symbolic_leaves(std::size_t n) {
  std::vector<SymbolicSum> x;
  for (std::size_t i = 0; i < n; ++i) x.push_back(SymbolicSum::leaf(i));
  return x;
}

}  // namespace accucheck::test
