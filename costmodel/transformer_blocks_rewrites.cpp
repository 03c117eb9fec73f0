// Transformer Engine's and Megatron-Core's rewrites of a layer's kernel
// list (transformer_blocks_layer.cpp builds the list, these move, split
// and pair its kernels): FP8 casts moved before their gathers, the
// userbuffers overlaps (ring exchanges, pipelined scatters, bulk
// backwards), current scaling's amax passes, and the list lookups they
// share. Private to the block templates, as transformer_blocks_internal.hpp.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/tr.hpp"
#include "costmodel/transformer_blocks_internal.hpp"

namespace brigade::cost::block_detail {

// The SMs an overlap holds back from its GEMM: its communication kernel's
// under set_sm_margin (TE launches the GEMM on the others), else none.
static int held_sms(const UbOverlap& u) { return u.sm_margin ? u.num_sm : 0; }

size_t index_of(const std::vector<Kernel>& ks, const std::string& name) {
  for (size_t i = 0; i < ks.size(); ++i)
    if (ks[i].name == name) return i;
  return ks.size();
}

// `k` put right before (after) the first kernel named `anchor`; nothing
// where there is none. Before: ahead of a collective beside the anchor too,
// which must stay right before its GEMM (Kernel::beside).
void insert_before(std::vector<Kernel>& ks, const std::string& anchor, Kernel k) {
  size_t i = index_of(ks, anchor);
  if (i == ks.size()) return;
  if (i > 0 && ks[i - 1].beside) --i;
  ks.insert(ks.begin() + static_cast<std::ptrdiff_t>(i), std::move(k));
}
void insert_after(std::vector<Kernel>& ks, const std::string& anchor, Kernel k) {
  const size_t i = index_of(ks, anchor);
  if (i < ks.size()) ks.insert(ks.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(k));
}

// A GEMM's first `rows` rows and the rest, as two kernels (TE's chunked
// GEMMs): the rest named NAME + suffix, the activation kept for the
// backward charged to the first.
static std::pair<Kernel, Kernel> split_rows(const Kernel& g, std::int64_t rows, const char* suffix) {
  Kernel a = g, b = g;
  a.m = rows;
  b.m = g.m - rows;
  b.name = g.name + suffix;
  b.saved_bytes = 0;
  return {a, b};
}

// With FP8, the sequence-parallel all-gather `ag` before a column-parallel
// GEMM (or a row-parallel dgrad) without userbuffers moves FP8 too: the
// cast `cast` (after the gather, before its GEMM) moves before the gather
// and casts the local shard, 1/t of its elements, and the gather moves 1
// byte an element. Transformer Engine v1.8: _LayerNormLinear.forward's norm
// writes its output in FP8 and gather_along_first_dim gathers that;
// grad_output_preprocess casts the output gradient's shard, gathers it and
// transposes the gathered copy (module/layernorm_linear.py, module/base.py).
// The cast keeps its bytes a shard element; the userbuffers' ring exchange
// below starts the same way. Where there is no cast (under delayed scaling
// a LayerNormLinear's norm writes FP8 itself) the gather moves FP8 all the
// same. Nothing without the gather, or with the cast already before it.
void fp8_gather_first(std::vector<Kernel>& ks, const std::string& ag, const std::string& cast,
                      int t, double e) {
  const size_t a = index_of(ks, ag), c = index_of(ks, cast);
  if (a == ks.size() || (c != ks.size() && c < a)) return;
  if (c == ks.size()) {
    ks[a].collective_bytes /= e;
    return;
  }
  Kernel k = ks[c];
  k.bytes /= t;
  ks.erase(ks.begin() + static_cast<std::ptrdiff_t>(c));
  ks[a].collective_bytes /= e;
  ks.insert(ks.begin() + static_cast<std::ptrdiff_t>(a), std::move(k));
}

// The all-gather `ag` before GEMM `gemm` (its optional FP8 cast `cast`
// between them) as a ring exchange (qkv_fprop, fc1_fprop, proj_dgrad,
// fc2_dgrad): with FP8 the cast moves before the gather and casts the
// local shard, and the gather moves FP8 (fp8_gather_first; TE's fp8_buf
// for all-gather overlaps); the gather runs beside the GEMM's first t - 1
// chunks, and the last chunk, which needs the last hop, after it:
// max(gather, (t-1)/t GEMM) + GEMM/t.
void ring_exchange_gather(std::vector<Kernel>& ks, const std::string& ag, const std::string& cast,
                          const std::string& gemm, int t, double e, bool fp8, const UbOverlap& u) {
  if (index_of(ks, ag) == ks.size() || index_of(ks, gemm) <= index_of(ks, ag)) return;
  if (fp8) fp8_gather_first(ks, ag, cast, t, e);
  const size_t a = index_of(ks, ag), g = index_of(ks, gemm);
  std::vector<Kernel> out(ks.begin(), ks.begin() + static_cast<std::ptrdiff_t>(a));
  Kernel gather = ks[a];
  gather.beside = true;
  gather.userbuffers = true;
  out.push_back(gather);
  const std::int64_t last = ks[g].m / t;
  auto [head, tail] = split_rows(ks[g], ks[g].m - last, ".last");
  head.sm_held = tail.sm_held = held_sms(u);
  out.push_back(head);
  out.push_back(tail);
  out.insert(out.end(), ks.begin() + static_cast<std::ptrdiff_t>(g) + 1, ks.end());
  ks = std::move(out);
}

// The reduce-scatter `rs` after GEMM `gemm` (proj_fprop, fc2_fprop),
// pipelined in the overlap's num_splits chunks or exchanged round the ring
// in t (TE's ring-exchange reduce-scatter: each chunk's partial sum sent on
// while the next is computed): the GEMM in n chunks on the SMs the
// overlap leaves it, each chunk's scatter beside the next chunk: GEMM/n,
// then max((n-1)/n GEMM, (n-1)/n scatter), then the last chunk's scatter.
// With fp8_buf under an FP8 recipe the GEMM writes FP8 and the scatter
// moves it (1 byte an element).
void pipelined_scatter(std::vector<Kernel>& ks, const std::string& gemm, const std::string& rs,
                       int t, double e, bool fp8, const UbOverlap& u) {
  const size_t g = index_of(ks, gemm), r = index_of(ks, rs);
  if (g == ks.size() || r != g + 1) return;
  const std::int64_t splits = u.method == UbMethod::kPipeline ? u.num_splits : t;
  const std::int64_t n = std::max<std::int64_t>(1, std::min<std::int64_t>(splits, ks[g].m));
  auto [head, rest] = split_rows(ks[g], ks[g].m / n, ".rest");
  head.sm_held = rest.sm_held = held_sms(u);
  Kernel beside = ks[r], last = ks[r];
  if (fp8 && u.fp8_buf) beside.collective_bytes /= e, last.collective_bytes /= e;
  beside.collective_bytes *= static_cast<double>(n - 1) / static_cast<double>(n);
  beside.beside = true;
  beside.userbuffers = last.userbuffers = true;
  last.collective_bytes /= static_cast<double>(n);
  last.name += ".last";
  std::vector<Kernel> mid = {head, beside, rest, last};
  const auto at = ks.begin() + static_cast<std::ptrdiff_t>(g);
  ks.erase(at, at + 2);  // the GEMM and its scatter
  ks.insert(ks.begin() + static_cast<std::ptrdiff_t>(g), mid.begin(), mid.end());
}

// A column-parallel layer's backward in bulk overlaps (qkv_dgrad and
// qkv_wgrad, fc1_dgrad and fc1_wgrad), or in the asynchronous collectives
// Megatron-LM and TE launch through NCCL without userbuffers
// (tp_backward_overlap): the re-gather of its input, where sequence
// parallelism has one, beside the input-gradient GEMM (moved after that
// GEMM's cast), the reduce-scatter (all-reduce) of the input gradient
// beside the weight-gradient GEMM (moved before it), both GEMMs on the SMs
// the communication leaves them.
void bulk_backward(std::vector<Kernel>& ks, const std::string& regather, const std::string& dgrad,
                   const std::string& wgrad, const std::string& rs, const UbOverlap& ud,
                   const UbOverlap& uw, bool userbuffers) {
  const size_t a = index_of(ks, regather), d = index_of(ks, dgrad), w = index_of(ks, wgrad),
               r = index_of(ks, rs);
  const bool gathers = a != ks.size();
  if (d == ks.size() || w != d + 1 || r == ks.size() || w > r || (gathers && a > d)) return;
  Kernel scatter = ks[r], dg = ks[d], wg = ks[w];
  scatter.beside = true;
  scatter.userbuffers = userbuffers;
  dg.sm_held = held_sms(ud);
  wg.sm_held = held_sms(uw);
  std::vector<Kernel> out;
  for (size_t i = 0; i < ks.size(); ++i) {
    if ((gathers && i == a) || i == r || i == w) continue;
    if (i == d) {
      if (gathers) {
        out.push_back(ks[a]);
        out.back().beside = true;
        out.back().userbuffers = userbuffers;
      }
      out.push_back(dg);
      out.push_back(scatter);
      out.push_back(wg);
      continue;
    }
    out.push_back(ks[i]);
  }
  ks = std::move(out);
}

// FP8 current scaling (training.fp8_recipe: tensorwise; Transformer
// Engine's Float8CurrentScalingQuantizer::quantize_impl, transformer_engine/
// pytorch/csrc/quantizer.cpp at v2.9): each cast "NAME.cast" of the list
// gets before it, in order, an amax pass "NAME.amax" reading the tensor
// (nvte_compute_amax: the cast's elements at e bytes) unless `fused_amax`
// names it, an amax all-reduce "NAME.amax_allreduce" of one fp32 over
// 'tensor' where `reduced` names it (with_amax_reduction), and the scale
// kernel "NAME.scale" (nvte_compute_scale_from_amax: the amax read, the
// scale written). The cast's elements come from its bytes (fp8_cast_bytes:
// e + 2 an element), so a cast the tensor-parallel overlap moved before its
// gather (1/t of them) keeps its amax pass the same size.
void current_scaling(std::vector<Kernel>& ks, double e, const std::vector<std::string>& fused_amax,
                     const std::vector<std::string>& reduced) {
  auto named = [](const std::vector<std::string>& names, const std::string& n) {
    return std::find(names.begin(), names.end(), n) != names.end();
  };
  const std::string suffix = ".cast";
  std::vector<Kernel> out;
  out.reserve(ks.size() * 2);
  for (Kernel& k : ks) {
    const bool cast = k.name.size() > suffix.size() &&
                      k.name.compare(k.name.size() - suffix.size(), suffix.size(), suffix) == 0;
    if (cast) {
      const std::string base = k.name.substr(0, k.name.size() - suffix.size());
      const double elements = k.bytes / (e + 2);
      if (!named(fused_amax, k.name))
        out.push_back(memory(base + ".amax", OpKind::kElementwise, elements * e));
      if (named(reduced, k.name))
        out.push_back(collective(base + ".amax_allreduce", CollectiveKind::kAllReduce, 4,
                                 tr_text("Reasons",
                                         "FP8 current scaling: the amax of a sequence-parallel "
                                         "tensor is reduced over 'tensor' before its cast, so "
                                         "that every rank's shard takes one scale")));
      out.push_back(memory(base + ".scale", OpKind::kElementwise, 8));
    }
    out.push_back(std::move(k));
  }
  ks = std::move(out);
}

}  // namespace brigade::cost::block_detail
