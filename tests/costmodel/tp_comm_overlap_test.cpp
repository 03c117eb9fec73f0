// Transformer Engine's tensor-parallel overlap (training.tp_comm_overlap;
// docs/costmodel.md, "Transformer Engine's tensor-parallel overlap"): the
// layer template's kernels by hand, the SMs held back, and the refusals.
// The judges' times are checked by hand in plan_test.cpp
// (EstimatePlan.TensorParallelOverlapByHand) and held to each other in
// tests/planner/cross_judge_family_test.cpp (tp_overlap_*).
//
// Source of the methods and their defaults: NVIDIA/TransformerEngine,
// transformer_engine/pytorch/module/base.py, initialize_ub: "ring_exchange"
// for qkv_fprop, fc1_fprop, proj_dgrad, fc2_dgrad (num_splits = tp_size, 1
// SM, no margin); "pipeline" for proj_fprop, fc2_fprop (4 splits, 16 SMs,
// set_sm_margin); "bulk" for qkv_dgrad, qkv_wgrad, fc1_dgrad, fc1_wgrad (16
// SMs, set_sm_margin); all-gather buffers in FP8 under an FP8 recipe.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "core/profile.hpp"
#include "core/scenario.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/template_kernels.hpp"

namespace brigade::cost {
namespace {

using testing::find_kernel;
using testing::names_from;

// One layer of hidden 256, 4 heads, 64 positions, one sequence: T = 64
// tokens, 16 a rank over t = 4; bf16 (e = 2) with FP8 GEMMs.
std::string yaml(const std::string& training, const std::string& strategy) {
  return "topology: {preset: dgx-h100}\n"
         "model:\n  transformer: {layers: 1, hidden: 256, heads: 4, seq: 64, vocab: 256}\n"
         "training: {global_batch: 2, micro_batch: 1, fp8: hybrid" +
         training + "}\nstrategy: {" + strategy + "}\n";
}

BlockTemplate layer(const std::string& training,
                    const std::string& strategy = "tensor: 4, data: 2, sequence_parallel: true") {
  Result<Scenario> sc = parse_scenario(yaml(training, strategy), "t.yaml");
  EXPECT_TRUE(sc.is_ok()) << sc.message();
  EXPECT_TRUE(check_plan(*sc).is_ok()) << check_plan(*sc).message();
  Result<BlockTemplate> L = transformer_layer(transformer_shape(*sc));
  EXPECT_TRUE(L.is_ok()) << L.message();
  return L.is_ok() ? *L : BlockTemplate{};
}

// QKV's forward as a ring exchange: the norm's FP8 output (no cast under
// delayed scaling: tests/costmodel/fp8_te_boundaries_test.cpp) gathered in
// FP8, 64 x 256 x 1 = 16,384 B (32,768 in bf16), beside the GEMM's first 3
// of 4 row chunks (48 rows); the last chunk's 16 rows after it. fc1 alike.
// Without the overlap the same FP8 gather, then the whole GEMM
// (Transformer Engine v1.8's _LayerNormLinear gathers its norm's FP8
// output; since 2026-12-06: before, the gather moved bf16, 32,768 B, and
// a cast the gathered input, 65,536 B).
TEST(TpCommOverlap, RingExchangeGathersBesideTheGemmsFirstChunks) {
  const BlockTemplate off = layer(""), on = layer(", tp_comm_overlap: true");
  EXPECT_EQ(names_from(off.forward, "ln1", 3),
            (std::vector<std::string>{"ln1", "attn.allgather", "attn.qkv"}));
  EXPECT_EQ(names_from(on.forward, "ln1", 4),
            (std::vector<std::string>{"ln1", "attn.allgather", "attn.qkv", "attn.qkv.last"}));
  const Kernel* ag = find_kernel(on.forward, "attn.allgather");
  EXPECT_TRUE(ag->beside);
  EXPECT_DOUBLE_EQ(ag->collective_bytes, 16384);
  EXPECT_DOUBLE_EQ(find_kernel(off.forward, "attn.allgather")->collective_bytes, 16384);
  EXPECT_FALSE(find_kernel(off.forward, "attn.allgather")->beside);
  EXPECT_EQ(find_kernel(off.forward, "attn.qkv")->m, 64);  // the whole GEMM after the gather
  // The backward's output gradients: the shard's cast, an FP8 gather, the
  // gathered copy's transpose.
  EXPECT_EQ(names_from(off.backward, "mlp.fc2.bwd.cast", 4),
            (std::vector<std::string>{"mlp.fc2.bwd.cast", "mlp.bwd.allgather",
                                      "mlp.fc2.bwd.transpose", "mlp.fc2.dgrad"}));
  EXPECT_EQ(names_from(off.backward, "attn.proj.bwd.cast", 4),
            (std::vector<std::string>{"attn.proj.bwd.cast", "attn.bwd.allgather",
                                      "attn.proj.bwd.transpose", "attn.proj.dgrad"}));
  EXPECT_DOUBLE_EQ(find_kernel(off.backward, "attn.bwd.allgather")->collective_bytes, 16384);
  EXPECT_EQ(find_kernel(on.forward, "attn.qkv")->m, 48);
  EXPECT_EQ(find_kernel(on.forward, "attn.qkv.last")->m, 16);
  EXPECT_EQ(find_kernel(on.forward, "attn.qkv")->sm_held, 0);  // copy engines: no margin
  EXPECT_EQ(names_from(on.forward, "ln2", 4),
            (std::vector<std::string>{"ln2", "mlp.allgather", "mlp.fc1", "mlp.fc1.last"}));
  // The backward's gathers of the output gradient before the projection's
  // and fc2's input-gradient GEMMs, the same way; the transposes wait for
  // the weight gradient.
  EXPECT_EQ(names_from(on.backward, "mlp.fc2.bwd.cast", 7),
            (std::vector<std::string>{"mlp.fc2.bwd.cast", "mlp.bwd.allgather", "mlp.fc2.dgrad",
                                      "mlp.fc2.dgrad.last", "mlp.fc2.bwd.transpose",
                                      "mlp.fc2.transpose", "mlp.fc2.wgrad"}));
  EXPECT_EQ(names_from(on.backward, "attn.proj.bwd.cast", 4),
            (std::vector<std::string>{"attn.proj.bwd.cast", "attn.bwd.allgather",
                                      "attn.proj.dgrad", "attn.proj.dgrad.last"}));
}

// The projection's forward pipelined: its first 16 of 64 rows, then 3/4 of
// the reduce-scatter (24,576 of 32,768 B) beside the other 48, then the last
// quarter (8,192 B); both GEMM parts on 16 SMs fewer. fc2 alike.
TEST(TpCommOverlap, PipelinedScatterSplitsTheGemmInFour) {
  const BlockTemplate on = layer(", tp_comm_overlap: true");
  EXPECT_EQ(names_from(on.forward, "attn.proj", 4),
            (std::vector<std::string>{"attn.proj", "attn.reducescatter", "attn.proj.rest",
                                      "attn.reducescatter.last"}));
  EXPECT_EQ(find_kernel(on.forward, "attn.proj")->m, 16);
  EXPECT_EQ(find_kernel(on.forward, "attn.proj.rest")->m, 48);
  EXPECT_EQ(find_kernel(on.forward, "attn.proj")->sm_held, 16);
  EXPECT_EQ(find_kernel(on.forward, "attn.proj.rest")->sm_held, 16);
  EXPECT_TRUE(find_kernel(on.forward, "attn.reducescatter")->beside);
  EXPECT_FALSE(find_kernel(on.forward, "attn.reducescatter.last")->beside);
  EXPECT_DOUBLE_EQ(find_kernel(on.forward, "attn.reducescatter")->collective_bytes, 24576);
  EXPECT_DOUBLE_EQ(find_kernel(on.forward, "attn.reducescatter.last")->collective_bytes, 8192);
  EXPECT_EQ(names_from(on.forward, "mlp.fc2", 4),
            (std::vector<std::string>{"mlp.fc2", "mlp.reducescatter", "mlp.fc2.rest",
                                      "mlp.reducescatter.last"}));
  // The projection's input (its first part's) stays saved for the backward.
  const BlockTemplate off = layer("");
  EXPECT_DOUBLE_EQ(find_kernel(on.forward, "attn.proj")->saved_bytes,
                   find_kernel(off.forward, "attn.proj")->saved_bytes);
  EXPECT_DOUBLE_EQ(find_kernel(on.forward, "attn.proj.rest")->saved_bytes, 0);
}

// QKV's and fc1's backward in bulk overlaps: the re-gather of the input
// beside the input-gradient GEMM, the input gradient's reduce-scatter moved
// before the weight-gradient GEMM and beside it, both GEMMs on 16 SMs fewer.
TEST(TpCommOverlap, BulkOverlapsInTheColumnParallelBackward) {
  // (Against the collectives between kernels: without the NCCL overlap of
  // the same pairs, training.tp_backward_overlap.)
  const BlockTemplate off = layer(", tp_backward_overlap: false"),
                      on = layer(", tp_comm_overlap: true");
  // (The FP8 input's transpose right before each weight gradient.)
  EXPECT_EQ(names_from(off.backward, "attn.bwd.regather", 7),
            (std::vector<std::string>{"attn.bwd.regather", "attn.qkv.bwd.cast", "attn.qkv.dgrad",
                                      "attn.qkv.transpose", "attn.qkv.wgrad",
                                      "attn.qkv.grad_accumulate", "attn.bwd.reducescatter"}));
  EXPECT_EQ(names_from(on.backward, "attn.qkv.bwd.cast", 6),
            (std::vector<std::string>{"attn.qkv.bwd.cast", "attn.bwd.regather", "attn.qkv.dgrad",
                                      "attn.qkv.transpose", "attn.bwd.reducescatter",
                                      "attn.qkv.wgrad"}));
  EXPECT_EQ(names_from(on.backward, "mlp.fc1.bwd.cast", 6),
            (std::vector<std::string>{"mlp.fc1.bwd.cast", "mlp.bwd.regather", "mlp.fc1.dgrad",
                                      "mlp.fc1.transpose", "mlp.bwd.reducescatter",
                                      "mlp.fc1.wgrad"}));
  for (const char* n : {"attn.bwd.regather", "attn.bwd.reducescatter", "mlp.bwd.regather",
                        "mlp.bwd.reducescatter"})
    EXPECT_TRUE(find_kernel(on.backward, n)->beside) << n;
  for (const char* n : {"attn.qkv.dgrad", "attn.qkv.wgrad", "mlp.fc1.dgrad", "mlp.fc1.wgrad"})
    EXPECT_EQ(find_kernel(on.backward, n)->sm_held, 16) << n;
  // The re-gathered input is already FP8 (kept so for the weight gradient).
  EXPECT_DOUBLE_EQ(find_kernel(on.backward, "attn.bwd.regather")->collective_bytes,
                   find_kernel(off.backward, "attn.bwd.regather")->collective_bytes);
}

// The split GEMMs' FLOPs are the whole GEMMs', and selective recomputation
// still runs right after the projection's weight gradient (and its bias's
// accumulation, an add of its own).
TEST(TpCommOverlap, FlopsAndTheRecomputationPointAreKept) {
  const BlockTemplate off = layer(", recompute: selective"),
                      on = layer(", recompute: selective, tp_comm_overlap: true");
  EXPECT_DOUBLE_EQ(on.forward_flops(), off.forward_flops());
  EXPECT_DOUBLE_EQ(on.backward_flops(), off.backward_flops());
  EXPECT_DOUBLE_EQ(on.recompute_flops(), off.recompute_flops());
  ASSERT_GT(on.recompute_before, 0);
  EXPECT_EQ(on.backward[static_cast<size_t>(on.recompute_before) - 2].name, "attn.proj.wgrad");
  EXPECT_EQ(on.backward[static_cast<size_t>(on.recompute_before) - 1].name,
            "attn.proj.grad_accumulate");
  EXPECT_EQ(on.forward.size(), off.forward.size() + 6);  // four GEMMs and two scatters split
  EXPECT_EQ(on.backward.size(), off.backward.size() + 2);  // two GEMMs split
}

// NeMo's settings for GPT-3 175B (NVIDIA/NeMo, nemo/collections/llm/recipes/
// tp_overlap_configs/userbuffers.py at 0594a700,
// userbuffers_bf16_h100_h12288_tp4_mbs1_seqlen2048), as a scenario states
// them: bulk overlaps on 4, 4, 2 and 4 SMs without a margin (nothing held
// back), the projection's scatter pipelined on 24 SMs with a margin, fc2's
// exchanged round the ring (t = 4 chunks) on 1 SM with a margin.
TEST(TpCommOverlap, NemoSettingsOverTheDefaults) {
  const std::string cfg =
      ", tp_comm_overlap: {qkv_dgrad: {method: bulk, num_sm: 4, cga_size: 2, set_sm_margin: "
      "false}, qkv_wgrad: {method: bulk, num_sm: 4, cga_size: 2, set_sm_margin: false}, "
      "fc1_dgrad: {method: bulk, num_sm: 2, cga_size: 2, set_sm_margin: false}, fc1_wgrad: "
      "{method: bulk, num_sm: 4, cga_size: 2, set_sm_margin: false}, qkv_fprop: {method: "
      "ring_exchange, aggregate: false}, proj_dgrad: {method: ring_exchange}, fc1_fprop: "
      "{method: ring_exchange}, fc2_dgrad: {method: ring_exchange}, proj_fprop: {method: "
      "pipeline, num_sm: 24, cga_size: 2, num_splits: 4, set_sm_margin: true, fp8_buf: true}, "
      "fc2_fprop: {method: ring_exchange, num_sm: 1, set_sm_margin: true}}";
  Result<Scenario> sc = parse_scenario(yaml(cfg, "tensor: 4, data: 2, sequence_parallel: true"),
                                       "nemo.yaml");
  ASSERT_TRUE(sc.is_ok()) << sc.message();
  EXPECT_TRUE(sc->training.tp_comm_overlap);
  const UbOverlap& fc2 = sc->training.tp_overlap[kUbFc2Fprop];
  EXPECT_EQ(fc2.method, UbMethod::kRingExchange);
  EXPECT_TRUE(fc2.sm_margin);
  EXPECT_EQ(sc->training.tp_overlap[kUbProjFprop].num_sm, 24);
  const BlockTemplate on = layer(cfg);
  EXPECT_EQ(find_kernel(on.forward, "attn.proj")->sm_held, 24);
  // FP8 buffer: the scatter moves 1 byte an element, 3/4 of 64 x 256 beside.
  EXPECT_DOUBLE_EQ(find_kernel(on.forward, "attn.reducescatter")->collective_bytes, 12288);
  // fc2's ring exchange: the first of t = 4 chunks (16 rows) alone, 1 SM held.
  EXPECT_EQ(find_kernel(on.forward, "mlp.fc2")->m, 16);
  EXPECT_EQ(find_kernel(on.forward, "mlp.fc2.rest")->m, 48);
  EXPECT_EQ(find_kernel(on.forward, "mlp.fc2")->sm_held, 1);
  EXPECT_DOUBLE_EQ(find_kernel(on.forward, "mlp.reducescatter")->collective_bytes, 24576);  // bf16
  for (const char* n : {"attn.qkv.dgrad", "attn.qkv.wgrad", "mlp.fc1.dgrad", "mlp.fc1.wgrad"})
    EXPECT_EQ(find_kernel(on.backward, n)->sm_held, 0) << n;
  EXPECT_EQ(find_kernel(on.forward, "attn.qkv")->sm_held, 0);
}

TEST(TpCommOverlap, BadSettingsAreRefusedWhereTheyAre) {
  auto msg = [](const std::string& cfg) {
    Result<Scenario> sc =
        parse_scenario(yaml(", tp_comm_overlap: {" + cfg + "}", "tensor: 4, data: 2"), "b.yaml");
    return sc.is_ok() ? std::string("ok") : sc.message();
  };
  EXPECT_EQ(msg("qkv_fprop: {method: pipeline}"),
            "b.yaml:4:96: error: found 'pipeline'; expected one of ring_exchange");
  EXPECT_EQ(msg("qkv_dgrad: {method: ring_exchange}"),
            "b.yaml:4:96: error: found 'ring_exchange'; expected one of bulk");
  EXPECT_EQ(msg("fc2_prop: {}").substr(0, 78),
            "b.yaml:4:76: error: found key 'fc2_prop'; expected one of qkv_fprop, fc1_fprop");
  EXPECT_EQ(msg("proj_fprop: {method: pipeline, num_sm: 0}"),
            "b.yaml:4:115: error: found '0'; expected an integer from 1 to 255");
  EXPECT_EQ(msg("fc1_wgrad: {method: bulk, num_splits: 4}"),
            "b.yaml:4:102: error: found num_splits with method bulk; expected it only with "
            "method pipeline (a ring exchange splits the GEMM in t chunks, a bulk overlap not at "
            "all)");
  EXPECT_EQ(msg("proj_fprop: 24"),
            "b.yaml:4:88: error: found '24'; expected a userbuffers overlap {method, num_sm, "
            "num_splits, set_sm_margin, fp8_buf}");
}

// 16 of an H100's 132 SMs held back: the kernel keeps 116 / 132.
TEST(TpCommOverlap, SmShareByHand) {
  DeviceProfile p;
  EXPECT_EQ(sm_share(p, 16), 1.0);  // a profile that does not know its SMs
  p.sm_count = 132;
  EXPECT_DOUBLE_EQ(sm_share(p, 16), 116.0 / 132.0);
  EXPECT_EQ(sm_share(p, 0), 1.0);
  EXPECT_DOUBLE_EQ(sm_share(p, 200), 1.0 / 132.0);  // at least one SM is left
  // The presets' data-sheet counts.
  for (const DeviceProfile& d : HardwareProfile::defaults().devices) {
    if (d.model == "NVIDIA H100-SXM5-80GB" || d.model == "NVIDIA H200") {
      EXPECT_EQ(d.sm_count, 132) << d.model;
    }
    if (d.model.rfind("NVIDIA A100", 0) == 0) {
      EXPECT_EQ(d.sm_count, 108) << d.model;
    }
  }
}

Status check(const std::string& training, const std::string& strategy,
             const std::string& model = "") {
  const std::string text =
      "topology: {preset: dgx-h100}\nmodel:\n" +
      (model.empty() ? std::string("  transformer: {layers: 1, hidden: 256, heads: 4, seq: 64, "
                                   "vocab: 256}\n")
                     : model) +
      "training: {global_batch: 2, " + training + "}\nstrategy: {" + strategy + "}\n";
  Result<Scenario> sc = parse_scenario(text, "x.yaml");
  if (!sc.is_ok()) return sc.status();
  return check_plan(*sc);
}

TEST(TpCommOverlap, RefusedWhereMegatronRefusesIt) {
  EXPECT_EQ(check("tp_comm_overlap: true", "tensor: 4, data: 2").message(),
            "x.yaml:4:29: error: found tp_comm_overlap: true with tensor 4 and no "
            "sequence_parallel; expected tensor > 1 with sequence_parallel: true (Megatron-LM "
            "refuses --tp-comm-overlap without --sequence-parallel: the overlap hides its "
            "all-gathers and reduce-scatters)");
  EXPECT_EQ(check("tp_comm_overlap: true", "data: 8").message(),
            "x.yaml:4:29: error: found tp_comm_overlap: true with tensor 1 and no "
            "sequence_parallel; expected tensor > 1 with sequence_parallel: true (Megatron-LM "
            "refuses --tp-comm-overlap without --sequence-parallel: the overlap hides its "
            "all-gathers and reduce-scatters)");
  EXPECT_EQ(check("tp_comm_overlap: true, transformer_impl: local",
                  "tensor: 4, data: 2, sequence_parallel: true")
                .message(),
            "x.yaml:4:52: error: found transformer_impl local with tp_comm_overlap: true; "
            "expected transformer_impl transformer_engine (the overlap is Transformer Engine's "
            "userbuffers)");
  EXPECT_EQ(check("tp_comm_overlap: true", "data: 8", "  mlp: {batch: 8, widths: [64, 64]}\n")
                .message(),
            "x.yaml:4:29: error: found tp_comm_overlap: true with an mlp model; expected false "
            "(Transformer Engine's tensor-parallel overlap is modelled for transformer models)");
  const std::string sp = "tensor: 4, data: 2, sequence_parallel: true";
  EXPECT_EQ(check("tp_comm_overlap: sometimes", sp).message(),
            "x.yaml:4:46: error: found 'sometimes'; expected true or false");
  EXPECT_TRUE(check("tp_comm_overlap: true", sp).is_ok());
}

}  // namespace
}  // namespace brigade::cost
