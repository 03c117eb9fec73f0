// The cross-judge family (issue 18, item 4): small transformers crossing the
// strategy keys, through the closed form and the simulator under `--network
// ideal`, held to each other as in cross_judge_test.cpp
// (testing::expect_agreement: step, calls, communication in flight, peak
// memory, each within rounding or a difference cost::judge_differences
// names).
//
// The keys crossed: ZeRO 0-3; the pipeline (none, 1F1B over 2 stages,
// interleaved 2 x 2 chunks, GPipe); sequence parallelism; recomputation
// none / selective / full; micro-batch 1 / 2 / 4; tensor 1 / 2 / 4; the
// transformer variants (GQA kv_heads, SwiGLU, FlashAttention, untied
// embeddings); the task granularity (kernel, region, step); and context
// parallelism 1 / 2 (issue 21, item 3: the KV ring's hops beside the
// attention blocks; FlashAttention only, as Transformer Engine runs it).
//
// `make test` runs a pairwise cover of those axes (every pair of values of
// two axes appears in at least one plan) and one plan of each class that
// once disagreed, about thirty plans (the single plans found apart since,
// each kept once mended, are cross_judge_found_test.cpp's). With
// BRIGADE_JUDGE_FAMILY=full in the environment the suite is the whole cross
// product instead (some thousands of plans, minutes): run it after changing
// either judge.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/planner/cross_judge_family.hpp"

namespace brigade::planner {
namespace {

using family::FamilyCase;

// The axes, by index into each list.
const std::vector<int> kZero = {0, 1, 2, 3};
// pipeline shape: {pipeline, schedule, virtual stages}
struct Pipe {
  const char* name;
  int pipeline;
  const char* schedule;
  int virtual_stages;
};
const std::vector<Pipe> kPipe = {{"p1", 1, "1f1b", 1},
                                 {"p2", 2, "1f1b", 1},
                                 {"p2i2", 2, "interleaved", 2},
                                 {"p2gpipe", 2, "gpipe", 1}};
const std::vector<int> kSp = {0, 1};
const std::vector<const char*> kRecompute = {"none", "selective", "full"};
const std::vector<int> kMicro = {1, 2, 4};
const std::vector<int> kTensor = {1, 2, 4};
struct Variant {
  const char* name;
  const char* keys;
};
const std::vector<Variant> kVariant = {{"plain", ""},
                                       {"gqa", ", kv_heads: 4"},
                                       {"swiglu", ", mlp: swiglu, ffn_hidden: 1376"},
                                       {"flash", ", attention: flash"},
                                       {"untied", ", tie_embeddings: false, bias: false"}};
const std::vector<Granularity> kGranularity = {Granularity::kKernel, Granularity::kRegion,
                                               Granularity::kStep};
const std::vector<int> kContext = {1, 2};
constexpr int kAxes = 9;
const int kSizes[kAxes] = {4, 4, 2, 3, 3, 3, 5, 3, 2};

// The plan at one index per axis, or false if the keys do not make a plan on
// one DGX A100 (8 GPUs): sequence parallelism needs tensor >= 2, ZeRO needs
// data >= 2, context parallelism FlashAttention.
bool make_case(const int* ix, FamilyCase* out) {
  const int zero = kZero[static_cast<size_t>(ix[0])];
  const Pipe& pipe = kPipe[static_cast<size_t>(ix[1])];
  const int sp = kSp[static_cast<size_t>(ix[2])];
  const char* recompute = kRecompute[static_cast<size_t>(ix[3])];
  const int micro = kMicro[static_cast<size_t>(ix[4])];
  const int tensor = kTensor[static_cast<size_t>(ix[5])];
  const Variant& var = kVariant[static_cast<size_t>(ix[6])];
  const Granularity g = kGranularity[static_cast<size_t>(ix[7])];
  const int context = kContext[static_cast<size_t>(ix[8])];
  if (tensor * pipe.pipeline * context > 8) return false;
  if (context > 1 && std::string(var.name) != "flash") return false;
  const int data = 8 / (tensor * pipe.pipeline * context);
  if (sp && tensor < 2) return false;
  if (zero > 0 && data < 2) return false;
  // 64 sequences: every replica runs 64 / (data x micro) >= 2 micro-batches
  // (a multiple of the pipeline for interleaving).
  out->yaml = std::string("topology: {preset: dgx-a100}\nmodel:\n") +
              "  transformer: {layers: 4, hidden: 512, heads: 8, seq: 256, vocab: 4096" + var.keys +
              "}\n" + "training: {global_batch: 64, micro_batch: " + std::to_string(micro) +
              ", recompute: " + recompute + "}\n" + "strategy: {tensor: " + std::to_string(tensor) +
              ", pipeline: " + std::to_string(pipe.pipeline) + ", data: " + std::to_string(data) +
              ", zero: " + std::to_string(zero) + ", schedule: " + pipe.schedule +
              ", virtual_stages: " + std::to_string(pipe.virtual_stages) +
              (sp ? ", sequence_parallel: true" : "") +
              (context > 1 ? ", context: " + std::to_string(context) : "") + "}\n";
  out->granularity = g;
  out->name = "z" + std::to_string(zero) + "_" + pipe.name + (sp ? "_sp" : "") + "_" + recompute +
              "_mb" + std::to_string(micro) + "_t" + std::to_string(tensor) + "_" + var.name + "_" +
              std::string(granularity_name(g)) + (context > 1 ? "_cp" + std::to_string(context) : "");
  return true;
}

std::vector<FamilyCase> full_product() {
  std::vector<FamilyCase> out;
  int ix[kAxes] = {};
  for (;;) {
    FamilyCase c;
    if (make_case(ix, &c)) out.push_back(std::move(c));
    int a = 0;
    while (a < kAxes && ++ix[a] == kSizes[a]) ix[a++] = 0;
    if (a == kAxes) break;
  }
  return out;
}

// A pairwise cover, greedily (as AETG, Cohen et al. 1997): each new plan is
// the candidate, of a deterministic sweep, that covers the most value pairs
// not yet covered; plans the keys reject cover nothing.
std::vector<FamilyCase> pairwise() {
  auto pair_index = [](int a, int va, int b, int vb) {
    return ((a * kAxes + b) * 8 + va) * 8 + vb;
  };
  std::vector<char> covered(static_cast<size_t>(kAxes * kAxes * 64), 0);
  // Pairs no valid plan can cover (sequence parallelism at tensor 1, ZeRO
  // at data 1) are marked covered from the start, by trying them all.
  std::vector<char> possible(covered.size(), 0);
  int ix[kAxes] = {};
  std::vector<std::vector<int>> valid;
  for (;;) {
    FamilyCase c;
    if (make_case(ix, &c)) {
      valid.emplace_back(ix, ix + kAxes);
      for (int a = 0; a < kAxes; ++a)
        for (int b = a + 1; b < kAxes; ++b)
          possible[static_cast<size_t>(pair_index(a, ix[a], b, ix[b]))] = 1;
    }
    int a = 0;
    while (a < kAxes && ++ix[a] == kSizes[a]) ix[a++] = 0;
    if (a == kAxes) break;
  }
  for (size_t i = 0; i < covered.size(); ++i) covered[i] = !possible[i];
  std::vector<FamilyCase> out;
  for (;;) {
    int best_gain = 0;
    size_t best = 0;
    for (size_t v = 0; v < valid.size(); ++v) {
      int gain = 0;
      for (int a = 0; a < kAxes; ++a)
        for (int b = a + 1; b < kAxes; ++b)
          gain += !covered[static_cast<size_t>(pair_index(a, valid[v][static_cast<size_t>(a)], b,
                                                          valid[v][static_cast<size_t>(b)]))];
      if (gain > best_gain) {
        best_gain = gain;
        best = v;
      }
    }
    if (best_gain == 0) break;
    const std::vector<int>& w = valid[best];
    for (int a = 0; a < kAxes; ++a)
      for (int b = a + 1; b < kAxes; ++b)
        covered[static_cast<size_t>(
            pair_index(a, w[static_cast<size_t>(a)], b, w[static_cast<size_t>(b)]))] = 1;
    FamilyCase c;
    make_case(w.data(), &c);
    out.push_back(std::move(c));
  }
  return out;
}

// One plan of each class the full product found in disagreement (issue 18),
// each failing before its fix: ZeRO-3 interleaved, 12% slower simulated (no
// gather across pipeline steps); interleaved, the simulated peak 1.1% above
// (the embedding's micro-batches in flight); ZeRO-2 under GPipe, 3% below
// (the closed form held whole gradients beside every micro-batch's
// activations); full recomputation, 13% above (a block's activations freed
// with the next block's recomputation); fused tasks with recomputation (the
// head's activations held to the end of the step; the recomputation hoisted
// before the head's backward at step granularity).
std::vector<FamilyCase> classes() {
  const int picks[][kAxes] = {{3, 2, 0, 0, 0, 0, 0, 0}, {0, 2, 0, 0, 2, 2, 0, 0},
                              {2, 3, 0, 0, 0, 0, 0, 0}, {1, 1, 0, 2, 2, 0, 0, 0},
                              {1, 0, 0, 1, 2, 2, 4, 1}, {0, 0, 0, 2, 2, 0, 0, 2},
                              // context 2 at kernel granularity: the ring's hops beside
                              // the blocks (with full recomputation's too, tensor 2 + SP)
                              // and under interleaving with ZeRO-2.
                              {0, 1, 1, 2, 1, 1, 3, 0, 1}, {2, 2, 0, 0, 2, 0, 3, 0, 1}};
  std::vector<FamilyCase> out;
  for (const auto& ix : picks) {
    FamilyCase c;
    if (make_case(ix, &c)) out.push_back(std::move(c));
  }
  return out;
}

// A four-layer transformer (hidden 512, 4 heads, 256 positions, 4,096
// words; 64 sequences a step, 2 a micro-batch) on one `preset` machine,
// with the model's, training's and strategy's extra keys.
FamilyCase small_transformer(const std::string& name, const char* preset, const char* model,
                             const std::string& training, const std::string& strategy,
                             Granularity granularity = Granularity::kKernel, int layers = 4) {
  FamilyCase c;
  c.name = name;
  c.yaml = std::string("topology: {preset: ") + preset + "}\nmodel:\n" +
           "  transformer: {layers: " + std::to_string(layers) +
           ", hidden: 512, heads: 4, seq: 256, vocab: 4096" + model + "}\n" +
           "training: {global_batch: 64, micro_batch: 2" + training + "}\n" + "strategy: {" +
           strategy + "}\n";
  c.granularity = granularity;
  return c;
}

// One plan of a table of small transformers, and the task granularities'
// short names for the tables.
struct PlanKeys {
  const char* name;
  const char* preset;
  const char* model;
  const char* training;
  const char* strategy;
  Granularity granularity;
};
constexpr Granularity kK = Granularity::kKernel, kR = Granularity::kRegion,
                      kS = Granularity::kStep;

// A table's plans, each named `prefix` + its name, `training` and
// `strategy` put before its own keys of those sections.
template <size_t N>
std::vector<FamilyCase> table_cases(const std::string& prefix, const PlanKeys (&keys)[N],
                                    const std::string& training = "",
                                    const std::string& strategy = "") {
  std::vector<FamilyCase> out;
  for (const PlanKeys& k : keys)
    out.push_back(small_transformer(prefix + k.name, k.preset, k.model, training + k.training,
                                    strategy + k.strategy, k.granularity));
  return out;
}

// Issue 19's keys, beside the crossed axes: Megatron-LM's fp32 main_grad
// (gradients kept and reduced in fp32, the updated weights gathered in
// bf16), its distributed optimizer (ZeRO-1's sharding), and the Hopper
// presets' measured FlashAttention-2 rates (dgx-h100), each with data
// parallelism, a pipeline and tensor parallelism where they change bytes.
std::vector<FamilyCase> megatron_cases() {
  struct Keys {
    const char* name;
    const char* preset;
    const char* model;
    const char* training;
    const char* strategy;
  };
  const Keys keys[] = {
      {"maingrad_dp8", "dgx-a100", "", ", main_grad: fp32", "data: 8"},
      {"maingrad_p2_sp_t2", "dgx-a100", "", ", main_grad: fp32",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true"},
      {"distopt_dp8", "dgx-a100", "", ", main_grad: fp32, distributed_optimizer: true", "data: 8"},
      {"distopt_bf16_t2_p2", "dgx-a100", "", ", distributed_optimizer: true",
       "tensor: 2, pipeline: 2, data: 2"},
      {"h100_flash_dp8", "dgx-h100", ", attention: flash", "", "data: 8"},
      {"h100_flash_full_t2_p2", "dgx-h100", ", attention: flash",
       ", recompute: full, main_grad: fp32, distributed_optimizer: true",
       "tensor: 2, pipeline: 2, data: 2"},
      // --overlap-param-gather: the updated weights gathered one bucket
      // ahead of the step's first forward (small buckets: a chain of them).
      {"opg_dp8", "dgx-a100", "", ", main_grad: fp32, distributed_optimizer: true",
       "data: 8, bucket: 1MB, overlap_param_gather: true"},
      {"opg_t2_p2", "dgx-a100", "", ", distributed_optimizer: true",
       "tensor: 2, pipeline: 2, data: 2, bucket: 1MB, overlap_param_gather: true"},
      {"opg_z2_p2i2", "dgx-a100", "", "",
       "pipeline: 2, data: 4, zero: 2, schedule: interleaved, virtual_stages: 2, bucket: 1MB, "
       "overlap_param_gather: true"},
      // Gradient accumulation unfused (Megatron-LM before 2022): an add
      // after each gradient-completing kernel of every micro-batch's
      // backward; with a pipeline, recomputation, fp16 and fp32 main_grad.
      {"unfused_acc_dp8", "dgx-a100", ", dtype: f16", ", gradient_accumulation_fusion: false",
       "data: 8"},
      {"unfused_acc_full_t2_p2i2", "dgx-a100", "",
       ", recompute: full, main_grad: fp32, gradient_accumulation_fusion: false",
       "tensor: 2, pipeline: 2, data: 2, schedule: interleaved, virtual_stages: 2"},
      {"unfused_acc_selective_sp_p2", "dgx-a100", ", dtype: f16",
       ", recompute: selective, gradient_accumulation_fusion: false",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true"},
      // Megatron-LM's own layers (the QKV bias's add and gradient passes,
      // apex's LayerNorm backward) and the fused cross-entropy's four
      // kernels, with a pipeline, sequence parallelism and fp16.
      {"local_layers_dp8", "dgx-a100", ", dtype: f16",
       ", transformer_impl: local, gradient_accumulation_fusion: false", "data: 8"},
      {"local_layers_sp_t2_p2", "dgx-a100", "", ", recompute: full, transformer_impl: local",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true"},
      {"ce_fused_t2_p2i2", "dgx-a100", ", dtype: f16", ", cross_entropy_fusion: true",
       "tensor: 2, pipeline: 2, data: 2, schedule: interleaved, virtual_stages: 2"},
  };
  std::vector<FamilyCase> out;
  for (const Keys& k : keys)
    out.push_back(small_transformer(std::string("megatron_") + k.name, k.preset, k.model,
                                    k.training, k.strategy));
  return out;
}

// Issue 21 item 4's FP8 (training.fp8: Transformer Engine's recipe on
// dgx-h100): the linear layers' GEMMs at the FP8 rate, the casts before
// them, FP8 saved inputs, the weights' FP8 copies in memory and their cast
// on the optimizer step; crossed with data, tensor + SP, the pipeline
// (interleaved), recomputation, ZeRO-3, the Llama-style variant, context
// parallelism, a MoE layer under expert parallelism, and the fused
// granularities (whose runs keep FP8 GEMMs a task of their own).
std::vector<FamilyCase> fp8_cases() {
  const PlanKeys keys[] = {
      {"dp8", "dgx-h100", ", attention: flash", ", fp8: hybrid", "data: 8", kK},
      // Delayed scaling's amax reduction ends each chunk's passes (its
      // AllReduce over 'tensor' at its whole rate beside the gradient
      // buckets; a last bucket short of the size after it, a full one before).
      {"amax_t2_dp4", "dgx-h100", ", attention: flash", ", fp8: hybrid", "tensor: 2, data: 4", kK},
      {"amax_t2_dp4_small_buckets", "dgx-h100", ", attention: flash", ", fp8: hybrid",
       "tensor: 2, data: 4, bucket: 1MB", kK},
      {"amax_t2_dp8_two_nodes", "dgx-h100, nodes: 2", ", attention: flash", ", fp8: hybrid",
       "tensor: 2, data: 8, bucket: 1KB", kK},
      {"amax_t2_p2i2_dp2", "dgx-h100", "", ", fp8: hybrid",
       "tensor: 2, pipeline: 2, data: 2, schedule: interleaved, virtual_stages: 2", kK},
      {"t2_sp_p2i2", "dgx-h100", ", attention: flash", ", fp8: hybrid",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true, schedule: interleaved, "
       "virtual_stages: 2",
       kK},
      {"full_t2_p2_z1", "dgx-h100", "", ", fp8: e4m3, recompute: full",
       "tensor: 2, pipeline: 2, data: 2, zero: 1", kK},
      {"selective_t4_z3", "dgx-h100", "", ", fp8: hybrid, recompute: selective",
       "tensor: 4, data: 2, zero: 3", kK},
      {"llama_t2_maingrad", "dgx-h100",
       ", kv_heads: 2, mlp: swiglu, ffn_hidden: 1376, norm: rmsnorm, "
       "positions: rotary, tie_embeddings: false, bias: false, attention: flash",
       ", fp8: hybrid, main_grad: fp32, distributed_optimizer: true", "tensor: 2, data: 4", kK},
      {"cp2_t2", "dgx-h100", ", attention: flash", ", fp8: hybrid",
       "tensor: 2, context: 2, data: 2", kK},
      // With context parallelism the amax AllReduce spans 'tensor' x
      // 'context' (Megatron-Core's amax group): alone under tensor 1, and
      // merged apart from the layers' collectives over 'tensor' at the fused
      // granularities.
      {"amax_c2_t1", "dgx-h100", ", attention: flash", ", fp8: hybrid", "context: 2, data: 4", kK},
      {"amax_region_c2_t2", "dgx-h100", ", attention: flash", ", fp8: hybrid",
       "tensor: 2, context: 2, data: 2", kR},
      {"amax_step_c2_t2_p2", "dgx-h100", ", attention: flash", ", fp8: hybrid",
       "tensor: 2, context: 2, pipeline: 2", kS},
      // Over every rank of the stage (fp8_amax_group tensor_data_context,
      // Megatron-Core's default since 0.9): across two nodes, alone under
      // tensor 1, and with context and a pipeline at step granularity.
      {"amax_all_t2_dp8_two_nodes", "dgx-h100, nodes: 2", ", attention: flash",
       ", fp8: hybrid, fp8_amax_group: tensor_data_context", "tensor: 2, data: 8", kK},
      {"amax_all_region_d8", "dgx-h100", ", attention: flash",
       ", fp8: hybrid, fp8_amax_group: tensor_data_context", "data: 8", kR},
      {"amax_all_step_c2_d2_p2", "dgx-h100", ", attention: flash",
       ", fp8: hybrid, fp8_amax_group: tensor_data_context", "context: 2, data: 2, pipeline: 2",
       kS},
      {"moe_ep4", "dgx-h100",
       ", attention: flash, moe: {experts: 8, top_k: 2, ffn_hidden: 1024, shared_experts: 1, "
       "imbalance: 2}",
       ", fp8: hybrid", "data: 8, expert: 4", kK},
      {"moe_ep4_zero1_param_gather", "dgx-h100",
       ", attention: flash, moe: {experts: 8, top_k: 2, ffn_hidden: 1024}",
       ", fp8: hybrid, fp8_recipe: tensorwise, fp8_param_gather: true, distributed_optimizer: true",
       "data: 8, expert: 4, zero: 1", kK},
      {"region_t2_p2", "dgx-h100", ", attention: flash", ", fp8: hybrid",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true", kR},
      {"step_p2i2_z1", "dgx-h100", "", ", fp8: hybrid",
       "pipeline: 2, data: 4, zero: 1, schedule: interleaved, virtual_stages: 2", kS},
      // Current scaling (fp8_recipe: tensorwise): amax passes, scale kernels
      // and, with sequence parallelism, amax all-reduces over 'tensor'.
      {"tensorwise_llama_t2_sp", "dgx-h100",
       ", kv_heads: 2, mlp: swiglu, ffn_hidden: 1376, norm: rmsnorm, "
       "positions: rotary, tie_embeddings: false, bias: false, attention: flash",
       ", fp8: hybrid, fp8_recipe: tensorwise", "tensor: 2, data: 4, sequence_parallel: true", kK},
      {"tensorwise_region_p2i2", "dgx-h100", ", attention: flash",
       ", fp8: hybrid, fp8_recipe: tensorwise",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true, schedule: interleaved, "
       "virtual_stages: 2",
       kR},
      // FP8 primary weights (fp8_param_gather): the 16-bit weights' place
      // taken by FP8 ones, the step's cast the gathered weights' transposes.
      {"param_gather_z1_llama_t2_sp", "dgx-h100",
       ", kv_heads: 2, mlp: swiglu, ffn_hidden: 1376, norm: rmsnorm, "
       "positions: rotary, tie_embeddings: false, bias: false, attention: flash",
       ", fp8: hybrid, fp8_recipe: tensorwise, fp8_param_gather: true, distributed_optimizer: true",
       "tensor: 2, data: 4, sequence_parallel: true", kK},
      {"param_gather_z0_p2", "dgx-h100", ", attention: flash",
       ", fp8: hybrid, fp8_param_gather: true", "pipeline: 2, data: 4", kK},
      // ... gathered in FP8 ahead of the first forward (overlap_param_gather).
      {"param_gather_opg_t2_p2i2", "dgx-h100", ", attention: flash",
       ", fp8: hybrid, fp8_recipe: tensorwise, fp8_param_gather: true, distributed_optimizer: true",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true, schedule: interleaved, "
       "virtual_stages: 2, overlap: true, overlap_param_gather: true",
       kK},
      // FlashAttention-2's kernel on Hopper (attention_backend: flash), where
      // the cases above take Transformer Engine's choice, cuDNN's.
      {"flash_backend_dp8", "dgx-h100", ", attention: flash",
       ", fp8: hybrid, attention_backend: flash", "data: 8", kK},
  };
  std::vector<FamilyCase> out = table_cases("fp8_", keys);
  // The gradient GEMMs in split accumulation at a profile's 0.8 of the
  // fast curve (KernelClass::kGemmSplitAccumulator): beside the pipeline's
  // sends and the tensor-parallel overlap's collectives, and in the fused
  // runs, whose split GEMMs are a part of their own.
  const PlanKeys split[] = {
      {"t2_sp_p2i2", "dgx-h100", ", attention: flash", ", fp8: hybrid",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true, schedule: interleaved, "
       "virtual_stages: 2",
       kK},
      {"tp_overlap_t4_p2", "dgx-h100", ", attention: flash", ", fp8: hybrid, tp_comm_overlap: true",
       "tensor: 4, pipeline: 2, sequence_parallel: true", kK},
      {"region_moe_ep4", "dgx-h100",
       ", attention: flash, moe: {experts: 8, top_k: 2, ffn_hidden: 1024, shared_experts: 1}",
       ", fp8: hybrid", "data: 8, expert: 4", kR},
      {"step_t2_z1", "dgx-h100", "", ", fp8: hybrid, fp8_recipe: tensorwise",
       "tensor: 2, data: 4, sequence_parallel: true, zero: 1", kS},
  };
  for (FamilyCase& c : table_cases("fp8_split_", split)) {
    c.fp8_split_accumulator = 0.8;
    out.push_back(std::move(c));
  }
  // The weight gradients' addition into the gradient buffer at a profile's
  // whole streaming rate (gemm_accumulate_exposed 1; docs/costmodel.md,
  // "Fused gradient accumulation"): with the gradient buckets' clock, the
  // pipeline, the tensor-parallel overlap's GEMMs on fewer SMs, an FP32
  // buffer, and in the fused runs.
  const PlanKeys accumulate[] = {
      {"t2_sp_p2i2_fp32", "dgx-h100", ", attention: flash", ", fp8: hybrid, main_grad: fp32",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true, schedule: interleaved, "
       "virtual_stages: 2, overlap: true",
       kK},
      {"dp8_overlap", "dgx-a100", "", "", "data: 8, overlap: true, bucket: 1MB", kK},
      {"tp_overlap_t4_p2", "dgx-h100", ", attention: flash", ", fp8: hybrid, tp_comm_overlap: true",
       "tensor: 4, pipeline: 2, sequence_parallel: true", kK},
      {"region_t2_d4", "dgx-a100", "", "", "tensor: 2, data: 4", kR},
      {"step_t2_z1", "dgx-h100", "", ", fp8: hybrid",
       "tensor: 2, data: 4, sequence_parallel: true, zero: 1", kS},
      // A MoE layer: its shared and routed experts' weight gradients add
      // into the buffer, its router's is an add of its own; with uneven
      // loads each rank's grouped GEMM its own rows (the lowering's).
      {"region_moe_ep4", "dgx-h100",
       ", attention: flash, moe: {experts: 8, top_k: 2, ffn_hidden: 1024, shared_experts: 1}",
       ", fp8: hybrid", "data: 8, expert: 4", kR},
      {"kernel_moe_uneven_ep4", "dgx-h100",
       ", attention: flash, moe: {experts: 8, top_k: 2, ffn_hidden: 1024, "
       "load: [5, 3, 1, 1, 1, 1, 1, 3]}",
       "", "data: 8, expert: 4", kK},
  };
  for (FamilyCase& c : table_cases("accumulate_", accumulate)) {
    c.gemm_accumulate_exposed = 1.0;
    out.push_back(std::move(c));
  }
  return out;
}

// Transformer Engine's tensor-parallel overlap (training.tp_comm_overlap):
// collectives beside their GEMMs on the `tp` streams, the GEMMs on the SMs
// the overlap leaves them; bf16 on dgx-a100 and FP8 on dgx-h100, with a
// pipeline (interleaved), recomputation (selective, full), the Llama-style
// variant, ZeRO, data parallelism and the fused granularities.
std::vector<FamilyCase> tp_overlap_cases() {
  const PlanKeys keys[] = {
      {"t2_dp4", "dgx-a100", "", "", "tensor: 2, data: 4", kK},
      {"t4_p2i2_fp8", "dgx-h100", ", attention: flash", ", fp8: hybrid",
       "tensor: 4, pipeline: 2, schedule: interleaved, virtual_stages: 2", kK},
      {"t2_p2_full", "dgx-a100", "", ", recompute: full", "tensor: 2, pipeline: 2, data: 2", kK},
      {"t2_selective_z1", "dgx-a100", ", dtype: f16", ", recompute: selective",
       "tensor: 2, data: 4, zero: 1", kK},
      {"t2_llama_fp8", "dgx-h100",
       ", kv_heads: 2, mlp: swiglu, ffn_hidden: 1376, norm: rmsnorm, positions: rotary, "
       "tie_embeddings: false, bias: false, attention: flash",
       ", fp8: hybrid, main_grad: fp32, distributed_optimizer: true", "tensor: 2, data: 4", kK},
      {"t4_region_fp8", "dgx-h100", ", attention: flash", ", fp8: hybrid",
       "tensor: 4, pipeline: 2, data: 1", kR},
      {"t2_llama_fp8_tensorwise", "dgx-h100",
       ", kv_heads: 2, mlp: swiglu, ffn_hidden: 1376, norm: rmsnorm, positions: rotary, "
       "tie_embeddings: false, bias: false, attention: flash",
       ", fp8: hybrid, fp8_recipe: tensorwise", "tensor: 2, data: 4", kK},
      {"t2_step", "dgx-a100", "", "", "tensor: 2, pipeline: 2, data: 2", kS},
  };
  return table_cases("tp_overlap_", keys, ", tp_comm_overlap: true", "sequence_parallel: true, ");
}

// The column-parallel backward's asynchronous collectives
// (training.tp_backward_overlap, on by default, so every plan above with
// tensor > 1 has them too): NCCL collectives beside the input- and
// weight-gradient GEMMs on the `tp` streams, with and without sequence
// parallelism, with a pipeline (interleaved), recomputation, fp16 and
// Megatron-LM's own layers, FP8, the fused granularities; and off, between
// kernels.
std::vector<FamilyCase> tp_backward_cases() {
  const PlanKeys keys[] = {
      {"t2_dp4", "dgx-a100", "", "", "tensor: 2, data: 4", kK},
      {"t4_sp_p2i2", "dgx-a100", "", "",
       "tensor: 4, pipeline: 2, sequence_parallel: true, schedule: interleaved, "
       "virtual_stages: 2",
       kK},
      {"t2_full_local_p2", "dgx-a100", ", dtype: f16", ", recompute: full, transformer_impl: local",
       "tensor: 2, pipeline: 2, data: 2", kK},
      {"t2_sp_fp8_selective", "dgx-h100", ", attention: flash",
       ", fp8: hybrid, recompute: selective", "tensor: 2, data: 4, sequence_parallel: true", kK},
      {"t4_sp_region", "dgx-h100", ", attention: flash", "",
       "tensor: 4, pipeline: 2, sequence_parallel: true", kR},
      {"t2_step", "dgx-a100", "", "", "tensor: 2, pipeline: 2, data: 2", kS},
      {"off_t2_sp_p2", "dgx-a100", "", ", tp_backward_overlap: false",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true", kK},
  };
  return table_cases("tp_backward_", keys);
}

// Block recomputation (training.recompute_method: block): a chunk's first
// recompute_num_layers layers recompute, the rest keep their activations
// (two layer templates a chunk in both judges): alone on one stage, with
// ZeRO-2's gradients beside the activations, a pipeline with tensor and
// sequence parallelism, an interleaved pipeline whose chunks keep all their
// layers under overlapped parameter gathers, FP8, the fused granularities.
std::vector<FamilyCase> block_recompute_cases() {
  const PlanKeys keys[] = {
      {"n1_dp8", "dgx-a100", "", ", recompute_num_layers: 1", "data: 8", kK},
      {"n3_z2_dp8", "dgx-a100", "", ", recompute_num_layers: 3", "data: 8, zero: 2", kK},
      {"n1_t2_sp_p2_opg", "dgx-a100", "", ", recompute_num_layers: 1, distributed_optimizer: true",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true, bucket: 1MB, "
       "overlap_param_gather: true",
       kK},
      {"n0_p2i2_opg", "dgx-a100", "", ", recompute_num_layers: 0, distributed_optimizer: true",
       "pipeline: 2, data: 4, schedule: interleaved, virtual_stages: 2, bucket: 1MB, "
       "overlap_param_gather: true",
       kK},
      {"n2_fp8_t2_region", "dgx-h100", ", attention: flash", ", recompute_num_layers: 2, fp8: hybrid",
       "tensor: 2, data: 4, sequence_parallel: true", kR},
      {"n1_p2_step", "dgx-a100", "", ", recompute_num_layers: 1", "pipeline: 2, data: 4", kS},
  };
  return table_cases("block_recompute_", keys, ", recompute: full, recompute_method: block");
}

// Op-level selective checkpointing (training.recompute: op, torchtitan's
// policy): each layer's kept outputs between the passes and its replay
// before its backward (K's and w3's columns of the fused GEMMs, the
// projection, the memory-bound kernels; every linear under FP8) in both
// judges: data parallelism, FP8 under ZeRO-3, tensor and sequence
// parallelism with a pipeline (the reduce-scatters' outputs kept, the
// all-gathers replayed), an interleaved pipeline, the fused granularities.
std::vector<FamilyCase> op_recompute_cases() {
  const char* llama =
      ", kv_heads: 2, mlp: swiglu, ffn_hidden: 1376, norm: rmsnorm, positions: rotary, "
      "tie_embeddings: false, bias: false, attention: flash";
  const PlanKeys keys[] = {
      {"dp8", "dgx-h100", llama, "", "data: 8", kK},
      {"fp8_z3_dp8", "dgx-h100", llama, ", fp8: hybrid", "data: 8, zero: 3", kK},
      {"t2_sp_p2", "dgx-a100", llama, "",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true", kK},
      {"p2i2", "dgx-h100", llama, "",
       "pipeline: 2, data: 4, schedule: interleaved, virtual_stages: 2", kK},
      {"fp8_t2_region", "dgx-h100", llama, ", fp8: hybrid", "tensor: 2, data: 4", kR},
      {"p2_step", "dgx-a100", llama, "", "pipeline: 2, data: 4", kS},
  };
  return table_cases("op_recompute_", keys, ", recompute: op");
}

// Heads of a width of their own (model.transformer.head_dim, Megatron-LM's
// --kv-channels; Qwen3, Mistral NeMo): the QKV GEMM's columns and the
// projection's rows heads x head_dim, not hidden. Wider heads (4 of 256 on
// hidden 512, where hidden / heads is 128) and narrower (4 of 64), with GQA, tensor and sequence
// parallelism, a pipeline, unfused attention with recomputation, FP8,
// context parallelism and the fused granularities.
std::vector<FamilyCase> head_dim_cases() {
  const PlanKeys keys[] = {
      {"wide_gqa_t2_sp", "dgx-a100",
       ", head_dim: 256, kv_heads: 2, mlp: swiglu, ffn_hidden: 1376, norm: rmsnorm, "
       "positions: rotary, tie_embeddings: false, bias: false, attention: flash",
       "", "tensor: 2, data: 4, sequence_parallel: true", kK},
      {"narrow_unfused_selective_p2", "dgx-a100", ", head_dim: 64",
       ", recompute: selective", "tensor: 2, pipeline: 2, data: 2", kK},
      {"wide_full_p2i2", "dgx-a100", ", head_dim: 192", ", recompute: full",
       "pipeline: 2, data: 4, schedule: interleaved, virtual_stages: 2", kK},
      {"wide_fp8_cp2", "dgx-h100", ", head_dim: 256, kv_heads: 2, attention: flash",
       ", fp8: hybrid", "tensor: 2, context: 2, data: 2", kK},
      {"wide_region_t2_sp", "dgx-h100", ", head_dim: 256, attention: flash", ", fp8: hybrid",
       "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true", kR},
      {"narrow_step_z1", "dgx-a100", ", head_dim: 64", "",
       "pipeline: 2, data: 4, zero: 1", kS},
      // Qwen3's layer: QK-norm (qk_norm) on heads of 256, their gains
      // replicated over 'tensor' (reduced with sequence parallelism's
      // replicated gradients), recomputed under full recomputation, sharded
      // under ZeRO-3.
      {"qk_norm_qwen3_t2_sp_full", "dgx-h100",
       ", head_dim: 256, kv_heads: 2, qk_norm: true, mlp: swiglu, ffn_hidden: 1376, "
       "norm: rmsnorm, positions: rotary, tie_embeddings: false, bias: false, attention: flash",
       ", recompute: full", "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true", kK},
      {"qk_norm_layernorm_z3_region", "dgx-a100", ", head_dim: 64, qk_norm: true", "",
       "tensor: 2, data: 4, zero: 3", kR},
      {"qk_norm_t2_no_sp_p2", "dgx-a100", ", head_dim: 64, qk_norm: true, norm: rmsnorm", "",
       "tensor: 2, pipeline: 2, data: 2", kK},
  };
  return table_cases("head_dim_", keys);
}

// The embedding and the loss counted in the pipeline split (Megatron-Core's
// account_for_embedding / account_for_loss_in_pipeline_split): a layer
// fewer in the first chunk of stage 0 and the last of the last stage, with
// 1F1B and interleaving, block recomputation (the short chunks' kept and
// recomputing layers), the distributed optimizer's gathers, ZeRO-2,
// tensor and sequence parallelism, and the fused granularities.
std::vector<FamilyCase> pipeline_split_cases() {
  struct Keys {
    const char* name;
    int layers;
    const char* training;
    const char* strategy;
    Granularity granularity;
  };
  const Keys keys[] = {
      {"e_l_p2i2", 6, "", "pipeline: 2, data: 4, schedule: interleaved, virtual_stages: 2, "
                          "embedding_in_pipeline_split: true, loss_in_pipeline_split: true", kK},
      {"e_p2", 7, "", "pipeline: 2, data: 4, embedding_in_pipeline_split: true", kK},
      {"l_p2_opg", 7, ", distributed_optimizer: true",
       "pipeline: 2, data: 4, bucket: 1MB, overlap_param_gather: true, "
       "loss_in_pipeline_split: true", kK},
      {"e_l_p2i2_block", 6, ", recompute: full, recompute_method: block, recompute_num_layers: 1",
       "pipeline: 2, data: 4, schedule: interleaved, virtual_stages: 2, "
       "embedding_in_pipeline_split: true, loss_in_pipeline_split: true", kK},
      {"e_l_p4_t2_sp_region", 6, "",
       "tensor: 2, pipeline: 4, sequence_parallel: true, embedding_in_pipeline_split: true, "
       "loss_in_pipeline_split: true", kR},
      {"e_l_p2_z2_step", 6, "", "pipeline: 2, data: 4, zero: 2, embedding_in_pipeline_split: true, "
                                "loss_in_pipeline_split: true", kS},
  };
  std::vector<FamilyCase> out;
  for (const Keys& k : keys)
    out.push_back(small_transformer(std::string("pipeline_split_") + k.name, "dgx-a100", "",
                                    k.training, k.strategy, k.granularity, k.layers));
  // A tied embedding over two stages with two gradient buckets a stage (8
  // layers): the last stage's optimizer waits for the first stage's
  // buckets past its backward, then the embedding's AllReduce (Megatron-
  // Core's finalize_model_grads); 0.25% apart before the closed form joined
  // them, within the pipeline's 0.1% since.
  out.push_back(small_transformer("tied_join_p2_two_buckets", "dgx-a100", "", "",
                                  "pipeline: 2, data: 4", kK, 8));
  return out;
}

std::vector<FamilyCase> family_cases() {
  const char* env = std::getenv("BRIGADE_JUDGE_FAMILY");
  std::vector<FamilyCase> out =
      env != nullptr && std::string(env) == "full" ? full_product() : pairwise();
  if (env == nullptr || std::string(env) != "full")
    for (FamilyCase& c : classes())
      if (std::none_of(out.begin(), out.end(),
                       [&](const FamilyCase& o) { return o.name == c.name; }))
        out.push_back(std::move(c));
  for (FamilyCase& c : megatron_cases()) out.push_back(std::move(c));
  for (FamilyCase& c : fp8_cases()) out.push_back(std::move(c));
  for (FamilyCase& c : tp_overlap_cases()) out.push_back(std::move(c));
  for (FamilyCase& c : tp_backward_cases()) out.push_back(std::move(c));
  for (FamilyCase& c : block_recompute_cases()) out.push_back(std::move(c));
  for (FamilyCase& c : op_recompute_cases()) out.push_back(std::move(c));
  for (FamilyCase& c : head_dim_cases()) out.push_back(std::move(c));
  for (FamilyCase& c : pipeline_split_cases()) out.push_back(std::move(c));
  return out;
}

class CrossJudgeFamily : public ::testing::TestWithParam<FamilyCase> {};

TEST_P(CrossJudgeFamily, StepCommunicationAndMemoryAgree) {
  family::expect_case_agreement(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Crossed, CrossJudgeFamily, ::testing::ValuesIn(family_cases()),
                         [](const ::testing::TestParamInfo<FamilyCase>& p) {
                           return p.param.name;
                         });

}  // namespace
}  // namespace brigade::planner
