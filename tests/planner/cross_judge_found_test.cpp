// Plans the two judges once disagreed on beyond the difference they name,
// each found by the judge sweep (scripts/judge-sweep: its seed and plan
// said) or by a fidelity row, kept once mended: the gradient buckets along
// the pipeline's drain and beside collectives, the step's end, the tied
// embedding's AllReduce, the parameter gathers, ZeRO-2's and ZeRO-3's
// memory and walks. Checked as the family's plans are
// (cross_judge_family.hpp; docs/costmodel.md, "The closed form against the
// simulator").
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/planner/cross_judge_family.hpp"

namespace brigade::planner {
namespace {

using family::FamilyCase;
using family::kernel_plan;

// The gradient buckets' slowdown of each stage's last backward (their NCCL
// kernels hold SMs) along the drain: in 1F1B and GPipe a stage's last
// backward waits for the next stage's, so the slowdowns add up down the
// pipeline (costmodel/plan_transformer_step.cpp); before the closed form
// summed them it was 1.1% (one DGX A100) and 2.5% (two) faster than the
// simulator on these plans, exact since. And the buckets' clock with a
// collective beside each of its GEMMs (tp_comm_overlap): the closed form's
// clock took each pair one after the other, a backward longer than the
// stage's, under which the buckets hid (0.8% faster, beyond the 0.5% the
// difference it named allowed); exact since. And in the pair's order: the
// gradient the GEMM beside a collective completes is ready when the GEMM
// ends, not after the collective (the column-parallel backward's
// all-reduce beside the weight gradient, TP 8 over data 4: 1.0% slower
// than the simulator while the clock put the collective first; exact since).
std::vector<FamilyCase> drain_chain_cases() {
  const char* gpt = "{layers: 8, hidden: 2048, heads: 8, seq: 512, vocab: 4096}";
  const char* batch = "{global_batch: 32, micro_batch: 2}";
  return {
      kernel_plan("drain_chain_p4", "{preset: dgx-a100}", gpt, batch,
                  "{pipeline: 4, data: 2, bucket: 25MB}"),
      kernel_plan("drain_chain_p4_two_nodes", "{preset: dgx-a100, nodes: 2}", gpt, batch,
                  "{pipeline: 4, data: 4, bucket: 25MB}"),
      kernel_plan("drain_chain_p4_gpipe", "{preset: dgx-a100}", gpt, batch,
                  "{pipeline: 4, data: 2, schedule: gpipe, bucket: 25MB}"),
      kernel_plan("beside_clock_t8_tp_overlap", "{preset: dgx-h100, nodes: 2}",
                  "{layers: 2, hidden: 8192, heads: 64, kv_heads: 8, seq: 4096, vocab: 32768, "
                  "mlp: swiglu, ffn_hidden: 28672, norm: rmsnorm, positions: rotary, bias: false}",
                  "{global_batch: 16, micro_batch: 1, tp_comm_overlap: true, fp8: hybrid}",
                  "{tensor: 8, sequence_parallel: true, data: 2, zero: 0, bucket: 25MB}"),
      // Each stage's step ends after its own last backward: with the
      // embedding counted in the split the last stage holds a layer more and
      // its all-reduce, not overlapped, is the largest per-step work, which
      // starts a stage backward before the pipeline's end (1.7% above the
      // simulator while the closed form started every stage's at the end;
      // exact since).
      kernel_plan(
          "step_end_by_stage_p2", "{preset: dgx-a100, nodes: 2}",
          "{layers: 7, hidden: 4096, heads: 16, seq: 1024, vocab: 4096}",
          "{global_batch: 32, micro_batch: 2}",
          "{pipeline: 2, data: 8, zero: 0, overlap: false, embedding_in_pipeline_split: true, "
          "bucket: 25MB}"),
      kernel_plan("beside_order_t8_d4", "{preset: dgx-h100, nodes: 4}",
                  "{layers: 2, hidden: 2048, heads: 16, seq: 2048, vocab: 32768}",
                  "{global_batch: 8, micro_batch: 1}",
                  "{tensor: 8, data: 4, zero: 0, bucket: 25MB}"),
      // A GEMM on fewer SMs already (TE's userbuffers beside it, sm_held)
      // loses none to the gradient buckets' NCCL kernels, in the simulator
      // as on the closed form's bucket clock: while the clock slowed it too,
      // each stage's last backward was slowed about twice as much as the
      // simulator's, and the drain's chain added that up (+0.87%, beyond
      // the 0.5% named; found by the judge sweep).
      // Context parallelism: a ring's hop waits keep the whole rate on the
      // bucket clock (no kernel runs there), within the 0.5% named for the
      // blocks a bucket slows (the wait is in time; found by the judge sweep).
      kernel_plan("cp_buckets_one_micro_batch", "{preset: dgx-h100}",
                  "{layers: 1, hidden: 4096, heads: 32, seq: 2048, vocab: 32768, attention: flash}",
                  "{global_batch: 8, micro_batch: 2, recompute: full, fp8: hybrid}",
                  "{data: 4, context: 2, zero: 1, bucket: 25MB}"),
      // 1F1B's order walked micro-batch by micro-batch: sends a sixth of a
      // stage's time and stages of unequal time (the embedding, the logits)
      // put the formula's fill, drain and steady-state wait 0.57% above the
      // simulator (beyond the 0.1% named; found by the judge sweep).
      kernel_plan("order_1f1b_long_sends", "{preset: dgx-h100, nodes: 4}",
                  "{layers: 8, hidden: 4096, heads: 32, seq: 4096, vocab: 32768, attention: flash}",
                  "{global_batch: 4, micro_batch: 1, fp8: hybrid}",
                  "{tensor: 8, pipeline: 4, schedule: 1f1b}"),
      // Without data parallelism the tied embedding's AllReduce waits for
      // the first stage's whole backward and the sequence-parallel
      // gradients' AllReduce, as Megatron-Core's finalize_model_grads runs
      // them. (From stop 54 to stop 68 both judges started it when the word
      // embedding's gradient was complete, beside the position embedding's
      // backward; the judge sweep then found FP8's amax reduction beside it
      // in the simulator, not in the closed form: the next plan.)
      kernel_plan(
          "tied_allreduce_after_the_backward", "{preset: dgx-h100, nodes: 4}",
          "{layers: 4, hidden: 4096, heads: 32, seq: 2048, vocab: 32768}",
          "{global_batch: 8, micro_batch: 2}",
          "{tensor: 8, pipeline: 4, schedule: gpipe, sequence_parallel: true, bucket: 100MB}"),
      // overlap_param_gather with one micro-batch: the gathers run beside
      // most of the stage's first forward, whose kernels they slow unlike
      // (TE's userbuffers hold SMs from some GEMMs); the closed form's first
      // order put it 0.56% above the simulator (0.70% without the
      // userbuffers; beyond the 0.1% named; judge sweep seed 6714,
      // sweep_6714_039), its walk of the first forward kernel by kernel
      // exact since.
      kernel_plan(
          "param_gather_walk_one_micro_batch", "{preset: dgx-h100, nodes: 2}",
          "{layers: 2, hidden: 8192, heads: 64, kv_heads: 16, seq: 2048, vocab: 32768, "
          "ffn_hidden: 28672, mlp: swiglu, norm: rmsnorm, positions: rotary, bias: false}",
          "{global_batch: 2, micro_batch: 1, tp_comm_overlap: true, tp_backward_overlap: false}",
          "{tensor: 8, data: 2, bucket: 100MB, zero: 2, sequence_parallel: true, "
          "overlap_param_gather: true}"),
      // overlap_param_gather under interleaving, the gathers (8 experts'
      // weights) outlasting every warm-up forward of both stages: each
      // stage's later chunks wait for their gathers beside the earlier
      // stage's, not after them; the closed form had added the stages'
      // delays, 3.6% above the simulator (6.1% with ZeRO-2 and FP8; judge
      // sweep --moe, seed 6802, sweep_6802_010), 0.37% since (the aligned
      // dispatch's first order, within the 0.5% named), 0.28% since the
      // warm-up is walked kernel by kernel (below).
      kernel_plan("param_gather_aligned_delays_overlap", "{preset: dgx-h100, nodes: 4}",
                  "{layers: 4, hidden: 4096, heads: 32, kv_heads: 8, seq: 2048, vocab: 32768, "
                  "ffn_hidden: 14336, mlp: swiglu, norm: rmsnorm, positions: rotary, bias: false, "
                  "attention: flash, moe: {experts: 8, top_k: 1, imbalance: 1.5}}",
                  "{global_batch: 32, micro_batch: 1, recompute: none}",
                  "{tensor: 4, pipeline: 2, data: 4, bucket: 25MB, zero: 1, schedule: interleaved, "
                  "virtual_stages: 2, overlap_param_gather: true}"),
      // Its warm-up walked kernel by kernel beside the gathers: a forward
      // their NCCL kernels slow reaches its next wait the later, so waits
      // the less; the closed form had added the waits of an unslowed
      // timeline and the slowdown to first order, 1.26% above the simulator
      // on four stages with the embedding and the loss in the split (judge
      // sweep --moe, seed 6933, sweep_6933_023), exact since.
      kernel_plan("param_gather_aligned_walk_slowed_before_waits", "{preset: dgx-a100, nodes: 8}",
                  "{layers: 14, hidden: 8192, heads: 64, seq: 2048, vocab: 32768, "
                  "attention: unfused, moe: {experts: 8, top_k: 2}}",
                  "{global_batch: 8, micro_batch: 1, recompute: none}",
                  "{tensor: 8, pipeline: 4, data: 2, bucket: 100MB, zero: 2, "
                  "schedule: interleaved, virtual_stages: 2, sequence_parallel: true, "
                  "overlap_param_gather: true, embedding_in_pipeline_split: true, "
                  "loss_in_pipeline_split: true}"),
      // The same with FP8's delayed scaling: the amax reduction that ends
      // the first stage's backward comes before the tied AllReduce in both
      // judges (the closed form had been 0.38% above the simulator, beyond
      // the 0.1% named; judge sweep seed 6701, sweep_6701_039).
      kernel_plan("tied_allreduce_after_amax_reduction", "{preset: dgx-h100, nodes: 2}",
                  "{layers: 4, hidden: 2048, heads: 16, seq: 2048, vocab: 32768, attention: flash}",
                  "{global_batch: 2, micro_batch: 1, recompute: none, tp_comm_overlap: true, "
                  "fp8: hybrid, cross_entropy_fusion: true}",
                  "{tensor: 8, pipeline: 2, schedule: 1f1b, sequence_parallel: true, bucket: 25MB, "
                  "pipeline_blocking_sends: true}"),
      // GPipe with Megatron-LM's blocking exchanges: the formula's pace was
      // max (F + B) of a stage with its sends in it, the order's is max F +
      // max B; with stages of unequal time (the embedding, the logits) the
      // closed form was 1.29% below the simulator (beyond the 0.1% named;
      // found by the judge sweep, sweep_76_040). Walked with each send in the
      // pass it follows since.
      kernel_plan("order_gpipe_blocking_sends", "{preset: dgx-h100, nodes: 4}",
                  "{layers: 4, hidden: 4096, heads: 32, kv_heads: 8, seq: 2048, vocab: 32768, "
                  "ffn_hidden: 14336, mlp: swiglu, norm: rmsnorm, positions: rotary, bias: false, "
                  "attention: flash}",
                  "{global_batch: 8, micro_batch: 1, recompute: full, main_grad: fp32, "
                  "cross_entropy_fusion: true}",
                  "{tensor: 4, pipeline: 4, data: 2, bucket: 25MB, zero: 1, schedule: gpipe, "
                  "pipeline_blocking_sends: true}"),
      // Interleaved 1F1B walked chunk by chunk: the formula's fill and drain
      // ((sum - max) / v, every send of a micro-batch each way) were 2.9%
      // below the simulator with blocking sends over 4 stages x 2 chunks
      // (the embedding's chunk and the head's of their own length), 1.8%
      // with TE's overlap and sends beside the work (found by the judge
      // sweep; named within 2% then). Exact since.
      kernel_plan("order_interleaved_blocking_sends", "{preset: dgx-h100, nodes: 4}",
                  "{layers: 8, hidden: 8192, heads: 64, kv_heads: 16, seq: 4096, vocab: 32768, "
                  "ffn_hidden: 28672, mlp: swiglu, norm: rmsnorm, positions: rotary, bias: false, "
                  "attention: flash}",
                  "{global_batch: 8, micro_batch: 2, recompute: none}",
                  "{tensor: 8, pipeline: 4, schedule: interleaved, virtual_stages: 2, "
                  "pipeline_blocking_sends: true}"),
      kernel_plan("order_interleaved_tp_overlap", "{preset: dgx-h100, nodes: 2}",
                  "{layers: 8, hidden: 2048, heads: 16, kv_heads: 4, seq: 2048, vocab: 32768, "
                  "ffn_hidden: 7168, mlp: swiglu, norm: rmsnorm, positions: rotary, bias: false, "
                  "attention: flash}",
                  "{global_batch: 8, micro_batch: 2, recompute: selective, tp_comm_overlap: true, "
                  "cross_entropy_fusion: true}",
                  "{tensor: 4, pipeline: 4, schedule: interleaved, virtual_stages: 2, "
                  "sequence_parallel: true}"),
      // Interleaved 1F1B with overlapped buckets: the walk runs each stage's
      // buckets beside its backwards, each ready in its chunk's last
      // backward. Before, the buckets were timed beside the chunks' last
      // backwards laid back to back, and their slowdown added at the step's
      // end: -0.80% (below) and +3.83% (over IB, context 2 x tensor 8: the
      // first chunk's buckets hide behind the backwards before the last
      // chunk's) with the order walked, named within 5% then.
      kernel_plan(
          "interleaved_buckets_t8_p4_d2", "{preset: dgx-h100, nodes: 8}",
          "{layers: 16, hidden: 8192, heads: 64, kv_heads: 16, seq: 2048, vocab: 32768, "
          "ffn_hidden: 28672, mlp: swiglu, norm: rmsnorm, positions: rotary, bias: false, "
          "attention: flash}",
          "{global_batch: 16, micro_batch: 2, recompute: none, cross_entropy_fusion: true}",
          "{tensor: 8, pipeline: 4, data: 2, bucket: 100MB, zero: 0, schedule: interleaved, "
          "virtual_stages: 2, sequence_parallel: true}"),
      kernel_plan(
          "interleaved_buckets_cp2_ib", "{preset: dgx-h100, nodes: 8}",
          "{layers: 16, hidden: 4096, heads: 32, seq: 2048, vocab: 32768, attention: flash}",
          "{global_batch: 4, micro_batch: 1, recompute: selective, tp_comm_overlap: true, "
          "tp_backward_overlap: false}",
          "{tensor: 8, pipeline: 4, data: 1, bucket: 25MB, zero: 0, context: 2, "
          "schedule: interleaved, virtual_stages: 2, sequence_parallel: true}"),
      // ZeRO-3 without a pipeline, walked block by block: the window model
      // before hid every gather but a pass's first behind the whole pass
      // and charged the SMs to first order, 7.3% below the simulator on one
      // layer whose embedding and logits gathers dominate, 11.4% above with
      // context 2 x tensor 8 (found by the judge sweep; named within 15%
      // then, 1% since).
      kernel_plan("zero3_walk_one_layer_fp8", "{preset: dgx-h100, nodes: 1}",
                  "{layers: 1, hidden: 4096, heads: 32, seq: 2048, vocab: 32768, attention: flash}",
                  "{global_batch: 16, micro_batch: 2, recompute: selective, fp8: hybrid, "
                  "cross_entropy_fusion: true}",
                  "{data: 4, bucket: 25MB, zero: 3, context: 2}"),
      kernel_plan("zero3_walk_cp2_t8", "{preset: dgx-h100, nodes: 4}",
                  "{layers: 2, hidden: 4096, heads: 32, kv_heads: 8, seq: 4096, vocab: 32768, "
                  "ffn_hidden: 14336, mlp: swiglu, norm: rmsnorm, positions: rotary, bias: false, "
                  "attention: flash}",
                  "{global_batch: 2, micro_batch: 1, recompute: selective, "
                  "gradient_accumulation_fusion: false}",
                  "{tensor: 8, data: 2, bucket: 25MB, zero: 3, context: 2}"),
      // ZeRO-3 over a pipeline, walked block by block in the pipeline's
      // order: the window model was 5.4% above the simulator with blocking
      // sends (GPipe, per_pass) and 15.7% without overlap (found by the
      // judge sweep, named within 15% then, 2% since).
      kernel_plan("zero3_walk_gpipe_blocking", "{preset: dgx-h100, nodes: 8}",
                  "{layers: 8, hidden: 4096, heads: 32, seq: 2048, vocab: 32768, attention: flash}",
                  "{global_batch: 32, micro_batch: 1, recompute: full, fp8: hybrid, "
                  "fp8_recipe: tensorwise, tp_backward_overlap: false}",
                  "{tensor: 4, pipeline: 4, data: 4, bucket: 100MB, zero: 3, schedule: gpipe, "
                  "pipeline_blocking_sends: true}"),
      // ZeRO-3's peak, held to its named 5%: the closed form keeps the
      // head's 128 MiB unsharded gradient through the last layer's backward,
      // the simulator frees it when its reduce-scatter ends, before the
      // layer's selective recomputation (+2.96%; found by judge-sweep
      // --strict on ZeRO-3 variants of seed 86's plans, 2026-12-06).
      kernel_plan(
          "zero3_peak_before_gradient_freed", "{preset: dgx-h100, nodes: 8}",
          "{layers: 2, hidden: 8192, heads: 64, seq: 2048, vocab: 32768, attention: unfused}",
          "{global_batch: 64, micro_batch: 1, recompute: selective, cross_entropy_fusion: true, "
          "tp_backward_overlap: false}",
          "{tensor: 4, pipeline: 2, data: 8, bucket: 100MB, zero: 3, schedule: gpipe, "
          "embedding_in_pipeline_split: true, loss_in_pipeline_split: true}"),
      // Eight like layers a stage: the walk steps over a run of them once
      // its state repeats (zero3_pass), the simulator runs each.
      kernel_plan("zero3_walk_like_layers", "{preset: dgx-a100, nodes: 1}",
                  "{layers: 16, hidden: 1024, heads: 8, seq: 1024, vocab: 8192, attention: flash}",
                  "{global_batch: 16, micro_batch: 2, recompute: none}",
                  "{tensor: 1, pipeline: 2, data: 4, bucket: 25MB, zero: 3, schedule: 1f1b, "
                  "zero3_prefetch: across_passes}"),
      kernel_plan("zero3_walk_no_overlap_p2", "{preset: dgx-h100, nodes: 8}",
                  "{layers: 4, hidden: 4096, heads: 32, seq: 2048, vocab: 32768, attention: flash}",
                  "{global_batch: 16, micro_batch: 2, recompute: none, fp8: hybrid, "
                  "fp8_recipe: tensorwise}",
                  "{tensor: 8, pipeline: 2, data: 4, bucket: 25MB, zero: 3, schedule: 1f1b, "
                  "sequence_parallel: true, overlap: false, zero3_prefetch: per_micro_batch}"),
      // FP8 delayed scaling's amax reduction ends each pass on the compute
      // stream: the stage's next gathers go once it has ended, and the data
      // stream's collectives run beside it (its kernels slowed, its
      // AllReduce not). Not overlapped on one stage, the step's last
      // reduce-scatter hid it: the closed form added both, 0.52% above the
      // simulator where both judges are exact otherwise (judge sweep seed
      // 6914, sweep_6914_022), exact since. (Over two stages its gathers
      // went before it, 0.57% below the simulator, within 0.02% since:
      // beneath the 2% that ZeRO-3 over a pipeline names, so held by hand
      // in tests/costmodel/order_walk_test.cpp instead.)
      kernel_plan("zero3_no_overlap_amax_beside_reduce_scatter", "{preset: dgx-h100, nodes: 4}",
                  "{layers: 2, hidden: 2048, heads: 16, seq: 2048, vocab: 32768, attention: flash}",
                  "{global_batch: 8, micro_batch: 2, recompute: full, fp8: hybrid}",
                  "{tensor: 8, pipeline: 1, data: 2, bucket: 100MB, zero: 3, context: 2, "
                  "overlap: false}"),
      kernel_plan(
          "bucket_full_rate_t8_p4_tp_overlap", "{preset: dgx-h100, nodes: 8}",
          "{layers: 4, hidden: 8192, heads: 64, seq: 4096, vocab: 32768}",
          "{global_batch: 16, micro_batch: 1, tp_comm_overlap: true}",
          "{tensor: 8, pipeline: 4, data: 2, zero: 0, bucket: 25MB, sequence_parallel: true}"),
  };
}

// ZeRO-2's whole gradients live from a chunk's first backward to its
// buckets' reduce-scatters in its last (planner/lower_transformer_stage.cpp),
// so the peak is not the activations' peak plus all of them: found by the
// judge sweep's memory check, each failing the closed form of before
// (plan_transformer_step.cpp zero2_peak_*, plan_buckets.cpp
// zero2_last_backward).
std::vector<FamilyCase> zero2_memory_cases() {
  return {
      // Interleaved: a bucket that the next chunk's gradients complete
      // frees with that chunk's last backward, so the chunk before keeps
      // its share of it (one GEMM's gradient here) into the next chunk's
      // backward (-2.33% while the closed form freed a chunk's gradients
      // whole at its own last backward; judge sweep seed 7133,
      // sweep_7133_015), exact since.
      kernel_plan("zero2_interleaved_bucket_spans_chunks", "{preset: dgx-h100, nodes: 8}",
                  "{layers: 8, hidden: 8192, heads: 64, seq: 2048, vocab: 32768, "
                  "attention: unfused}",
                  "{global_batch: 8, micro_batch: 1, recompute: full, recompute_method: block, "
                  "recompute_num_layers: 2, tp_backward_overlap: false}",
                  "{tensor: 8, pipeline: 4, data: 2, bucket: 100MB, zero: 2, "
                  "schedule: interleaved, virtual_stages: 2, sequence_parallel: true}"),
      // One micro-batch: the buckets free their gradients as their
      // reduce-scatters end, before the backward's later recomputations
      // (+5.1% while the closed form held every gradient to the end).
      kernel_plan("zero2_one_micro_batch_frees", "{preset: dgx-a100}",
                  "{layers: 2, hidden: 2048, heads: 16, seq: 2048, vocab: 32768}",
                  "{global_batch: 8, micro_batch: 1, recompute: selective}",
                  "{data: 8, zero: 2, bucket: 25MB}"),
      // 1F1B on two stages of two micro-batches: stage 0 holds every
      // gradient in its second backward, not only the first's so far
      // (-3.4%: the closed form walked the first backward alone).
      kernel_plan(
          "zero2_1f1b_second_backward", "{preset: dgx-a100}",
          "{layers: 4, hidden: 2048, heads: 16, seq: 2048, vocab: 32768}",
          "{global_batch: 8, micro_batch: 2, recompute: full}",
          "{tensor: 2, pipeline: 2, data: 2, zero: 2, bucket: 25MB, sequence_parallel: true}"),
      // Without overlap the buckets wait for the whole backward: no chunk's
      // gradients freed before its end (-6.8% while the interleaved walk freed
      // them after each chunk's last backward; found by the judge sweep).
      kernel_plan(
          "zero2_interleaved_no_overlap", "{preset: dgx-a100, nodes: 4}",
          "{layers: 16, hidden: 8192, heads: 64, seq: 2048, vocab: 32768}",
          "{global_batch: 16, micro_batch: 1, recompute: full}",
          "{tensor: 2, pipeline: 4, data: 4, zero: 2, bucket: 100MB, schedule: interleaved, "
          "virtual_stages: 2, overlap: false}"),
      // Interleaved: no gradient beside the warm-up's activations, and a
      // chunk's gone after its last backward (+8.3%, beyond the 1% named).
      kernel_plan("zero2_interleaved_full_recompute", "{preset: dgx-a100, nodes: 2}",
                  "{layers: 8, hidden: 8192, heads: 64, kv_heads: 16, seq: 2048, vocab: 32768, "
                  "ffn_hidden: 28672, mlp: swiglu, norm: rmsnorm, positions: rotary, bias: false, "
                  "attention: unfused, dtype: bf16}",
                  "{global_batch: 8, micro_batch: 2, recompute: full}",
                  "{tensor: 4, pipeline: 2, data: 2, zero: 2, bucket: 25MB, schedule: interleaved, "
                  "virtual_stages: 2, sequence_parallel: true}"),
  };
}

// ZeRO-3's gathered parameters and unsharded gradients as the planner
// holds them along the stage's order (plan_transformer_step.cpp
// zero3_peak), and no prefetch without strategy.overlap: found by the
// judge sweep, each failing the closed form or the planner of before.
std::vector<FamilyCase> zero3_cases() {
  auto plan = [](const char* name, const char* model, const char* training, const char* strategy) {
    return kernel_plan(name, "{preset: dgx-a100}", model, training, strategy);
  };
  return {
      // The embedding's gather is larger than a layer's: two of it and its
      // gradient counted at the peak were 16.8% above the simulator.
      plan("zero3_embedding_larger_than_a_layer",
           "{layers: 2, hidden: 2048, heads: 16, seq: 2048, vocab: 32768, attention: flash}",
           "{global_batch: 32, micro_batch: 1}", "{data: 8, zero: 3, bucket: 100MB}"),
      // overlap: false, nothing prefetched: every gather and reduce-scatter in
      // line in both judges (the planner prefetched regardless: simulated a
      // third faster).
      plan("zero3_no_overlap",
           "{layers: 2, hidden: 4096, heads: 32, seq: 2048, vocab: 32768, attention: flash}",
           "{global_batch: 32, micro_batch: 1}",
           "{tensor: 2, data: 4, zero: 3, bucket: 25MB, overlap: false}"),
  };
}

// Interleaved, each chunk's backward starts at its own time in the order
// and adds what its first recomputation holds less what the blocks above it
// freed (costmodel/memory.hpp, interleaved_backward_peak): with the
// embedding and the loss in the split and two layers a chunk recomputed,
// stage 0's short chunk recomputes at once where its long one frees a kept
// layer first, and stage 1's top chunk frees the output layer. The closed
// form took the top chunk's at the most the stage holds: stage 0 26% below
// the simulator, stage 1 19% above, the plan's peak 1.75% (beyond the 1%
// named; judge sweep seed 6927, sweep_6927_035); exact since.
std::vector<FamilyCase> recompute_memory_cases() {
  return {
      kernel_plan("interleaved_chunk_backward_peak", "{preset: dgx-a100, nodes: 2}",
                  "{layers: 10, hidden: 2048, heads: 16, seq: 4096, vocab: 32768, "
                  "attention: unfused}",
                  "{global_batch: 8, micro_batch: 2, recompute: full, recompute_method: block, "
                  "recompute_num_layers: 2, main_grad: fp32}",
                  "{tensor: 8, pipeline: 2, data: 1, bucket: 25MB, schedule: interleaved, "
                  "virtual_stages: 2, embedding_in_pipeline_split: true, "
                  "loss_in_pipeline_split: true}"),
  };
}

std::vector<FamilyCase> found() {
  std::vector<FamilyCase> out = drain_chain_cases();
  for (FamilyCase& c : recompute_memory_cases()) out.push_back(std::move(c));
  for (FamilyCase& c : zero2_memory_cases()) out.push_back(std::move(c));
  for (FamilyCase& c : zero3_cases()) out.push_back(std::move(c));
  return out;
}

class CrossJudgeFound : public ::testing::TestWithParam<FamilyCase> {};

TEST_P(CrossJudgeFound, StepCommunicationAndMemoryAgree) {
  family::expect_case_agreement(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Found, CrossJudgeFound, ::testing::ValuesIn(found()),
                         [](const ::testing::TestParamInfo<FamilyCase>& p) {
                           return p.param.name;
                         });

}  // namespace
}  // namespace brigade::planner
