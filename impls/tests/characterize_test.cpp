// characterize over every registered CPU backend (one test each): the order it recovers is the
// order the backend's loop builds, restated here independently (testing/order_models.h and the
// CUDA order models on symbolic leaves, printed by the testing library); the classes that are no
// single tree (compensated, exact, run-dependent) are reported as such; the derived bound is no
// looser than the stated one and holds on generated workloads at the probed lengths. And the
// planted mutants that change the order, the precision or the determinism are contradicted.
#include <gtest/gtest.h>

#include <bit>
#include <functional>
#include <string>
#include <tuple>

#include "accucheck/testing/order_models.h"
#include "accucheck/testing/symbolic_tree.h"
#include "characterize/characterize.h"
#include "checking/families.h"
#include "checking/judge.h"
#include "common/allreduce_orders.h"
#include "cuda/tree/tree_models.h"
#include "engine/findings.h"
#include "mutants/mutants.h"

namespace accucheck {
namespace {

using test::symbolic_leaves;
using test::SymbolicSum;

const std::vector<std::size_t> kLengths{2, 3, 5, 8, 9, 17, 33, 100};

std::string chain(const std::vector<SymbolicSum>& x, std::size_t first) {
  SymbolicSum s = x[first];
  for (std::size_t i = first + 1; i < x.size(); ++i) s = s + x[i];
  return s.text();
}
std::string sequential(std::size_t n) { return chain(symbolic_leaves(n), 0); }
// The initial value added last, to a chain of the others (manual accumulation, segment-then-add).
std::string initial_last(std::size_t n) {
  const auto x = symbolic_leaves(n);
  if (n == 2) return (x[0] + x[1]).text();
  SymbolicSum rest = x[1];
  for (std::size_t i = 2; i < n; ++i) rest = rest + x[i];
  return (x[0] + rest).text();
}
// MXNet ElemwiseSum, kAddTo (impls/cpu/elemwise_sum.cpp): m <= 4 inputs: out + (((in0 + in1) + ...);
// more: (out + (in0 + in1)) + in2 + ...
std::string elemwise_sum(std::size_t n) {
  const auto x = symbolic_leaves(n);
  const std::size_t m = n - 1;
  if (m <= 4) return initial_last(n);
  SymbolicSum out = x[0] + (x[1] + x[2]);
  for (std::size_t i = 3; i < n; ++i) out = out + x[i];
  return out.text();
}
std::string cuda_tree(std::size_t n, const cuda_tree::BlockConfig& c) {
  const auto x = symbolic_leaves(n);
  return cuda_models::block_tree_sum<SymbolicSum>(
             n, [&](std::uint64_t p) { return x[p]; }, c, SymbolicSum{}, cuda_models::PlainAdd{})
      .text();
}

// impls/cpu/fused_window.cpp: the accumulator and the next K addends in one fused node per step.
std::string fused_steps(std::size_t n, std::size_t k) {
  const auto x = symbolic_leaves(n);
  SymbolicSum acc = x[0];
  for (std::size_t i = 1; i < n; i += k) {
    std::vector<SymbolicSum> operands{acc};
    for (std::size_t j = i; j < std::min(n, i + k); ++j) operands.push_back(x[j]);
    acc = SymbolicSum::fused(operands);
  }
  return acc.text();
}

// The promoted variants: each chunk of `period` addends in fused steps from zero (no leaf), the
// chunk's sum then added to the accumulator by one binary addition.
std::string promoted_steps(std::size_t n, std::size_t k, std::size_t period) {
  const auto x = symbolic_leaves(n);
  SymbolicSum acc = x[0];
  for (std::size_t chunk = 1; chunk < n; chunk += period) {
    const std::size_t end = std::min(n, chunk + period);
    SymbolicSum partial;  // the zero start
    for (std::size_t i = chunk; i < end; i += k) {
      std::vector<SymbolicSum> operands{partial};
      for (std::size_t j = i; j < std::min(end, i + k); ++j) operands.push_back(x[j]);
      partial = SymbolicSum::fused(operands);
    }
    acc = acc + partial;
  }
  return acc.text();
}

// Open MPI's recursive doubling (coll_base_allreduce.c), restated by recursion: ranks 2i and 2i+1
// (i < n - 2^k, 2^k the largest power of two <= n) add first, then the 2^k values are halved in
// order. Its basic linear reduce: x0 + (x1 + (... + x_{n-1})).
SymbolicSum halves(const std::vector<SymbolicSum>& v, std::size_t begin, std::size_t end) {
  if (end - begin == 1) return v[begin];
  const std::size_t middle = begin + (end - begin) / 2;
  return halves(v, begin, middle) + halves(v, middle, end);
}
std::string recursive_doubling(std::size_t n) {
  const auto x = symbolic_leaves(n);
  const std::size_t power = std::size_t{1} << (std::bit_width(n) - 1);
  std::vector<SymbolicSum> folded;
  for (std::size_t i = 0; i < n - power; ++i) folded.push_back(x[2 * i] + x[2 * i + 1]);
  for (std::size_t i = 2 * (n - power); i < n; ++i) folded.push_back(x[i]);
  return halves(folded, 0, folded.size()).text();
}
std::string right_fold(std::size_t n) {
  const auto x = symbolic_leaves(n);
  SymbolicSum s = x[n - 1];
  for (std::size_t i = n - 1; i-- > 0;) s = x[i] + s;
  return s.text();
}

// NCCL's tree with 8 ranks per node, up to two nodes: each node's chain (every rank adding its own
// value to the sum below it), the second node's sum added to the first's.
std::string nccl_nodes_of_8(std::size_t n) {
  const auto x = symbolic_leaves(n);
  auto chain = [&](std::size_t begin, std::size_t end) {
    SymbolicSum s = x[end - 1];
    for (std::size_t i = end - 1; i-- > begin;) s = x[i] + s;
    return s;
  };
  return n <= 8 ? chain(0, n).text() : (chain(0, 8) + chain(8, n)).text();
}

// What characterize must report for a backend.
struct Expected {
  std::string order;                             // order class at the lengths above 2
  std::function<std::string(std::size_t)> tree;  // the tree, for "tree"
  std::string compensated, rounding;
  std::vector<Relation> relations{Relation::equal, Relation::tighter};
  std::string shape = "";    // the tree shape the derived bound names, when one is known
  std::string derived = "";  // the whole derived bound, when the test knows it exactly
};

Expected expected_for(const std::string& b) {
  auto starts = [&](const char* prefix) { return b.rfind(prefix, 0) == 0; };
  // Scales every addend by 1000 and back: more than a tree of roundings. The pair probes show a
  // left-to-right chain where the unscaled counts stay whole (the shorter lengths), else no tree.
  if (b == "loss_scaled_1000_f32") return {"", sequential, "", "", {Relation::undetermined}};
  if (b == "widened_f16_acc_f64") return {"exact", {}, "", ""};    // f16 sums of these lengths are exact in binary64
  if (starts("gemm_beta1_")) return {"tree", sequential, "", ""};  // products(F): the order is not in the bound
  if (starts("naive_") || starts("embedding_scatter_") || starts("embedding_sorted_segment_") ||
      starts("cuda_model_embedding_grad_") || starts("master_f32_copy_") || starts("loss_scaled_pow2_") ||
      starts("widened_"))
    return {"tree", sequential, "", "", {Relation::equal, Relation::tighter}, "sequential"};
  if (starts("stochastic_")) return {"tree", sequential, "", "stochastic"};
  const std::vector<Relation> fine{Relation::equal, Relation::tighter};
  if (starts("pairwise_"))
    return {"tree", [](std::size_t n) { return test::model_numpy(symbolic_leaves(n).data(), n).text(); }, "", "", fine,
            "numpy"};
  if (starts("blocked64_"))
    return {"tree", [](std::size_t n) { return test::model_blocked(symbolic_leaves(n).data(), n, 64).text(); },
            "",     "",
            fine,   "blocked:64"};
  if (starts("lanes8_"))
    return {"tree", [](std::size_t n) { return test::model_lanes8(symbolic_leaves(n).data(), n).text(); },
            "",     "",
            fine,   "lanes:8"};
  if (starts("cuda_model_warp_tree_"))
    return {
        "tree", [](std::size_t n) { return cuda_tree(n, cuda_tree::kWarpTree); }, "", "", fine, "cuda_block:32:1:1"};
  if (starts("cuda_model_block_reduce_"))
    return {"tree", [](std::size_t n) { return cuda_tree(n, cuda_tree::kBlockReduce); },
            "",     "",
            fine,   "cuda_block:256:4:1024"};
  if (starts("kahan_") || starts("cuda_model_kahan_")) return {"data-dependent", {}, "kahan", ""};
  if (starts("neumaier_")) return {"data-dependent", {}, "neumaier", ""};
  if (starts("correctly_rounded_") || starts("cuda_model_exact_superacc_")) return {"exact", {}, "", ""};
  if (starts("threaded_") || starts("cuda_model_atomic_") || starts("embedding_atomic_order_"))
    return {"run-dependent", {}, "", ""};
  if (starts("manual_dot_then_add_")) return {"tree", initial_last, "", ""};
  // A chain per step, then into the buffer: the tree depends on how the pairs fall into steps.
  if (starts("embedding_segment_then_add_") || starts("embedding_dense_add_")) return {"data-dependent", {}, "", ""};
  if (starts("elemwise_sum_addto_")) return {"tree", elemwise_sum, "", ""};
  if (starts("openblas_")) return {"", {}, "", ""};  // OpenBLAS's kernels differ by CPU: its order is not asserted
  // The fused steps and their window are recognised. The per-architecture models derive exactly
  // what they state: the rounding of their sums is not seen, and the derivation assumes it toward
  // zero to min(W, 24) bits, which is theirs. The round-to-nearest models' sums of 14-bit-aligned
  // operands need no rounding in FP32, so nothing shows their rounding either: they derive that
  // same assumption. On the probes' inputs (few significant bits) fused_truncated's tighter step
  // counts K losing operands (docs/bounds.md "Truncated results"), so it is below the
  // fused(K,14,f32) they state, which counts K + 1: tighter. The promoted ones show rounding
  // to nearest in their FP32 additions at n = 600 (added to their lengths below: past a promotion
  // for every N) and derive fused_promoted with the smallest period the lengths show, their own,
  // and the chunks' sums assumed cut to 14 bits (below).
  for (std::size_t k : {4, 8, 16, 32})
    if (b == "tc_fused" + std::to_string(k) + "_w14_f32")
      return {"tree", [k](std::size_t n) { return fused_steps(n, k); },      "", "", {Relation::tighter},
              "",     "fused_truncated(" + std::to_string(k) + ",14,14,f32)"};
  // The promoted ones show their promotions rounded to nearest (n = 600); their chunks' sums'
  // rounding cannot be told from the window's cut, so it is assumed toward zero to 14 bits:
  // Hopper's FP8 promoted derives exactly its bound, the round-to-nearest ones one tighter than
  // theirs on the probes' inputs (as above).
  if (b == "tc_h100_fp8_nc128_f32")
    return {"tree",
            [](std::size_t n) { return promoted_steps(n, 32, 128); },
            "",
            "",
            {Relation::equal},
            "",
            "fused_promoted(32,14,128,14,f32)"};
  for (std::size_t period : {32, 128, 512})
    if (b == "tc_fused32_w14_nc" + std::to_string(period) + "_f32")
      return {"tree", [period](std::size_t n) { return promoted_steps(n, 32, period); }, "", "", {Relation::tighter},
              "",     "fused_promoted(32,14," + std::to_string(period) + ",14,f32)"};
  for (const auto& [name, k, window, result_bits] :
       {std::tuple{"tc_v100_f16_f32", 4, 24, 24}, std::tuple{"tc_a100_f16_f32", 8, 25, 24},
        std::tuple{"tc_h100_f16_f32", 16, 26, 24}, std::tuple{"tc_h100_fp8_f32", 32, 14, 14},
        std::tuple{"tc_b200_fp8_f32", 32, 26, 24}, std::tuple{"tc_ada_fp8_f32", 16, 14, 14},
        std::tuple{"tc_a100_tf32_f32", 4, 25, 24}, std::tuple{"tc_h100_tf32_f32", 8, 26, 24}})
    if (b == name)
      return {"tree",
              [k = static_cast<std::size_t>(k)](std::size_t n) { return fused_steps(n, k); },
              "",
              "",
              {Relation::equal},
              "",
              "fused_truncated(" + std::to_string(k) + "," + std::to_string(window) + "," +
                  std::to_string(result_bits) + ",f32)"};
  // CUB's binned accumulator: one fused node over every term (its window, at least 2W bits below the
  // largest term, is measured: 26 for f32, 87 for f64), more addends than the fused kinds state: no
  // bound beyond n = 2, where one rounding's u A is looser than the binned bound.
  if (starts("cuda_model_cub_rfa_"))
    return {"tree",
            [](std::size_t n) { return SymbolicSum::fused(symbolic_leaves(n)).text(); },
            "",
            "",
            {Relation::undetermined, Relation::looser}};
  // All-reduce models over n ranks (impls/cpu/allreduce.cpp). Rabenseifner's order depends on the
  // buffer's width (a buffer of 1 element takes the basic linear reduce), and so does Open MPI's
  // ring's (recursive doubling below n elements; at n = 100 > 65 it is that tree in every
  // element). The rings' and NCCL's trees differ by element: characterize derives anyorder,
  // tighter than the rings' recursive bound, looser than the trees' heights. Up to 16 ranks
  // NCCL's 8-GPU tree has two nodes or one, and both of its trees are the same association.
  if (starts("allreduce_mpi_recursive_doubling_")) return {"tree", recursive_doubling, "", ""};
  if (starts("allreduce_mpi_rabenseifner_")) return {"element-dependent", {}, "", "", fine};
  if (starts("allreduce_mpi_basic_linear_")) return {"tree", right_fold, "", ""};
  if (starts("allreduce_mpi_ring_")) return {"", recursive_doubling, "", "", fine};
  if (starts("allreduce_nccl_ring_")) return {"element-dependent", {}, "", "", fine};
  if (starts("allreduce_nccl_tree_8gpu_"))
    return {"",
            [](std::size_t n) { return n <= 16 ? nccl_nodes_of_8(n) : std::string("(not one tree)"); },
            "",
            "",
            {Relation::equal, Relation::tighter, Relation::looser}};
  if (starts("allreduce_nccl_tree_")) return {"element-dependent", {}, "", "", {Relation::equal, Relation::looser}};
  if (starts("allreduce_nvls_")) return {"run-dependent", {}, "", ""};
  // The real MPI_Allreduce on P ranks (impls/thirdparty/openmpi.cpp): each rank's share a chain,
  // then the library's reduction. Forced to recursive doubling or the basic linear algorithm its
  // order does not depend on the buffer: the shares' chains under the Open MPI order model
  // (impls/tests/openmpi_test.cpp checks the model against the library bit for bit). The other
  // algorithms, and the library's own choice, change with the buffer's size (a width-dependent,
  // element-dependent order: anyorder derived, looser than the stated tree(ranks:P,F) from n = 5).
  if (b == "mpi_allreduce_np4_recursive_doubling_f32" || b == "mpi_allreduce_np4_basic_linear_f32") {
    const bool doubling = b.find("doubling") != std::string::npos;
    return {"tree",
            [doubling](std::size_t n) {
              const auto x = symbolic_leaves(n);
              std::vector<SymbolicSum> partial(4);
              for (std::size_t r = 0; r < 4; ++r)
                for (std::size_t i = n * r / 4; i < n * (r + 1) / 4; ++i) partial[r] = partial[r] + x[i];
              const std::span<const SymbolicSum> p(partial);
              return (doubling ? impls::allreduce::mpi_recursive_doubling(p) : impls::allreduce::mpi_basic_linear(p))
                  .text();
            },
            "", "", fine};
  }
  if (starts("mpi_allreduce_"))
    return {"", {}, "", "", {Relation::equal, Relation::tighter, Relation::looser, Relation::undetermined}};
  return {"?", {}, "", ""};
}

std::vector<std::string> cpu_backends() {
  std::vector<std::string> names;
  for (const auto& b : Registry::global().all())
    if (b.device == Device::cpu && b.origin == "builtin" && !b.fp8_inputs_only && !b.normal_inputs_only)
      names.push_back(b.name);
  return names;
}

// The FP8 GEMM models take no probe (FP8 cannot hold them): refused, naming the dense model.
TEST(Characterize, RefusesTheFp8OnlyModelsNamingTheDenseOne) {
  int refused = 0;
  for (const auto& b : Registry::global().all()) {
    if (!b.fp8_inputs_only) continue;
    try {
      characterize(b, CharacterizeOptions{});
      ADD_FAILURE() << b.name << " was characterized";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("FP8 inputs only"), std::string::npos) << e.what();
      ++refused;
    }
  }
  EXPECT_EQ(refused, 3);
}

class Characterized : public ::testing::TestWithParam<std::string> {};

TEST_P(Characterized, RecoversTheOrderAndDerivesABoundNoLooserThanTheStated) {
  const Backend& b = *Registry::global().find(GetParam());
  const Expected want = expected_for(b.name);
  ASSERT_NE(want.order, "?") << b.name << ": this test does not know the backend's order; add it to expected_for";
  CharacterizeOptions options;
  options.lengths = kLengths;
  // For time (this runs under ASan too): narrower buffers than the default 1025 (one call still
  // looks at 1025), 96 random inputs instead of 256, 4 reruns instead of 6.
  options.width = 65;
  options.model_columns = 96;
  options.repeats = 4;
  // For time: an all-reduce's order depends on the element, so each of its probes is a call over
  // 1025 elements, and n = 100 costs most of the run (20-45 s, minutes under ASan). The 16-bit
  // and f64 variants run the f32 variant's order code, which keeps n = 100.
  if (b.name.rfind("allreduce_", 0) == 0 && b.storage != Format::f32) std::erase(options.lengths, std::size_t{100});
  if (b.name.find("block_reduce") != std::string::npos) options.lengths.push_back(1025);  // a second pass over blocks
  if (b.name.rfind("tc_", 0) == 0 && b.name.find("_nc") != std::string::npos)
    options.lengths.push_back(600);  // past a promotion: rounding to nearest shows
  const BackendCharacterization c = characterize(b, options);
  ASSERT_EQ(c.lengths.size(), options.lengths.size());
  for (const auto& r : c.lengths) {
    SCOPED_TRACE(b.name + " n = " + std::to_string(r.n) + ": " + r.order + " " + r.order_note + " / " + r.derived_note);
    EXPECT_TRUE(r.failure.empty()) << r.failure;
    if (!want.order.empty() && r.n > 2) {
      EXPECT_EQ(r.order, want.order);  // n = 2: every order is one addition
      EXPECT_EQ(r.compensated, want.compensated);
    }
    if (want.tree && r.order == "tree") {
      ASSERT_TRUE(r.tree.has_value());
      EXPECT_EQ(r.tree->text(), want.tree(r.n));
    }
    if (!want.rounding.empty() && r.n > 2) {
      EXPECT_EQ(r.rounding, want.rounding);
    }
    if (r.order == "run-dependent" || want.rounding == "stochastic") {
      EXPECT_EQ(r.determinism, name(Determinism::run_to_run_nondeterministic));
    }
    EXPECT_NE(std::find(want.relations.begin(), want.relations.end(), r.relation), want.relations.end())
        << name(r.relation) << ": " << r.relation_reason;
  }
  EXPECT_NE(std::find(want.relations.begin(), want.relations.end(), c.relation), want.relations.end())
      << name(c.relation) << ": " << c.relation_reason;
  if (c.relation == Relation::undetermined) return;
  // Looser at some length (n = 2's one addition, say) with no expression over all lengths: nothing
  // to judge.
  if (c.relation == Relation::looser && c.derived_bound.empty() &&
      std::find(want.relations.begin(), want.relations.end(), Relation::undetermined) != want.relations.end())
    return;
  ASSERT_FALSE(c.derived_bound.empty()) << c.relation_reason;
  ASSERT_TRUE(parse_bound(c.derived_bound).has_value()) << c.derived_bound;
  if (!want.derived.empty()) {
    EXPECT_EQ(c.derived_bound, want.derived);
  }
  if (!want.shape.empty()) {
    EXPECT_NE(c.derived_bound.find("depths(" + want.shape + ","), std::string::npos) << c.derived_bound;
  }

  // The derived bound holds where it was derived: generated workloads at the probed lengths,
  // judged through the finding pipeline against a copy of the backend that states it.
  const Backend derived = with_bound(b, c.derived_bound);
  GenerationLimits limits;
  for (std::size_t n : options.lengths) limits.step_choices.push_back(n - 1);
  limits.max_steps = limits.max_long_steps = 1024;
  FindingPolicy policy;
  policy.further_properties = false;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    SeededChoiceStream s(seed * 7919 + 3);
    const WorkloadKind kind = b.supports(WorkloadKind::dense)    ? WorkloadKind::dense
                              : b.supports(WorkloadKind::sparse) ? WorkloadKind::sparse
                                                                 : WorkloadKind::product;
    const Workload w = generate(s, b.storage, limits, kind);
    const Judgement j = find_violations(derived, w, exact_sums(w), policy);
    EXPECT_FALSE(j.violated()) << c.derived_bound << " on " << describe_shape(w) << ":\n" << j.findings.front().detail;
  }
}

INSTANTIATE_TEST_SUITE_P(Registered, Characterized, ::testing::ValuesIn(cpu_backends()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// The mutants that change the order, the precision or the determinism (or break the sum outright)
// are contradicted by a witness or by their runs, without a campaign.
class CharacterizedMutant : public ::testing::TestWithParam<std::string> {};

TEST_P(CharacterizedMutant, IsContradicted) {
  const mutants::Mutant* m = mutants::find(GetParam());
  ASSERT_NE(m, nullptr);
  // Few lengths (the element-boundary mutants are probed one column per call once their element
  // dependence shows): 8 shows a chain's depth above the pairwise and Kahan bounds and has the
  // more than 4 inputs of MXNet's double count; the step dropped only past 16 steps needs 19.
  CharacterizeOptions options;
  options.lengths = {3, 8};
  if (m->backend.name == "last_step_dropped_f32") options.lengths.push_back(19);
  const BackendCharacterization c = characterize(m->backend, options);
  EXPECT_EQ(c.relation, Relation::contradicted)
      << m->backend.name << " (" << m->bug << "): " << name(c.relation) << ": " << c.relation_reason;
}

INSTANTIATE_TEST_SUITE_P(Planted, CharacterizedMutant, ::testing::ValuesIn([] {
                           std::vector<std::string> names;
                           for (const auto& m : mutants::all())
                             if (m.backend.supports(WorkloadKind::dense) || m.backend.supports(WorkloadKind::sparse) ||
                                 m.backend.supports(WorkloadKind::product))
                               names.push_back(m.backend.name);
                           return names;
                         }()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

// What the contradiction says, for the three ways a structure can break a promise.
TEST(CharacterizedMutant, TheReasonNamesTheStructure) {
  CharacterizeOptions options;
  options.lengths = {8, 17};
  const auto order = characterize(mutants::find("recursive_claims_pairwise_f32")->backend, options);
  EXPECT_NE(order.relation_reason.find("deepest leaf"), std::string::npos) << order.relation_reason;
  const auto precision = characterize(mutants::find("bf16_acc_claims_f32")->backend, options);
  EXPECT_NE(precision.relation_reason.find("X 2^-8"), std::string::npos) << precision.relation_reason;
  EXPECT_EQ(precision.lengths.back().accumulation_bits, 8);
  const auto runs = characterize(mutants::find("threaded_claims_bitwise_f32")->backend, options);
  EXPECT_NE(runs.relation_reason.find("runs differ"), std::string::npos) << runs.relation_reason;
  const auto order_independent = characterize(mutants::find("naive_claims_order_independent_f32")->backend, options);
  EXPECT_NE(order_independent.relation_reason.find("order-independent"), std::string::npos)
      << order_independent.relation_reason;
}

}  // namespace
}  // namespace accucheck
