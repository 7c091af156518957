// accucheck trace FILE.npy... [--indices IDX.npy --rows ROWS.npy]: real gradients, dumped from a
// training run with numpy.save, run through every backend of their format and judged like a
// campaign's cases (the same table, findings, JSON, JUnit and HTML).
//
// A dense trace has shape (T, ...): T accumulation steps (micro-batches) of one gradient
// tensor; element j of the flattened trailing shape is accumulated over the T steps onto an
// initial buffer of +0. An embedding (sparse) trace is an indices file, int32 or int64 of
// shape (T, B) or (P,), and a rows file of shape (T, B, dim) or (P, dim): pair p adds row
// vector p to table row indices[p]. docs/trace.md shows how to dump both from PyTorch.
//
// FP8 gradients (uint8 bit patterns read with --fp8 e4m3|e5m2) are accumulated into a buffer of
// --as F (f32 unless said): the workloads carry the addends' or rows' FP8 format (input_format).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <set>

#include "campaign_output.h"
#include "cli.h"
#include "io/memory.h"
#include "io/npy.h"
#include "numerics/hash.h"
#include "plugins/plugin_loader.h"

namespace accucheck::cli {
namespace {

constexpr std::uint64_t kMaxTableValues = std::uint64_t{1} << 28;

std::uint64_t fnv1a(std::string_view text, std::uint64_t extra) { return fnv1a_le64(extra, accucheck::fnv1a(text)); }

NpyArray read(const std::string& path) {
  // The file's bytes and their values as doubles (at least twice as many bytes) must fit.
  NpyLimits limits;
  limits.max_bytes = std::min(limits.max_bytes, memory_limit_bytes() / 3);
  try {
    return read_npy(path, limits);
  } catch (const NpyError& e) {
    throw UsageError(e.what());
  }
}

// Refuses a trace whose values (`bytes`: as doubles, beside what is already read) and the
// judging of one case of `case_elements` (exact sums, verdicts, results: under 1 KiB each)
// would not fit.
void check_trace_memory(const std::string& path, std::uint64_t bytes, std::uint64_t case_elements) {
  if (auto why = memory_shortfall(bytes + 1024 * case_elements)) throw UsageError(path + ": this trace " + *why);
}

// How the arrays' bits are read: --bf16 (uint16 as bfloat16), --fp8 (uint8 as E4M3 or E5M2).
struct BitPatterns {
  bool bf16 = false;
  std::optional<Format> fp8;
};

// The values of a float array in the trace's format: the file's own, or rounded to --as. FP8
// values are the addends of a buffer of --as (f32 unless said): every FP8 value is one of
// each buffer format, so nothing is rounded.
std::vector<double> float_values(const NpyArray& a, const BitPatterns& bits, const std::optional<Format>& as,
                                 Format& format) {
  if (bits.bf16 && a.dtype != NpyDtype::u16)
    throw UsageError(a.source + ": dtype '" + std::string(npy_descr(a.dtype)) +
                     "': --bf16 reads uint16 arrays ('<u2') as bfloat16 bit patterns, and this array is not one");
  if (bits.fp8 && a.dtype != NpyDtype::u8)
    throw UsageError(a.source + ": dtype '" + std::string(npy_descr(a.dtype)) +
                     "': --fp8 reads uint8 arrays ('|u1') as " + std::string(name(*bits.fp8)) +
                     " bit patterns, and this array is not one");
  const auto f = a.float_format(bits.bf16, bits.fp8);
  if (!f) {
    if (a.dtype == NpyDtype::u16)
      throw UsageError(a.source + ": dtype '<u2' (uint16): if these are bfloat16 bit patterns, pass --bf16");
    if (a.dtype == NpyDtype::u8)
      throw UsageError(a.source +
                       ": dtype '|u1' (uint8): if these are FP8 bit patterns, pass --fp8 e4m3 or --fp8 e5m2");
    throw UsageError(
        a.source + ": dtype '" + std::string(npy_descr(a.dtype)) +
        "' is an integer type; a gradient trace is float64, float32, float16, bfloat16 (as uint16 with --bf16) "
        "or FP8 (as uint8 with --fp8)");
  }
  std::vector<double> values = a.floats(bits.bf16, bits.fp8);
  format = *f;
  if (bits.fp8) {
    format = as.value_or(Format::f32);
    return values;
  }
  if (as && *as != *f) {
    // --as rounds (RNE, docs/trace.md); a finite gradient beyond the format's range would
    // become an infinity that no backend summed, so such a trace is refused, not judged.
    std::size_t beyond = 0, first = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double rounded = round_to_format(values[i], *as);
      if (std::isinf(rounded) && std::isfinite(values[i]) && beyond++ == 0)
        first = i;
      else
        values[i] = rounded;
    }
    if (beyond) {
      char numbers[160];
      std::snprintf(numbers, sizeof numbers, "largest finite %.17g; --as would make them infinite): the first is %.17g",
                    largest_finite(*as), values[first]);
      throw UsageError(a.source + ": " + std::to_string(beyond) + " of " + std::to_string(values.size()) +
                       " values do not fit in " + std::string(name(*as)) + " (" + numbers + " at index " +
                       npy_index_text(a.shape, first));
    }
    format = *as;
  }
  return values;
}

// A trace's cases are built one at a time when they are judged, so a wide tensor or table
// costs its values once (8 bytes each) plus one case.
struct Trace {
  std::string label;  // the family name its samples get: "trace:<file>"
  std::string description;
  std::size_t cases = 0;
  std::function<Workload(std::size_t)> make_case;  // case c, 0 <= c < cases
};

Trace dense_trace(const std::string& path, const BitPatterns& bits, const std::optional<Format>& as,
                  std::size_t chunk) {
  const NpyArray a = read(path);
  if (a.shape.empty())
    throw UsageError(path + ": shape () is a scalar; a trace has shape (T, ...) with T accumulation steps");
  const std::size_t steps = a.shape[0];
  std::size_t elements = 1;
  for (std::size_t i = 1; i < a.shape.size(); ++i) elements *= a.shape[i];
  if (steps == 0) throw UsageError(path + ": shape " + a.shape_text() + " has no steps (T = 0)");
  if (elements == 0) throw UsageError(path + ": shape " + a.shape_text() + " has no elements");
  check_trace_memory(path, a.data.size() + sizeof(double) * a.count(), std::min(chunk, elements));
  Format format;
  const auto values = std::make_shared<const std::vector<double>>(float_values(a, bits, as, format));
  const std::optional<Format> input_format = bits.fp8;
  Trace t;
  t.label = "trace:" + std::filesystem::path(path).filename().string();
  t.cases = (elements + chunk - 1) / chunk;
  t.description = path + ": " + (input_format ? std::string(name(*input_format)) + " into " : "") +
                  std::string(name(format)) + ", " + std::to_string(steps) + " steps x " + std::to_string(elements) +
                  " elements (shape " + a.shape_text() + "), " + std::to_string(t.cases) + " case(s)";
  t.make_case = [values, format, input_format, label = t.label, elements, steps, chunk](std::size_t c) -> Workload {
    const std::size_t begin = c * chunk, end = std::min(elements, begin + chunk);
    DenseWorkload w;
    w.format = format;
    w.input_format = input_format;
    w.family = label;
    w.elements = end - begin;
    w.steps = steps;
    w.initial.assign(w.elements, 0.0);
    w.addends.resize(w.elements * steps);
    for (std::size_t s = 0; s < steps; ++s)
      for (std::size_t j = begin; j < end; ++j) w.addends[s * w.elements + (j - begin)] = (*values)[s * elements + j];
    return w;
  };
  return t;
}

Trace sparse_trace(const std::string& indices_path, const std::string& rows_path, const BitPatterns& bits,
                   const std::optional<Format>& as, const std::optional<std::uint64_t>& vocab, std::size_t chunk) {
  const NpyArray ia = read(indices_path);
  const NpyArray ra = read(rows_path);
  if (ia.dtype != NpyDtype::i32 && ia.dtype != NpyDtype::i64)
    throw UsageError(indices_path + ": dtype '" + std::string(npy_descr(ia.dtype)) +
                     "': indices must be int32 or int64");
  std::size_t steps, per_step;
  if (ia.shape.size() == 2) {
    steps = ia.shape[0];
    per_step = ia.shape[1];
  } else if (ia.shape.size() == 1) {
    steps = 1;
    per_step = ia.shape[0];
  } else {
    throw UsageError(indices_path + ": shape " + ia.shape_text() + ": indices must be (T, B) or (P,)");
  }
  const std::size_t pairs = steps * per_step;
  if (pairs == 0) throw UsageError(indices_path + ": shape " + ia.shape_text() + " holds no indices");
  std::size_t dim;
  const std::string expected =
      ia.shape.size() == 2 ? "(" + std::to_string(steps) + ", " + std::to_string(per_step) + ", dim) or (" +
                                 std::to_string(pairs) + ", dim)"
                           : "(" + std::to_string(pairs) + ", dim) or (T, B, dim) with T*B = " + std::to_string(pairs);
  if (ra.shape.size() == 3 && ia.shape.size() == 2 && ra.shape[0] == steps && ra.shape[1] == per_step) {
    dim = ra.shape[2];
  } else if (ra.shape.size() == 3 && ia.shape.size() == 1 && ra.shape[0] * ra.shape[1] == pairs && ra.shape[0] > 0) {
    steps = ra.shape[0];  // flat indices, rows grouped by step: the rows give the steps
    per_step = ra.shape[1];
    dim = ra.shape[2];
  } else if (ra.shape.size() == 2 && ra.shape[0] == pairs) {
    dim = ra.shape[1];
  } else {
    throw UsageError(rows_path + ": shape " + ra.shape_text() + " does not match the indices " + ia.shape_text() +
                     " of " + indices_path + ": expected " + expected);
  }
  if (dim == 0) throw UsageError(rows_path + ": shape " + ra.shape_text() + ": dim is 0");
  // The values as doubles, the indices as int64 and then as rows, and the pairs grouped by case.
  check_trace_memory(rows_path,
                     ia.data.size() + ra.data.size() + sizeof(double) * ra.count() +
                         (sizeof(std::int64_t) + 2 * sizeof(std::uint32_t)) * pairs,
                     chunk);
  Format format;
  std::vector<double> values = float_values(ra, bits, as, format);
  const std::vector<std::int64_t> index = ia.integers();
  std::int64_t largest = 0;
  for (std::size_t p = 0; p < index.size(); ++p) {
    if (index[p] < 0)
      throw UsageError(indices_path + ": index " + std::to_string(index[p]) + " at position " + std::to_string(p) +
                       " is negative");
    largest = std::max(largest, index[p]);
  }
  const std::uint64_t rows = vocab ? *vocab : static_cast<std::uint64_t>(largest) + 1;
  if (static_cast<std::uint64_t>(largest) >= rows)
    throw UsageError(indices_path + ": index " + std::to_string(largest) + " is outside the table of --vocab " +
                     std::to_string(rows) + " rows");
  if (rows > 0xffffffffULL || rows * dim > kMaxTableValues)
    throw UsageError(indices_path + ": a table of " + std::to_string(rows) + " rows x " + std::to_string(dim) +
                     " is too large (at most " + std::to_string(kMaxTableValues) + " values)");
  if (pairs > 0xffffffffULL) throw UsageError(indices_path + ": more than 2^32 indices");
  // The table is judged in cases of at most `chunk` elements: a block of rows (and of columns
  // when dim alone exceeds the chunk) with every pair of those rows, in order. Each element
  // keeps its terms and their order, so a case judges the same sums as the whole table, with
  // memory for one case at a time (an element's exact sum and verdict take about 700 bytes).
  struct Layout {
    std::size_t rows, dim, steps, per_step, cols_per_case, col_pieces, rows_per_case;
    std::vector<std::uint32_t> row;        // pair p's row
    std::vector<double> values;            // pair p's vector at p * dim
    std::vector<std::size_t> block_start;  // row block b's pairs: pairs_by_block[block_start[b] .. block_start[b+1])
    std::vector<std::uint32_t> pairs_by_block;
  };
  auto layout = std::make_shared<Layout>();
  Layout& l = *layout;
  l.rows = rows;
  l.dim = dim;
  l.steps = steps;
  l.per_step = per_step;
  l.cols_per_case = std::min(dim, chunk);
  l.col_pieces = (dim + l.cols_per_case - 1) / l.cols_per_case;
  l.rows_per_case = std::max<std::size_t>(1, chunk / l.cols_per_case);
  const std::size_t blocks = (rows + l.rows_per_case - 1) / l.rows_per_case;
  l.row.resize(pairs);
  std::vector<bool> touched(rows);
  std::size_t touched_rows = 0;
  l.block_start.assign(blocks + 1, 0);
  for (std::size_t p = 0; p < pairs; ++p) {
    l.row[p] = static_cast<std::uint32_t>(index[p]);
    if (!touched[l.row[p]]) ++touched_rows;
    touched[l.row[p]] = true;
    ++l.block_start[l.row[p] / l.rows_per_case + 1];
  }
  for (std::size_t b = 0; b < blocks; ++b) l.block_start[b + 1] += l.block_start[b];
  l.pairs_by_block.resize(pairs);
  std::vector<std::size_t> next(l.block_start.begin(), l.block_start.end() - 1);
  for (std::size_t p = 0; p < pairs; ++p)
    l.pairs_by_block[next[l.row[p] / l.rows_per_case]++] = static_cast<std::uint32_t>(p);
  l.values = std::move(values);
  Trace t;
  t.label = "trace:" + std::filesystem::path(rows_path).filename().string();
  t.cases = blocks * l.col_pieces;
  t.description = indices_path + " + " + rows_path + ": " + (bits.fp8 ? std::string(name(*bits.fp8)) + " into " : "") +
                  std::string(name(format)) + " embedding gradient, " + std::to_string(steps) + " step(s), " +
                  std::to_string(pairs) + " pairs into " + std::to_string(rows) + " rows (" +
                  std::to_string(touched_rows) + " touched) x dim " + std::to_string(dim) + ", " +
                  std::to_string(t.cases) + " case(s)";
  t.make_case = [layout, format, input_format = bits.fp8, label = t.label](std::size_t c) -> Workload {
    const Layout& l = *layout;
    const std::size_t block = c / l.col_pieces, piece = c % l.col_pieces;
    const std::size_t first_row = block * l.rows_per_case, first_col = piece * l.cols_per_case;
    SparseWorkload w;
    w.format = format;
    w.input_format = input_format;
    w.family = label;
    w.rows = std::min(l.rows, first_row + l.rows_per_case) - first_row;
    w.dim = std::min(l.dim, first_col + l.cols_per_case) - first_col;
    w.steps = l.steps;
    w.initial.assign(w.rows * w.dim, 0.0);
    w.step_offsets.assign(l.steps + 1, 0);
    for (std::size_t k = l.block_start[block]; k < l.block_start[block + 1]; ++k) {
      const std::size_t p = l.pairs_by_block[k];
      w.row_index.push_back(static_cast<std::uint32_t>(l.row[p] - first_row));
      const double* vector = l.values.data() + p * l.dim + first_col;
      w.values.insert(w.values.end(), vector, vector + w.dim);
      ++w.step_offsets[p / l.per_step + 1];
    }
    for (std::size_t s = 0; s < l.steps; ++s) w.step_offsets[s + 1] += w.step_offsets[s];
    return w;
  };
  return t;
}

}  // namespace

int trace_command(CommandLine& cl) {
  CampaignOptions options;
  options.generate = false;
  options.tool = "accucheck trace";
  std::vector<std::string> files;
  BackendSources plugins;
  std::optional<std::string> indices, rows, json_path, junit_path, html_path;
  std::optional<std::uint64_t> vocab, chunk_given;
  std::optional<Format> as, fp8;
  BitPatterns bits;
  cl.arguments("FILE.npy", files, "a dense gradient trace: shape (T, ...), T accumulation steps");
  cl.text("--indices", indices, "IDX.npy", "an embedding trace's row indices (int32 or int64), with --rows");
  cl.text("--rows", rows, "ROWS.npy", "an embedding trace's gradient rows, with --indices");
  cl.count("--vocab", vocab, "V", "the rows of the embedding table (default: the largest index + 1)", 1);
  cl.flag("--bf16", bits.bf16, "the uint16 arrays hold bfloat16 bit patterns");
  cl.format("--fp8", fp8,
            "the uint8 arrays hold FP8 bit patterns of this format (e4m3, e5m2), accumulated into --as (default f32)",
            true);
  cl.format("--as", as, "round every value (RNE) to this format first; with --fp8, the buffer's format");
  cl.repeatable("--backend", options.backend_globs, "GLOB",
                "run the backends whose names match (default: every backend)");
  cl.plugins(plugins);
  cl.count("--chunk", chunk_given, "N", "split a dense trace into cases of N elements (default 4096)", 1);
  cl.output_directory("--findings", options.findings_dir, "write the findings here (default findings)");
  cl.output_file("--json", json_path, "write the results as JSON");
  cl.output_file("--junit", junit_path, "write JUnit XML: one testcase per backend x format");
  cl.output_file("--html", html_path, "write the HTML report");
  cl.flag("--quiet", options.quiet, "no progress lines");
  if (!cl.parse()) return kExitOk;
  const std::size_t chunk = chunk_given.value_or(4096);
  if (indices.has_value() != rows.has_value())
    throw UsageError("an embedding trace needs both --indices IDX.npy and --rows ROWS.npy");
  if (files.empty() && !indices)
    throw UsageError("trace needs FILE.npy (shape (T, ...)) or --indices IDX.npy --rows ROWS.npy");
  // Options that would change nothing are refused rather than ignored.
  if (vocab && !indices)
    throw UsageError("--vocab sizes an embedding trace's table: it needs --indices IDX.npy --rows ROWS.npy");
  if (chunk_given && files.empty())
    throw UsageError("--chunk splits dense traces (FILE.npy) into cases, and none is given");
  if (fp8 && !is_fp8(*fp8))
    throw UsageError("--fp8: '" + std::string(name(*fp8)) + "' is not an FP8 format (e4m3, e5m2); --as F rounds to " +
                     std::string(name(*fp8)));
  if (fp8 && bits.bf16) throw UsageError("--fp8 and --bf16 each say how every array's bits are read: give one");
  bits.fp8 = fp8;
  load_plugins(plugins);

  // Every file is read and checked before anything runs.
  std::vector<Trace> traces;
  for (const auto& f : files) traces.push_back(dense_trace(f, bits, as, chunk));
  if (indices) traces.push_back(sparse_trace(*indices, *rows, bits, as, vocab, chunk));

  std::string found_by = "accucheck trace";
  for (const auto& f : files) found_by += " " + f;
  if (indices) found_by += " --indices " + *indices + " --rows " + *rows;
  if (bits.bf16) found_by += " --bf16";
  if (bits.fp8) found_by += " --fp8 " + std::string(name(*bits.fp8));
  if (as) found_by += " --as " + std::string(name(*as));
  for (const auto& plugin : loaded_plugins()) found_by += origin_option(plugin);
  options.found_by = found_by;
  std::set<std::pair<Format, WorkloadKind>> needed;
  for (const auto& t : traces)
    if (t.cases) {
      const Workload first = t.make_case(0);
      needed.insert({format_of(first), kind_of(first)});
    }
  Campaign campaign(options);
  campaign.retain([&](const Backend& b) {
    for (const auto& [f, k] : needed)
      if (b.storage == f && b.supports(k)) return true;
    return false;
  });
  if (campaign.empty()) {
    std::string what;
    for (const auto& [f, k] : needed)
      what += (what.empty() ? "" : ", ") + std::string(name(k)) + " " + std::string(name(f));
    throw UsageError("no selected backend runs " + what +
                     " workloads (see accucheck list; --as F rounds a trace to another format)");
  }

  const auto start = std::chrono::steady_clock::now();
  std::uint64_t cases = 0;
  for (std::size_t i = 0; i < traces.size(); ++i) {
    const Trace& t = traces[i];
    if (!options.quiet) std::fprintf(stderr, "accucheck trace: %s\n", t.description.c_str());
    for (std::size_t c = 0; c < t.cases; ++c) {
      const std::uint64_t id = fnv1a(t.label, (std::uint64_t{i} << 32) | c);
      campaign.evaluate(t.make_case(c), t.label, id, false, c % 8 == 0);
      ++cases;
    }
  }
  campaign.set_cases_run(cases, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  const CampaignResults results = campaign.results();
  print_campaign_table(results, stdout, campaign.options().findings_dir, campaign.options().generate);
  write_campaign_outputs(results, json_path, junit_path, html_path);
  return campaign.violations() ? kExitViolation : kExitOk;
}

}  // namespace accucheck::cli
