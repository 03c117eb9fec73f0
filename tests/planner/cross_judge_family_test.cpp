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
// once disagreed, about thirty plans. With
// BRIGADE_JUDGE_FAMILY=full in the environment the suite is the whole cross
// product instead (some thousands of plans, minutes): run it after changing
// either judge.
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/planner/two_judges.hpp"

namespace brigade::planner {
namespace {

struct FamilyCase {
  std::string name;
  std::string yaml;
  Granularity granularity = Granularity::kKernel;
  // > 0: every device profile's fp8_split_accumulator_efficiency (a what-if
  // no preset has: the FP8 gradient GEMMs slower in both judges).
  double fp8_split_accumulator = 0;
  // > 0: every device profile's gemm_accumulate_exposed (a what-if no
  // preset has: the weight gradients' addition into the gradient buffer
  // shows, in both judges).
  double gemm_accumulate_exposed = 0;
};

void PrintTo(const FamilyCase& c, std::ostream* os) {
  *os << c.name;
}

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

// A plan of the cases below: a transformer scenario from its parts, at
// kernel granularity.
FamilyCase kernel_plan(const char* name, const char* topology, const char* model,
                       const char* training, const char* strategy) {
  return FamilyCase{name,
                    std::string("topology: ") + topology + "\nmodel:\n  transformer: " + model +
                        "\ntraining: " + training + "\nstrategy: " + strategy + "\n",
                    Granularity::kKernel};
}

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
      kernel_plan("step_end_by_stage_p2", "{preset: dgx-a100, nodes: 2}",
           "{layers: 7, hidden: 4096, heads: 16, seq: 1024, vocab: 4096}",
           "{global_batch: 32, micro_batch: 2}",
           "{pipeline: 2, data: 8, zero: 0, overlap: false, embedding_in_pipeline_split: true, "
           "bucket: 25MB}"),
      kernel_plan("beside_order_t8_d4", "{preset: dgx-h100, nodes: 4}",
           "{layers: 2, hidden: 2048, heads: 16, seq: 2048, vocab: 32768}",
           "{global_batch: 8, micro_batch: 1}", "{tensor: 8, data: 4, zero: 0, bucket: 25MB}"),
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
      kernel_plan("tied_allreduce_after_the_backward", "{preset: dgx-h100, nodes: 4}",
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
      kernel_plan("param_gather_walk_one_micro_batch", "{preset: dgx-h100, nodes: 2}",
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
      // dispatch's first order, within the 0.5% named).
      kernel_plan("param_gather_aligned_delays_overlap", "{preset: dgx-h100, nodes: 4}",
           "{layers: 4, hidden: 4096, heads: 32, kv_heads: 8, seq: 2048, vocab: 32768, "
           "ffn_hidden: 14336, mlp: swiglu, norm: rmsnorm, positions: rotary, bias: false, "
           "attention: flash, moe: {experts: 8, top_k: 1, imbalance: 1.5}}",
           "{global_batch: 32, micro_batch: 1, recompute: none}",
           "{tensor: 4, pipeline: 2, data: 4, bucket: 25MB, zero: 1, schedule: interleaved, "
           "virtual_stages: 2, overlap_param_gather: true}"),
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
      kernel_plan("interleaved_buckets_t8_p4_d2", "{preset: dgx-h100, nodes: 8}",
           "{layers: 16, hidden: 8192, heads: 64, kv_heads: 16, seq: 2048, vocab: 32768, "
           "ffn_hidden: 28672, mlp: swiglu, norm: rmsnorm, positions: rotary, bias: false, "
           "attention: flash}",
           "{global_batch: 16, micro_batch: 2, recompute: none, cross_entropy_fusion: true}",
           "{tensor: 8, pipeline: 4, data: 2, bucket: 100MB, zero: 0, schedule: interleaved, "
           "virtual_stages: 2, sequence_parallel: true}"),
      kernel_plan("interleaved_buckets_cp2_ib", "{preset: dgx-h100, nodes: 8}",
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
      kernel_plan("zero3_peak_before_gradient_freed", "{preset: dgx-h100, nodes: 8}",
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
      kernel_plan("bucket_full_rate_t8_p4_tp_overlap", "{preset: dgx-h100, nodes: 8}",
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
      kernel_plan("zero2_1f1b_second_backward", "{preset: dgx-a100}",
           "{layers: 4, hidden: 2048, heads: 16, seq: 2048, vocab: 32768}",
           "{global_batch: 8, micro_batch: 2, recompute: full}",
           "{tensor: 2, pipeline: 2, data: 2, zero: 2, bucket: 25MB, sequence_parallel: true}"),
      // Without overlap the buckets wait for the whole backward: no chunk's
      // gradients freed before its end (-6.8% while the interleaved walk freed
      // them after each chunk's last backward; found by the judge sweep).
      kernel_plan("zero2_interleaved_no_overlap", "{preset: dgx-a100, nodes: 4}",
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
  auto plan = [](const char* name, const char* model, const char* training,
                 const char* strategy) {
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

std::vector<FamilyCase> family() {
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
  for (FamilyCase& c : drain_chain_cases()) out.push_back(std::move(c));
  for (FamilyCase& c : zero2_memory_cases()) out.push_back(std::move(c));
  for (FamilyCase& c : zero3_cases()) out.push_back(std::move(c));
  return out;
}

class CrossJudgeFamily : public ::testing::TestWithParam<FamilyCase> {};

TEST_P(CrossJudgeFamily, StepCommunicationAndMemoryAgree) {
  const FamilyCase& c = GetParam();
  Result<Scenario> sc = parse_scenario(c.yaml, c.name + ".yaml");
  ASSERT_TRUE(sc.is_ok()) << sc.message();
  if (c.fp8_split_accumulator > 0)
    for (DeviceProfile& d : sc->profile.devices)
      d.fp8_split_accumulator_efficiency = c.fp8_split_accumulator;
  if (c.gemm_accumulate_exposed > 0)
    for (DeviceProfile& d : sc->profile.devices)
      d.gemm_accumulate_exposed = c.gemm_accumulate_exposed;
  LowerOptions lo;
  lo.granularity = c.granularity;
  testing::expect_agreement(*sc, c.name, lo, c.granularity != Granularity::kKernel);
}

INSTANTIATE_TEST_SUITE_P(Crossed, CrossJudgeFamily, ::testing::ValuesIn(family()),
                         [](const ::testing::TestParamInfo<FamilyCase>& p) {
                           return p.param.name;
                         });

}  // namespace
}  // namespace brigade::planner
