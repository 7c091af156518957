// All-reduce orders: the association in which the all-reduce algorithms of NCCL and Open MPI
// add P ranks' values of one buffer element. Each function takes the P values in rank order and
// returns their sum computed with T's + in that association. Only the association matters: IEEE
// addition is commutative, so which operand a library puts first never changes the bits.
//
// Sources (read, not copied): NVIDIA/nccl v2.28.9-1 (src/graph/trees.cc ncclGetBtree and
// ncclGetDtree, src/graph/connect.cc connectTrees and setTreeDown, src/device/all_reduce.h
// runRing and runTreeSplit, src/device/prims_simple.h and common_kernel.h: a node's own input is
// srcs[0] and the received partial sums follow in down[] order, folded from the left);
// open-mpi/ompi v4.1.4 (ompi/mca/coll/base/coll_base_allreduce.c: recursive doubling, ring,
// Rabenseifner; coll_base_reduce.c: the basic linear reduce). docs/bounds.md "All-reduce".
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace accucheck::impls::allreduce {

// x[first], x[first+1], ... x[first-1] (indices mod P) added in that order from the left.
template <class T>
T rotated_in_order(std::span<const T> x, std::size_t first) {
  const std::size_t ranks = x.size();
  T acc = x[first % ranks];
  for (std::size_t k = 1; k < ranks; ++k) acc = acc + x[(first + k) % ranks];
  return acc;
}

// ---------------------------------------------------------------------------------------------
// NCCL

// runRing with one channel and the ring in rank order: chunk c starts at rank c+1, each rank adds
// its own value to the partial sum it receives and passes it on, rank c completes it. Chunks hold
// alignUp(ceil(D/P), 16 bytes / element size) elements: the last loop's chunkCount, and every
// buffer below P chunks of 2 MiB is one loop.
inline std::size_t nccl_ring_chunk(std::size_t element, std::size_t elements, std::size_t ranks,
                                   std::size_t element_bytes) {
  const std::size_t per_rank = (elements + ranks - 1) / ranks;
  const std::size_t align = 16 / element_bytes;
  const std::size_t chunk = (per_rank + align - 1) / align * align;
  return element / chunk;
}
template <class T>
T nccl_ring(std::span<const T> x, std::size_t chunk) {
  return rotated_in_order(x, chunk + 1);
}

// ncclGetBtree: a binary tree over n nodes rooted at 0 whose links follow the lowest set bit of
// the node's number; -1 where there is no link. Node 0's single child is reported as down1.
struct TreeLinks {
  long up = -1, down0 = -1, down1 = -1;
};
inline TreeLinks nccl_btree(long nodes, long node) {
  TreeLinks links;
  long bit = 1;
  while (bit < nodes && (bit & node) == 0) bit <<= 1;
  if (node == 0) {
    links.down1 = nodes > 1 ? bit >> 1 : -1;
    return links;
  }
  links.up = (node ^ bit) | (bit << 1);
  if (links.up >= nodes) links.up = node ^ bit;
  const long low = bit >> 1;
  if (low == 0) return links;
  links.down0 = node - low;
  // The second child: node + low, else the nearest node + low/2, low/4, ... that exists.
  for (long step = low; step > 0; step >>= 1)
    if (node + step < nodes) {
      links.down1 = node + step;
      break;
    }
  return links;
}
// ncclGetDtree: tree 0 is the btree; tree 1 is its mirror (n - 1 - node) when n is even and its
// shift by one node when n is odd, so that a node inside one tree is a leaf of the other.
inline TreeLinks nccl_dtree(long nodes, long node, int tree) {
  if (tree == 0) return nccl_btree(nodes, node);
  const bool mirror = nodes % 2 == 0;
  auto to_tree = [&](long x) { return mirror ? nodes - 1 - x : (x - 1 + nodes) % nodes; };
  auto from_tree = [&](long x) { return x < 0 ? -1 : mirror ? nodes - 1 - x : (x + 1) % nodes; };
  const TreeLinks t = nccl_btree(nodes, to_tree(node));
  return {from_tree(t.up), from_tree(t.down0), from_tree(t.down1)};
}

// NCCL's tree all-reduce over nodes of `gpus_per_node` ranks (ranks k*G .. k*G+G-1 on node k, the
// last node possibly fewer): inside a node the ranks form a chain (each adds its own value to the
// sum coming up the chain), across nodes the double binary tree; a node's head adds, in down[]
// order, the chain's sum, then its remote children d0 and d1 (setTreeDown appends them after the
// chain child). Reduced up to the tree's root and broadcast from it.
template <class T>
T nccl_tree_node(std::span<const T> x, std::size_t gpus_per_node, long nodes, long node, int tree) {
  const std::size_t head = static_cast<std::size_t>(node) * gpus_per_node;
  const std::size_t size = std::min(gpus_per_node, x.size() - head);
  T acc = x[head];
  if (size > 1) {
    T chain = x[head + size - 1];
    for (std::size_t i = head + size - 1; i-- > head + 1;) chain = x[i] + chain;
    acc = acc + chain;
  }
  const TreeLinks links = nccl_dtree(nodes, node, tree);
  if (links.down0 >= 0) acc = acc + nccl_tree_node(x, gpus_per_node, nodes, links.down0, tree);
  if (links.down1 >= 0) acc = acc + nccl_tree_node(x, gpus_per_node, nodes, links.down1, tree);
  return acc;
}
template <class T>
T nccl_tree(std::span<const T> x, std::size_t gpus_per_node, int tree) {
  const long nodes = static_cast<long>((x.size() + gpus_per_node - 1) / gpus_per_node);
  long root = 0;
  while (nccl_dtree(nodes, root, tree).up >= 0) ++root;
  return nccl_tree_node(x, gpus_per_node, nodes, root, tree);
}
// Which of the two trees reduces an element: channel c runs tree 0, channel c + nChannels tree 1,
// each channel one contiguous part of the buffer. Modelled as two channels, the first half of the
// buffer (rounded up) on tree 0: NCCL's scheduler (enqueue.cc) may give a small buffer one channel.
inline int nccl_tree_of(std::size_t element, std::size_t elements) { return element < (elements + 1) / 2 ? 0 : 1; }

// ---------------------------------------------------------------------------------------------
// Open MPI (coll/base, v4.1.4)

// allreduce_intra_recursivedoubling: with adj the largest power of two <= P and extra = P - adj,
// ranks 2i and 2i+1 (i < extra) first add their values, then a perfect binary tree over the adj
// partial values in order (exchanges at distance 1, 2, 4, ...).
template <class T>
T mpi_recursive_doubling(std::span<const T> x) {
  const std::size_t ranks = x.size();
  std::size_t adj = 1;
  while (adj * 2 <= ranks) adj *= 2;
  const std::size_t extra = ranks - adj;
  std::vector<T> level(adj);
  for (std::size_t i = 0; i < adj; ++i) level[i] = i < extra ? x[2 * i] + x[2 * i + 1] : x[i + extra];
  for (std::size_t distance = 1; distance < adj; distance *= 2)
    for (std::size_t i = 0; i < adj; i += 2 * distance) level[i] = level[i] + level[i + distance];
  return level[0];
}

// coll_base_reduce's basic linear reduce to rank 0, then a broadcast: x_0 + (x_1 + (... + x_{P-1})).
template <class T>
T mpi_basic_linear(std::span<const T> x) {
  T acc = x.back();
  for (std::size_t i = x.size() - 1; i-- > 0;) acc = x[i] + acc;
  return acc;
}

// allreduce_intra_ring: the buffer in P blocks, the first D mod P of them one element longer;
// block b starts at rank b and goes around: ((x_b + x_{b+1}) + ...) + x_{b-1}. Buffers of fewer
// than P elements take recursive doubling instead.
inline std::size_t mpi_ring_block(std::size_t element, std::size_t elements, std::size_t ranks) {
  const std::size_t small = elements / ranks, split = elements % ranks;
  const std::size_t early = split * (small + 1);
  return element < early ? element / (small + 1) : split + (element - early) / small;
}
template <class T>
T mpi_ring(std::span<const T> x, std::size_t element, std::size_t elements) {
  if (elements < x.size()) return mpi_recursive_doubling(x);
  return rotated_in_order(x, mpi_ring_block(element, elements, x.size()));
}

// allreduce_intra_redscat_allgather (Rabenseifner): the same fold of the first 2*rem ranks and
// the same tree over the remaining power of two as recursive doubling, element by element (the
// reduce-scatter halves the buffer at masks 1, 2, 4, ...); buffers of fewer elements than that
// power of two take the basic linear algorithm instead.
template <class T>
T mpi_rabenseifner(std::span<const T> x, std::size_t elements) {
  std::size_t pof2 = 1;
  while (pof2 * 2 <= x.size()) pof2 *= 2;
  if (elements < pof2) return mpi_basic_linear(x);
  return mpi_recursive_doubling(x);
}

}  // namespace accucheck::impls::allreduce
