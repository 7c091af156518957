// The tree reveal (tree_reveal.h): the pair probes and how their answers build the tree.
#include "characterize/tree_reveal.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

namespace accucheck::characterization {

namespace {

// Reveals the tree by the pair probes. A task asks L(p, x) = the leaves below the lowest common
// node of p and x for targets x of one pivot p, counting only the leaves of a `universe` that
// holds every such node (leaves outside it survive anyway), in chunks of at most `capacity`.
//   build(S): S is one subtree, p = min S: grouping x by L gives p's ancestors inside S (sizes
//     1 + |G_1| + ... + |G_k|) and G_k, the other children of the k-th; a group of one leaf is a
//     child, larger groups are split.
//   split(G, node of v leaves): G is one or more children of that node; with c = min G, the x
//     with L(c, x) < v form c's child (a build whose answers are already known), the rest the others.
class TreeReveal {
 public:
  TreeReveal(Prober& prober, std::size_t n, const CountProbe& probe, const RunOptions& options,
             const Placement& placement)
      : prober_(prober), n_(n), probe_(probe), options_(options), placement_(placement) {}

  Reveal run() {
    Reveal out;
    if (n_ == 1) {
      out.tree = TreeBuilder(1).finish(0);
      return out;
    }
    auto all = std::make_shared<std::vector<std::uint32_t>>(n_);
    for (std::uint32_t i = 0; i < n_; ++i) (*all)[i] = i;
    Task first;
    first.split = false;
    first.pivot = 0;
    first.targets.assign(all->begin() + 1, all->end());
    first.universe = all;
    first.attach_to = kRoot;
    std::vector<Task> pending{first};
    bool any_swamped = false;
    while (!pending.empty() && failure_.empty()) {
      const auto answers = ask(pending, any_swamped);
      if (!failure_.empty()) break;
      std::vector<Task> next;
      for (std::size_t t = 0; t < pending.size() && failure_.empty(); ++t) process(pending[t], answers[t], next);
      pending = std::move(next);
    }
    out.clean = clean_;
    if (!failure_.empty()) {
      out.all_survive = clean_ && !any_swamped;
      out.failure = failure_;
      return out;
    }
    out.tree = assemble();
    return out;
  }

 private:
  static constexpr std::int64_t kRoot = INT64_MIN;  // attach_to of the whole tree
  struct Task {
    bool split = false;
    std::uint32_t pivot = 0;
    std::vector<std::uint32_t> targets;
    std::shared_ptr<const std::vector<std::uint32_t>> universe;  // sorted
    std::int64_t attach_to = kRoot;                              // the node whose child the result is
  };
  struct Node {
    std::vector<std::int64_t> children;  // >= 0: a leaf; < 0: node -(index + 1)
  };

  // L(pivot, x) for every task's targets, in as few calls as the batching allows.
  std::vector<std::vector<std::uint32_t>> ask(const std::vector<Task>& tasks, bool& any_swamped) {
    struct Column {
      std::size_t task, target, chunk;
    };
    std::vector<Column> columns;
    for (std::size_t t = 0; t < tasks.size(); ++t) {
      const std::size_t chunks = (tasks[t].universe->size() + probe_.capacity - 1) / probe_.capacity;
      for (std::size_t x = 0; x < tasks[t].targets.size(); ++x)
        for (std::size_t c = 0; c < chunks; ++c) columns.push_back({t, x, c});
    }
    const auto results = prober_.run(
        n_, columns.size(),
        [&](std::size_t k, std::span<double> leaves) {
          const Column& col = columns[k];
          const Task& task = tasks[col.task];
          const std::uint32_t x = task.targets[col.target];
          const auto& u = *task.universe;
          const std::size_t begin = col.chunk * probe_.capacity, end = std::min(u.size(), begin + probe_.capacity);
          for (std::size_t i = begin; i < end; ++i)
            if (u[i] != task.pivot && u[i] != x) leaves[u[i]] = probe_.small;
          leaves[task.pivot] = probe_.big;
          leaves[x] = -probe_.big;
        },
        options_, placement_);
    std::vector<std::vector<std::uint32_t>> survivors(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t) survivors[t].assign(tasks[t].targets.size(), 0);
    for (std::size_t k = 0; k < columns.size(); ++k) {
      const Column& col = columns[k];
      const Task& task = tasks[col.task];
      const auto& u = *task.universe;
      const std::size_t begin = col.chunk * probe_.capacity, end = std::min(u.size(), begin + probe_.capacity);
      std::size_t counted = end - begin;
      for (std::size_t i = begin; i < end; ++i)
        if (u[i] == task.pivot || u[i] == task.targets[col.target]) --counted;
      const double r = results[k];
      const double count = r / probe_.small;
      if (!std::isfinite(r) || count < 0 || count != std::floor(count) || count * probe_.small != r ||
          count > counted) {
        clean_ = false;
        failure_ = "a pair probe gave " + hex_float(r) + ", not a whole count of s = " + hex_float(probe_.small) +
                   " (0 to " + std::to_string(counted) + "): no tree of roundings explains it";
        return {};
      }
      if (count < counted) any_swamped = true;
      survivors[col.task][col.target] += static_cast<std::uint32_t>(count);
    }
    std::vector<std::vector<std::uint32_t>> lca(tasks.size());
    for (std::size_t t = 0; t < tasks.size(); ++t)
      for (std::size_t x = 0; x < tasks[t].targets.size(); ++x)
        lca[t].push_back(static_cast<std::uint32_t>(tasks[t].universe->size()) - survivors[t][x]);
    return lca;
  }

  std::int64_t new_node() {
    nodes_.emplace_back();
    return -static_cast<std::int64_t>(nodes_.size());
  }
  Node& node(std::int64_t ref) { return nodes_[static_cast<std::size_t>(-ref - 1)]; }

  void attach(std::int64_t parent, std::int64_t child) {
    if (parent == kRoot)
      root_ = child;
    else
      node(parent).children.push_back(child);
  }

  void process(const Task& task, const std::vector<std::uint32_t>& lca, std::vector<Task>& next) {
    if (!task.split) {
      attach(task.attach_to, build(task.pivot, task.targets, lca, next));
      return;
    }
    // Split: c's child holds the x with L < v; the rest are the node's other children.
    const auto v = static_cast<std::uint32_t>(task.universe->size());
    std::vector<std::uint32_t> inside, inside_lca, rest;
    for (std::size_t k = 0; k < task.targets.size(); ++k) {
      if (lca[k] < 2 || lca[k] > v) {
        failure_ = "the pair probes of leaves " + std::to_string(task.pivot) + " and " +
                   std::to_string(task.targets[k]) + " disagree with the others (no single tree explains them)";
        return;
      }
      if (lca[k] < v) {
        inside.push_back(task.targets[k]);
        inside_lca.push_back(lca[k]);
      } else {
        rest.push_back(task.targets[k]);
      }
    }
    attach(task.attach_to, build(task.pivot, inside, inside_lca, next));
    if (rest.empty()) return;
    if (rest.size() == 1) {
      attach(task.attach_to, rest[0]);
      return;
    }
    Task more;
    more.split = true;
    more.pivot = rest[0];
    more.targets.assign(rest.begin() + 1, rest.end());
    more.universe = task.universe;
    more.attach_to = task.attach_to;
    next.push_back(std::move(more));
  }

  // The subtree of `pivot` and `targets` from L(pivot, x): its chain of ancestors of the pivot.
  std::int64_t build(std::uint32_t pivot, const std::vector<std::uint32_t>& targets,
                     const std::vector<std::uint32_t>& lca, std::vector<Task>& next) {
    std::map<std::uint32_t, std::vector<std::uint32_t>> groups;
    for (std::size_t k = 0; k < targets.size(); ++k) groups[lca[k]].push_back(targets[k]);
    std::int64_t current = pivot;
    auto below = std::make_shared<std::vector<std::uint32_t>>(1, pivot);
    std::uint32_t size = 1;
    for (auto& [l, group] : groups) {
      size += static_cast<std::uint32_t>(group.size());
      if (l != size) {
        failure_ = "leaf " + std::to_string(pivot) + "'s pair probes give a node of " + std::to_string(l) +
                   " leaves where " + std::to_string(size) + " are below it (no single tree explains them)";
        return current;
      }
      const std::int64_t parent = new_node();
      node(parent).children.push_back(current);
      below->insert(below->end(), group.begin(), group.end());
      if (group.size() == 1) {
        node(parent).children.push_back(group[0]);
      } else {
        Task split;
        split.split = true;
        split.pivot = group[0];
        split.targets.assign(group.begin() + 1, group.end());
        auto universe = std::make_shared<std::vector<std::uint32_t>>(*below);
        std::sort(universe->begin(), universe->end());
        split.universe = std::move(universe);
        split.attach_to = parent;
        next.push_back(std::move(split));
      }
      current = parent;
    }
    return current;
  }

  SummationTree assemble() {
    // Post-order without recursion: a node's children before it.
    TreeBuilder b(n_);
    std::map<std::int64_t, TreeBuilder::Ref> made;
    std::vector<std::pair<std::int64_t, bool>> stack{{root_, false}};
    TreeBuilder::Ref root_ref = TreeBuilder::kEmpty;
    while (!stack.empty()) {
      auto [ref, expanded] = stack.back();
      stack.pop_back();
      if (ref >= 0) continue;
      if (!expanded) {
        stack.push_back({ref, true});
        for (std::int64_t c : node(ref).children) stack.push_back({c, false});
        continue;
      }
      std::vector<TreeBuilder::Ref> kids;
      for (std::int64_t c : node(ref).children)
        kids.push_back(c >= 0 ? b.leaf(static_cast<std::size_t>(c)) : made.at(c));
      made[ref] = root_ref = b.fused(kids);
    }
    if (root_ >= 0) root_ref = b.leaf(static_cast<std::size_t>(root_));
    return b.finish(root_ref);
  }

  Prober& prober_;
  std::size_t n_;
  CountProbe probe_;
  RunOptions options_;
  Placement placement_;
  std::vector<Node> nodes_;
  std::int64_t root_ = 0;
  std::string failure_;
  bool clean_ = true;
};

}  // namespace

Reveal reveal_tree(Prober& prober, std::size_t n, const CountProbe& probe, const RunOptions& options,
                   const Placement& placement) {
  return TreeReveal(prober, n, probe, options, placement).run();
}

}  // namespace accucheck::characterization
