// Context parallelism (issue 21, item 3) in the closed form and the one
// description (costmodel/transformer_blocks.hpp): the ring attention's
// overlap formula, the fused attention split over the context ranks, the
// KV ring's bytes, and the closed form's ledger of hops.
//
// Sources: Liu et al. 2023, "Ring Attention with Blockwise Transformers";
// Megatron-Core's context parallelism (docs: context_parallel.html) and
// Transformer Engine's AttnFuncWithCPAndKVP2P (K and V chunks passed to the
// next rank cp - 1 times per forward, K, V and dK, dV in the backward,
// each hop overlapped with an attention block).
#include <string>

#include <gtest/gtest.h>

#include "core/scenario.hpp"
#include "costmodel/collectives.hpp"
#include "costmodel/compute.hpp"
#include "costmodel/plan.hpp"
#include "costmodel/transformer_blocks.hpp"
#include "tests/costmodel/published_kernels.hpp"

namespace brigade::cost {
namespace {

// block + (steps - 1) max(block, hop):
//   4 blocks of 1 ms, hops of 1.5 ms: 1 + 3 x 1.5 = 5.5 ms (the hops exposed);
//   4 blocks of 2 ms, hops of 1 ms:   2 + 3 x 2   = 8 ms = 4 blocks (hidden);
//   one step: the block alone.
TEST(RingAttention, ByHand) {
  EXPECT_DOUBLE_EQ(ring_attention_seconds(4, 1e-3, 1.5e-3), 5.5e-3);
  EXPECT_DOUBLE_EQ(ring_attention_seconds(4, 2e-3, 1e-3), 8e-3);
  EXPECT_DOUBLE_EQ(ring_attention_seconds(1, 2e-3, 1e-3), 2e-3);
}

TransformerShape shape(int context) {
  TransformerShape x;
  x.spec.layers = 2;
  x.spec.hidden = 512;
  x.spec.heads = 8;
  x.spec.kv_heads = 2;
  x.spec.seq = 1024;
  x.spec.vocab = 1024;
  x.spec.attention = AttentionKernel::kFlash;
  x.spec.dtype = DType::kBF16;
  x.micro_batch = 1;
  x.context = context;
  return x;
}

const Kernel& named(const std::vector<Kernel>& ks, const std::string& name) {
  for (const Kernel& k : ks)
    if (k.name == name) return k;
  ADD_FAILURE() << "no kernel " << name;
  return ks.front();
}

// b 1, seq 1024, hidden 512, 8 heads of 64, 2 key/value heads, bf16, tensor 1.
// Context 4: each rank holds 1024 / 4 = 256 positions.
//   FlashAttention forward FLOPs 4 b a s_q s_kv dh:
//     context 1: 4 x 8 x 1024 x 1024 x 64 = 2,147,483,648
//     context 4: 4 x 8 x  256 x 1024 x 64 =   536,870,912 (a quarter)
//   K or V of the rank's positions: 256 x 2 heads x 64 x 2 B = 65,536 B;
//   a forward hop carries K and V, 131,072 B; a backward hop K, V, dK, dV,
//   262,144 B; 4 steps (3 hops).
//   Pipeline boundary (b, s/cp, h): 256 x 512 x 2 B = 262,144 B.
TEST(ContextTemplates, FlashSplitAndRingBytes) {
  auto one = transformer_layer(shape(1));
  auto four = transformer_layer(shape(4));
  ASSERT_TRUE(one.is_ok() && four.is_ok());
  const Kernel& f1 = named(one->forward, "attn.flash");
  const Kernel& f4 = named(four->forward, "attn.flash");
  EXPECT_DOUBLE_EQ(f1.flops(), 2147483648.0);
  EXPECT_DOUBLE_EQ(f4.flops(), 536870912.0);
  EXPECT_EQ(f1.ring_steps, 0);
  EXPECT_EQ(f4.ring_steps, 4);
  EXPECT_DOUBLE_EQ(f4.ring_bytes, 131072.0);
  const Kernel& b4 = named(four->backward, "attn.flash.bwd");
  EXPECT_EQ(b4.ring_steps, 4);
  EXPECT_DOUBLE_EQ(b4.ring_bytes, 262144.0);
  // Every activation a layer keeps is per position: a quarter.
  EXPECT_DOUBLE_EQ(4 * four->saved_bytes(), one->saved_bytes());
  // The linear layers' FLOPs per rank are a quarter too; the total is the same.
  EXPECT_DOUBLE_EQ(4 * four->forward_flops(), one->forward_flops());
  EXPECT_DOUBLE_EQ(4 * four->backward_flops(), one->backward_flops());
  EXPECT_DOUBLE_EQ(pipeline_boundary_bytes(shape(4)), 262144.0);
}

// Transformer Engine's copies and merges around the ring's attention
// kernels (AttnFuncWithCP at v1.8, transformer_engine/pytorch/attention.py;
// ring_merge_bytes), worked rank by rank from its branches; q, kv, lse the
// rank's Q, K and statistics bytes.
//   cp 2, forward: rank 0 copies K and V to send (4 kv), zeroes O (q),
//     copies Q's second half for step 1 (q), merges step 0 whole (3 q +
//     2 lse) and step 1's second half (1.5 q + lse): 4 kv + 6.5 q + 3 lse;
//     rank 1 copies K and V's first half instead (2 kv) and merges both
//     whole: 6 kv + 7 q + 4 lse, the larger.
//   cp 2, backward: rank 0: K and V to the send buffer (4 kv) and the
//     statistics' half (lse); step 0 (Q's half: Q, O, dO halves copied,
//     3 q; dK dV concatenated 4 kv; dQ's second half copied, q; dKV copied,
//     4 kv); step 1 (its own block: 4 kv; dQ's first half copied and second
//     added, 2.5 q; dKV's first half added, second copied, 5 kv):
//     6.5 q + 21 kv + lse; rank 1: 5 q + 20 kv + lse.
//   With q = 1000, kv = 100, lse = 10: forward 7640, backward 8610.
//   cp 4 on the template's shape (q 262,144 B, kv 65,536 B, lse 256 x 8 x
//   4 = 8,192 B): forward, rank 3 (every step's K and V halves, every
//   merge whole): 10 kv + 13 q + 8 lse = 4,128,768 B; backward, rank 0
//   (three steps on Q's halves, 3 q + 4 kv copies and concatenation each
//   but its own block's 4 kv; dQ q + 1.5 q + 1.5 q + 2.5 q; dKV 4 + 6 + 6
//   + 5 kv): 15.5 q + 41 kv + lse = 6,758,400 B (ranks 1-3: 14 q + 39 kv,
//   12.5 q + 36 kv, 11 q + 34 kv, + lse).
TEST(ContextTemplates, RingMergeBytesByHand) {
  EXPECT_DOUBLE_EQ(ring_merge_bytes(1, 1000, 100, 10).forward, 0.0);
  EXPECT_DOUBLE_EQ(ring_merge_bytes(1, 1000, 100, 10).backward, 0.0);
  EXPECT_DOUBLE_EQ(ring_merge_bytes(2, 1000, 100, 10).forward, 7640.0);
  EXPECT_DOUBLE_EQ(ring_merge_bytes(2, 1000, 100, 10).backward, 8610.0);
  auto one = transformer_layer(shape(1));
  auto four = transformer_layer(shape(4));
  ASSERT_TRUE(one.is_ok() && four.is_ok());
  EXPECT_DOUBLE_EQ(named(four->forward, "attn.ring_merge").bytes, 4128768.0);
  EXPECT_DOUBLE_EQ(named(four->backward, "attn.ring_merge.bwd").bytes, 6758400.0);
  for (const Kernel& k : one->forward) EXPECT_NE(k.name, "attn.ring_merge");
  for (const Kernel& k : one->backward) EXPECT_NE(k.name, "attn.ring_merge.bwd");
}

// The closed form's ledger on one DGX A100: data 2 x context 4, global batch
// 4 in micro-batches of 1, so m = 4 / 2 = 2 per replica. Per layer and
// micro-batch 3 forward hops of 131,072 B and 3 backward hops of 262,144 B:
//   calls 2 layers x 2 micro-batches x 6 = 24,
//   bytes 2 x 2 x (3 x 131,072 + 3 x 262,144) = 4 x 1,179,648 = 4,718,592.
// The gradients are summed over data x context = 8 ranks.
TEST(ContextEstimate, LedgerOfHopsAndTheGradientGroup) {
  auto sc = parse_scenario(
      "topology: {preset: dgx-a100}\n"
      "model:\n"
      "  transformer: {layers: 2, hidden: 512, heads: 8, kv_heads: 2, seq: 1024, vocab: 1024,\n"
      "                attention: flash, dtype: bf16}\n"
      "training: {global_batch: 4, micro_batch: 1}\n"
      "strategy: {data: 2, context: 4}\n",
      "c.yaml");
  ASSERT_TRUE(sc.is_ok()) << sc.message();
  auto e = estimate_plan(*sc);
  ASSERT_TRUE(e.is_ok()) << e.message();
  bool ring = false, grads = false;
  for (const CommunicationEstimate& c : e->communication) {
    if (c.purpose == "context") {
      ring = true;
      EXPECT_EQ(c.kind, "p2p");
      EXPECT_DOUBLE_EQ(c.count, 24.0);
      EXPECT_DOUBLE_EQ(c.bytes, 4718592.0);
      EXPECT_LE(c.exposed_seconds, c.seconds);
    }
    if (c.purpose == "data") {
      grads = true;
      EXPECT_EQ(c.group_size, 8);
    }
  }
  EXPECT_TRUE(ring);
  EXPECT_TRUE(grads);
  EXPECT_EQ(e->devices, 8);
}

// A ring block is timed as its FlashAttention kernel is: at the profile's
// measured rate (dgx-h100: FlashAttention-2 on an H100, core/
// presets_profiles.cpp, hopper_flash_attention: causal TFLOP/s counting half
// the FLOPs) at the rank's query length, not on the generic roofline (until
// 2026-12-05 the blocks lost the kernel's class: the dense FLOPs at the GEMM
// curve, 1.8 x the attention time of the same plan without context
// parallelism, on Llama 3 8B's shape).
// Llama 3 8B's layer, b 1, s 8192, 32 heads of 128, 8 KV heads, context 2:
//   the rank's 4096 queries against 8192 keys, forward FLOPs
//   4 x 32 x 4096 x 8192 x 128 = 549,755,813,888; a block 274,877,906,944;
//   the rate at 4096 positions 319 TFLOP/s (FA3 paper, Figure 5, causal);
//   5.278783798 us launch + 0.5 x 274,877,906,944 / 319e12 = 436.122 us.
//   Backward 2.5 x the FLOPs at 310 x 319 / 368 = 268.72 TFLOP/s (Figure 6
//   scaled by the forward's causal / full ratio): 1283.910 us.
TEST(ContextTemplates, RingBlocksAtFlashAttentionsMeasuredRates) {
  TransformerShape x = shape(2);
  x.spec.layers = 32;
  x.spec.hidden = 4096;
  x.spec.heads = 32;
  x.spec.kv_heads = 8;
  x.spec.seq = 8192;
  x.spec.vocab = 128256;
  auto layer = transformer_layer(x);
  ASSERT_TRUE(layer.is_ok()) << layer.message();
  const Kernel& f = named(layer->forward, "attn.flash");
  const Kernel& b = named(layer->backward, "attn.flash.bwd");
  ASSERT_EQ(f.ring_steps, 2);
  EXPECT_DOUBLE_EQ(f.flops(), 549755813888.0);
  const testing::PresetGpu g = testing::preset_gpu("dgx-h100");
  EXPECT_NEAR(ring_block_seconds(g.device, g.profile, f) * 1e6, 436.122, 0.001);
  EXPECT_NEAR(ring_block_seconds(g.device, g.profile, b) * 1e6, 1283.910, 0.001);
  // The two blocks together: what the kernel without a ring would take at
  // the same query length, but for the second launch.
  Kernel whole = f;
  whole.ring_steps = 0;
  EXPECT_NEAR(2 * ring_block_seconds(g.device, g.profile, f),
              ring_block_seconds(g.device, g.profile, whole) + g.profile.launch_overhead_seconds,
              1e-12);
}

}  // namespace
}  // namespace brigade::cost
