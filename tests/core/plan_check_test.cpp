// check_plan: the semantic checks every judge runs first, each message
// asserted exactly, and the seed's quiz facts about batch sharding.
#include "core/plan_check.hpp"

#include <gtest/gtest.h>

#include <string>

namespace brigade {
namespace {

Status check(const std::string& text) {
  Result<Scenario> r = parse_scenario(text, "p.yaml");
  if (!r.is_ok()) return Status::error("parse failed: " + r.message());
  return check_plan(*r);
}

// ---- the seed's quiz (first seed text, Q4) ---------------------------------

// "pmap on a (32, 256) input over 8 devices: each device gets (4, 256)",
// 32 / 8 = 4. In JAX terms this is batch sharding.
TEST(SeedQuiz, BatchOf32Over8DevicesIs4RowsEach) {
  EXPECT_EQ(*per_device_input_shape({32, 256}, 8, DataMode::kBatch),
            (std::vector<std::int64_t>{4, 256}));
  const std::string text =
      "topology: {preset: cpu-host, devices: 8}\n"
      "model:\n"
      "  mlp: {batch: 32, widths: [256, 256]}\n"
      "strategy: {data: 8}\n";
  EXPECT_TRUE(check(text).is_ok()) << check(text).message();
  EXPECT_EQ(per_replica_batch(*parse_scenario(text, "p.yaml")), 4);
}

// 30 rows do not split into 8 equal blocks: the message names 30, 8 and the
// nearest batches that would (24 = 3 x 8, 32 = 4 x 8).
TEST(SeedQuiz, BatchOf30Over8DevicesIsRejected) {
  EXPECT_EQ(
      per_device_input_shape({30, 256}, 8, DataMode::kBatch).message(),
      "found batch 30 over 8 data-parallel devices; expected a multiple of 8, such as 24 or 32");
  EXPECT_EQ(check("topology: {preset: cpu-host, devices: 8}\n"
                  "model:\n"
                  "  mlp: {batch: 30, widths: [256, 256]}\n"
                  "strategy: {data: 8}\n")
                .message(),
            "p.yaml:3:9: error: found batch 30 over 8 data-parallel devices; expected a multiple "
            "of 8, such as 24 or 32");
}

// pmap proper maps over the leading axis: (8, 512) on 4 devices is an error
// unless reshaped to (4, 2, 512); (4, 2, 512) gives each device (2, 512).
TEST(SeedQuiz, PmapProperMapsTheLeadingAxis) {
  EXPECT_EQ(per_device_input_shape({8, 512}, 4, DataMode::kPmap).message(),
            "found (8, 512) under pmap over 4 devices; expected a leading axis of 4 (pmap maps "
            "device i to x[i]): reshape to (4, 2, 512) or use data_mode: batch");
  // Not a multiple: no reshape helps, batch sharding does not either; say so plainly.
  EXPECT_EQ(per_device_input_shape({6, 512}, 4, DataMode::kPmap).message(),
            "found (6, 512) under pmap over 4 devices; expected a leading axis of 4 (pmap maps "
            "device i to x[i]): use data_mode: batch");
  EXPECT_EQ(*per_device_input_shape({4, 2, 512}, 4, DataMode::kPmap),
            (std::vector<std::int64_t>{2, 512}));
  EXPECT_EQ(*per_device_input_shape({8, 512}, 4, DataMode::kBatch),
            (std::vector<std::int64_t>{2, 512}));
}

// ---- every check, exactly ----------------------------------------------------

struct PlanCase {
  const char* name;
  const char* text;
  const char* expected;  // "" = passes
  ErrorKind kind = ErrorKind::kBadInput;
};

void PrintTo(const PlanCase& c, std::ostream* os) {
  *os << c.name;
}

class PlanCheck : public ::testing::TestWithParam<PlanCase> {};

// Llama 3.1 405B as Megatron-Bridge's H100 recipe splits it: 126 layers
// and the embedding and the loss over pipeline 8 x 8 chunks, 2 a chunk, 1
// in the first chunk of stage 0 and the last of stage 7
// (transformer_block.py, get_num_layers_to_build).
TEST(PipelineSplit, Llama405BOverSixtyFourChunks) {
  Result<Scenario> r = parse_scenario(
      "topology: {preset: dgx-h100, nodes: 128}\n"
      "model: {huggingface: {config: ../scenarios/models/llama3_405b.json, seq: 8192, "
      "attention: flash}}\n"
      "training: {global_batch: 1536, micro_batch: 1}\n"
      "strategy: {tensor: 8, pipeline: 8, context: 2, data: 8, schedule: interleaved, "
      "virtual_stages: 8, sequence_parallel: true, embedding_in_pipeline_split: true, "
      "loss_in_pipeline_split: true}\n",
      std::string(BRIGADE_SOURCE_DIR) + "/tests/p.yaml");
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_TRUE(check_plan(*r).is_ok()) << check_plan(*r).message();
  const PipelineSplit s = pipeline_split(*r);
  EXPECT_EQ(s.per_chunk, 2);
  EXPECT_EQ(s.virtual_stages, 64);
  EXPECT_EQ(s.layers(0), 1);   // chunk 0 of stage 0: the embedding and layer 0
  EXPECT_EQ(s.layers(1), 2);   // chunk 0 of stage 1: layers 1, 2
  EXPECT_EQ(s.layers(8), 2);   // chunk 1 of stage 0
  EXPECT_EQ(s.layers(63), 1);  // chunk 7 of stage 7: layer 125 and the loss
  EXPECT_EQ(s.first_layer(0), 0);
  EXPECT_EQ(s.first_layer(1), 1);
  EXPECT_EQ(s.first_layer(2), 3);
  EXPECT_EQ(s.first_layer(63), 125);
  std::int64_t layers = 0;
  for (int vs = 0; vs < s.virtual_stages; ++vs) layers += s.layers(vs);
  EXPECT_EQ(layers, 126);
  // Without the keys, 126 layers do not divide over 64 chunks.
  Scenario plain = *r;
  plain.strategy.embedding_in_pipeline_split = plain.strategy.loss_in_pipeline_split = false;
  EXPECT_FALSE(check_plan(plain).is_ok());
}

TEST_P(PlanCheck, ExactMessage) {
  const PlanCase& c = GetParam();
  Result<Scenario> r = parse_scenario(c.text, "p.yaml");
  ASSERT_TRUE(r.is_ok()) << r.message();
  const Status st = check_plan(*r);
  if (std::string(c.expected).empty()) {
    EXPECT_TRUE(st.is_ok()) << st.message();
    return;
  }
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(), c.expected);
  EXPECT_EQ(st.kind(), c.kind);
}

#define CPU4 "topology: {preset: cpu-host, devices: 4}\n"
#define MLP8 "model:\n  mlp: {batch: 8, widths: [16, 16]}\n"
// 16 A100s; a 24-layer GPT with 16 heads. Line 4 onwards is the row's own.
#define GPT                                  \
  "topology: {preset: dgx-a100, nodes: 2}\n" \
  "model:\n"                                 \
  "  transformer: {layers: 24, hidden: 2048, heads: 16, seq: 1024, vocab: 50304}\n"
#define GRAPH4                                                                    \
  "topology: {preset: pcie-4gpu}\n"                                               \
  "model:\n"                                                                      \
  "  graph:\n"                                                                    \
  "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32], w2: [2048, 512, f32]}\n" \
  "    ops:\n"                                                                    \
  "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n"                        \
  "      - {name: act, op: relu, in: [h], out: a}\n"                              \
  "      - {name: mm2, op: matmul, in: [a, w2], out: y}\n"
#define MESH22 "mesh: {shape: [2, 2], axes: [data, model]}\n"

const PlanCase kCases[] = {
    // The seed's 13B story: "128-way data x 8-way tensor" on 16 nodes x 8 A100.
    {"SeedLlmDegreesNeed1024Devices",
     "topology: {preset: dgx-a100, nodes: 16}\n"
     "model:\n"
     "  transformer: {layers: 40, hidden: 5120, heads: 40, seq: 2048, vocab: 51200}\n"
     "training: {global_batch: 1024}\n"
     "strategy: {data: 128, tensor: 8}\n",
     "p.yaml:5:1: error: found a plan for 1024 devices (data 128 x tensor 8 x pipeline 1); "
     "expected the topology's 128 devices"},
    {"SeedLlmWithData16Fits",
     "topology: {preset: dgx-a100, nodes: 16}\n"
     "model:\n"
     "  transformer: {layers: 40, hidden: 5120, heads: 40, seq: 2048, vocab: 51200}\n"
     "training: {global_batch: 1024}\n"
     "strategy: {data: 16, tensor: 8}\n",
     ""},
    {"TransformerPasses",
     GPT
     "training: {global_batch: 64, micro_batch: 2}\nstrategy: {data: 2, tensor: 4, pipeline: 2}\n",
     ""},
    {"MicroBatchDoesNotDivide",
     GPT "training: {global_batch: 64, micro_batch: 3}\nstrategy: {data: 2, tensor: 8}\n",
     "p.yaml:4:30: error: found micro_batch 3; expected a divisor of the per-replica batch 32 "
     "(global batch 64 / data 2)"},
    {"HeadsNotDivisibleByTensor", GPT "training: {global_batch: 64}\nstrategy: {tensor: 3}\n",
     "p.yaml:5:12: error: found tensor 3 with heads 16; expected tensor to divide heads (each "
     "tensor-parallel rank holds heads/tensor attention heads)"},
    // Tensor parallelism splits the vocabulary, the FFN columns and, with
    // sequence parallelism, the sequence; each must divide by tensor.
    {"VocabNotDivisibleByTensor",
     "topology: {preset: dgx-a100, nodes: 2}\n"
     "model:\n"
     "  transformer: {layers: 24, hidden: 2048, heads: 16, seq: 1024, vocab: 50257}\n"
     "training: {global_batch: 64}\nstrategy: {data: 2, tensor: 8}\n",
     // 50257 = 8 x 6282 + 1; the next multiple is 8 x 6283 = 50264.
     "p.yaml:3:65: error: found vocab 50257 with tensor 8; expected a multiple of tensor, such as "
     "50264 (Megatron-LM pads the vocabulary; each rank holds vocab/tensor rows)"},
    {"FfnNotDivisibleByTensor",
     "topology: {preset: dgx-a100, nodes: 2}\n"
     "model:\n"
     "  transformer: {layers: 24, hidden: 2048, heads: 16, seq: 1024, vocab: 50304, ffn_ratio: "
     "2.6}\n"
     "training: {global_batch: 64}\nstrategy: {data: 2, tensor: 8}\n",
     // round(2.6 x 2048 = 5324.8) = 5325 = 8 x 665 + 5.
     "p.yaml:3:79: error: found FFN width 5325 (ffn_ratio 2.6 x hidden 2048) with tensor 8; "
     "expected a multiple of tensor (each tensor-parallel rank holds FFN width/tensor columns of "
     "fc1)"},
    {"SeqNotDivisibleByTensorUnderSequenceParallel",
     "topology: {preset: dgx-a100, nodes: 2}\n"
     "model:\n"
     "  transformer: {layers: 24, hidden: 2048, heads: 16, seq: 1020, vocab: 50304}\n"
     "training: {global_batch: 64}\nstrategy: {data: 2, tensor: 8, sequence_parallel: true}\n",
     "p.yaml:3:54: error: found seq 1020 with sequence_parallel over tensor 8; expected a multiple "
     "of tensor (each rank keeps seq/tensor positions)"},
    {"SeqNotDivisibleByTensorPassesWithoutSequenceParallel",
     "topology: {preset: dgx-a100, nodes: 2}\n"
     "model:\n"
     "  transformer: {layers: 24, hidden: 2048, heads: 16, seq: 1020, vocab: 50304}\n"
     "training: {global_batch: 64}\nstrategy: {data: 2, tensor: 8}\n",
     ""},
    {"LayersNotDivisibleByPipeline", GPT "training: {global_batch: 64}\nstrategy: {pipeline: 5}\n",
     "p.yaml:5:12: error: found 24 layers over 5 pipeline stages (pipeline 5 x virtual_stages 1); "
     "expected layers divisible by 5"},
    {"LayersNotDivisibleByVirtualStages",
     GPT "training: {global_batch: 64}\nstrategy: {pipeline: 4, schedule: interleaved, "
         "virtual_stages: 4}\n",
     "p.yaml:5:12: error: found 24 layers over 16 pipeline stages (pipeline 4 x virtual_stages 4); "
     "expected layers divisible by 16"},
    // Megatron-Core's split with the embedding and the loss counted as
    // layers (strategy.embedding_in_pipeline_split, loss_in_pipeline_split).
    {"EmbeddingAndLossCountedInTheSplit",
     GPT "training: {global_batch: 64}\n"
         "strategy: {data: 8, pipeline: 2, embedding_in_pipeline_split: true, "
         "loss_in_pipeline_split: true}\n",
     ""},
    {"EmbeddingAndLossNotDividingTheStages",
     GPT "training: {global_batch: 64}\n"
         "strategy: {data: 4, pipeline: 4, embedding_in_pipeline_split: true, "
         "loss_in_pipeline_split: true}\n",
     "p.yaml:5:34: error: found 24 layers + the embedding and the loss = 26 over 4 pipeline "
     "stages (pipeline 4 x virtual_stages 1); expected a multiple of 4 (Megatron-Core counts the "
     "embedding and the loss as layers of the split)"},
    {"LossAloneInTheLastChunk",
     "topology: {preset: dgx-a100, nodes: 2}\n"
     "model:\n"
     "  transformer: {layers: 15, hidden: 2048, heads: 16, seq: 1024, vocab: 50304}\n"
     "training: {global_batch: 64}\n"
     "strategy: {data: 1, pipeline: 16, loss_in_pipeline_split: true}\n",
     "p.yaml:5:35: error: found 1 layer a chunk with the loss counted; expected at least 2, so "
     "that the chunk holding the loss keeps a layer (a chunk of the embedding or the loss alone "
     "is not modelled)"},
    {"HiddenNotDivisibleByHeads",
     "topology: {preset: dgx-a100, nodes: 2}\n"
     "model:\n"
     "  transformer: {layers: 24, hidden: 2050, heads: 16, seq: 1024, vocab: 50304}\n"
     "training: {global_batch: 64}\n",
     "p.yaml:3:29: error: found hidden 2050 with heads 16; expected hidden divisible by heads (a "
     "whole head dimension hidden/heads), or model.transformer.head_dim set to the heads' own "
     "width"},
    {"TransformerWithoutGlobalBatch", GPT "strategy: {data: 16}\n",
     "p.yaml:3:3: error: found no training.global_batch; expected the global batch (sequences per "
     "step) of a transformer"},
    {"TransformerBatchNotDivisible", GPT "training: {global_batch: 60}\nstrategy: {data: 16}\n",
     "p.yaml:4:12: error: found batch 60 over 16 data-parallel devices; expected a multiple of 16, "
     "such as 48 or 64"},
    // strategy.pipeline_engine deepspeed: DeepSpeed's TrainSchedule (1F1B)
    // over 2021's tensor slicing, ZeRO 0-1 (its engine asserts it).
    {"DeepSpeedEngineInterleaved",
     GPT "training: {global_batch: 64}\n"
         "strategy: {data: 2, pipeline: 4, schedule: interleaved, virtual_stages: 2, "
         "pipeline_engine: deepspeed}\n",
     "p.yaml:5:76: error: found pipeline_engine deepspeed with schedule interleaved; expected "
     "schedule 1f1b (DeepSpeed's TrainSchedule)"},
    {"DeepSpeedEngineSequenceParallel",
     GPT "training: {global_batch: 64}\n"
         "strategy: {tensor: 2, pipeline: 4, sequence_parallel: true, pipeline_engine: deepspeed}\n",
     "p.yaml:5:61: error: found pipeline_engine deepspeed with sequence_parallel; expected neither "
     "(DeepSpeed's engine sends the boundary tensor as Megatron's 2021 tensor slicing leaves it) "
     "or pipeline_engine megatron"},
    {"DeepSpeedEngineZero2",
     GPT "training: {global_batch: 64}\n"
         "strategy: {data: 2, pipeline: 4, zero: 2, pipeline_engine: deepspeed}\n",
     "p.yaml:5:43: error: found pipeline_engine deepspeed with zero 2; expected zero 0 or 1 "
     "(DeepSpeed's PipelineEngine asserts that ZeRO-2 and ZeRO-3 are incompatible with pipeline "
     "parallelism, engine.py at v0.5.8 line 72)"},
    {"DeepSpeedEngineScatterGather",
     GPT "training: {global_batch: 64}\n"
         "strategy: {data: 2, pipeline: 4, pipeline_scatter_gather: true, pipeline_engine: "
         "deepspeed}\n",
     "p.yaml:5:34: error: found pipeline_scatter_gather with pipeline_engine deepspeed; expected "
     "pipeline_engine megatron (Megatron-LM's scatter-gather of the boundary tensor; DeepSpeed's "
     "engine always sends 1/tensor of it a rank)"},
    {"DeepSpeedEngineBlockingSends",
     GPT "training: {global_batch: 64}\n"
         "strategy: {data: 2, pipeline: 4, pipeline_blocking_sends: true, pipeline_engine: "
         "deepspeed}\n",
     "p.yaml:5:34: error: found pipeline_blocking_sends with pipeline_engine deepspeed; expected "
     "pipeline_engine megatron (Megatron-LM's blocking exchanges; DeepSpeed's engine always "
     "blocks on its sends and receives)"},
    {"DeepSpeedEngineInference",
     GPT "training: {global_batch: 64, mode: inference}\n"
         "strategy: {data: 2, pipeline: 4, pipeline_engine: deepspeed}\n",
     "p.yaml:5:34: error: found pipeline_engine deepspeed with training.inference; expected a "
     "training step (DeepSpeed's TrainSchedule is what is modelled) or pipeline_engine megatron"},
    {"DeepSpeedEngine1F1B",
     GPT "training: {global_batch: 64}\n"
         "strategy: {data: 2, tensor: 2, pipeline: 4, zero: 1, pipeline_engine: deepspeed}\n",
     ""},
    {"InterleavedMicroBatchCount",
     GPT "training: {global_batch: 48, micro_batch: 2}\n"
         "strategy: {data: 2, pipeline: 8, schedule: interleaved, virtual_stages: 3}\n",
     "p.yaml:5:34: error: found 12 micro-batches per replica with schedule interleaved over "
     "pipeline 8; expected a multiple of 8"},
    {"InterleavedPasses",
     GPT "training: {global_batch: 64, micro_batch: 2}\n"
         "strategy: {data: 2, pipeline: 8, schedule: interleaved, virtual_stages: 3}\n",
     ""},
    {"VirtualStagesNeedInterleaved",
     GPT "training: {global_batch: 64}\nstrategy: {data: 4, pipeline: 4, virtual_stages: 2}\n",
     "p.yaml:5:34: error: found virtual_stages 2 with schedule 1f1b; expected schedule interleaved "
     "(virtual stages are the model chunks of interleaved 1F1B)"},
    {"InterleavedNeedsPipeline",
     GPT "training: {global_batch: 64}\nstrategy: {data: 16, schedule: interleaved}\n",
     "p.yaml:5:22: error: found schedule interleaved with pipeline 1; expected pipeline >= 2"},
    {"SequenceParallelNeedsTensor",
     GPT "training: {global_batch: 64}\nstrategy: {data: 16, sequence_parallel: true}\n",
     "p.yaml:5:22: error: found sequence_parallel with tensor 1; expected tensor >= 2 (sequence "
     "parallelism splits the activations a tensor-parallel group would replicate)"},
    {"ZeroStageOutOfRange", CPU4 MLP8 "strategy: {data: 4, zero: 4}\n",
     "p.yaml:4:21: error: found zero 4; expected a ZeRO stage: 0, 1, 2 or 3"},
    // ZeRO is planned for transformers (stages 1-3) and batch-sharded MLPs (1, 2).
    {"MlpZeroThreeUnsupported", CPU4 MLP8 "strategy: {data: 4, zero: 3}\n",
     "p.yaml:4:21: error: found zero 3 with an mlp model; expected zero 0, 1 or 2 under batch "
     "sharding (ZeRO-3 is planned for transformer models only)",
     ErrorKind::kUnsupported},
    {"MlpZeroUnderPmapUnsupported",
     CPU4 "model:\n  mlp: {batch: 4, widths: [16, 16]}\nstrategy: {data: 4, data_mode: pmap, "
          "zero: 1}\n",
     "p.yaml:4:38: error: found zero 1 with an mlp model; expected zero 0, 1 or 2 under batch "
     "sharding (ZeRO-3 is planned for transformer models only)",
     ErrorKind::kUnsupported},
    {"MlpZeroTwoPasses", CPU4 MLP8 "strategy: {data: 4, zero: 2}\n", ""},
    {"GraphZeroUnsupported", GRAPH4 "strategy: {zero: 1}\n",
     "p.yaml:9:12: error: found zero 1 with a graph model; expected zero 0 (ZeRO is planned for "
     "transformers and batch-sharded MLPs)",
     ErrorKind::kUnsupported},
    {"MlpDevicesMismatch", CPU4 MLP8 "strategy: {data: 2}\n",
     "p.yaml:4:1: error: found a plan for 2 devices (data 2 x tensor 1 x pipeline 1); expected the "
     "topology's 4 devices"},
    {"MlpWithoutStrategyRunsOnOneDevice", CPU4 MLP8, ""},
    {"MlpPipelineUnsupported", CPU4 MLP8 "strategy: {data: 2, pipeline: 2}\n",
     "p.yaml:4:21: error: found pipeline 2 with an mlp model; expected pipeline 1 (pipeline "
     "parallelism is supported for transformer models)",
     ErrorKind::kUnsupported},
    {"MlpTensorUnsupported", CPU4 MLP8 "strategy: {tensor: 4}\n",
     "p.yaml:4:12: error: found tensor 4 with an mlp model; expected tensor 1 (an MLP is lowered "
     "data-parallel only; for tensor parallelism use a transformer or a graph with a mesh)",
     ErrorKind::kUnsupported},
    {"GlobalBatchDisagreesWithMlp", CPU4 MLP8 "training: {global_batch: 16}\nstrategy: {data: 4}\n",
     "p.yaml:4:12: error: found global_batch 16 with model.mlp.batch 8; expected one batch size "
     "(give it once)"},
    {"PmapLeadingAxisTooLarge", CPU4 MLP8 "strategy: {data: 4, data_mode: pmap}\n",
     "p.yaml:3:9: error: found (8, 16) under pmap over 4 devices; expected a leading axis of 4 "
     "(pmap maps device i to x[i]): reshape to (4, 2, 16) or use data_mode: batch"},
    {"PmapLeadingAxisTooSmall",
     CPU4 "model:\n  mlp: {batch: 2, widths: [16, 16]}\nstrategy: {data: 4, data_mode: pmap}\n",
     "p.yaml:3:9: error: found (2, 16) under pmap over 4 devices; expected a leading axis of 4 "
     "(pmap maps device i to x[i]): use data: 2"},
    {"PmapLeadingAxisEqualPasses",
     CPU4 "model:\n  mlp: {batch: 4, widths: [16, 16]}\nstrategy: {data: 4, data_mode: pmap}\n",
     ""},
    {"PlacementUsesASubsetOfDevices", GRAPH4 "placement: {mm1: 0, act: 0, mm2: 1}\n", ""},
    {"PlacementNamesMissingOp", GRAPH4 "placement: {mm1: 0, mm3: 1}\n",
     "p.yaml:9:21: error: found op 'mm3' in placement; expected an op of the graph (did you mean "
     "'mm1'?)"},
    // Faults come in the order they are written, not in name order.
    {"PlacementFaultsInFileOrder", GRAPH4 "placement: {zz: 0, mm1: 0, aa: 1}\n",
     "p.yaml:9:13: error: found op 'zz' in placement; expected an op of the graph"},
    {"DevicePutFaultsInFileOrder", GRAPH4 "device_put: {x9: 0, w1: 0, a9: 1}\n",
     "p.yaml:9:14: error: found tensor 'x9' in device_put; expected a tensor of the graph (did you "
     "mean 'x'?)"},
    {"DevicePutNamesMissingTensor", GRAPH4 "device_put: {w3: 1}\n",
     "p.yaml:9:14: error: found tensor 'w3' in device_put; expected a tensor of the graph (did you "
     "mean 'w1'?)"},
    {"PlacementWithMlp", CPU4 MLP8 "placement: {mm1: 0}\n",
     "p.yaml:4:1: error: found 'placement' with an mlp model; expected a graph model (placement "
     "names its ops)"},
    {"MeshWithMlp", CPU4 MLP8 "mesh: {shape: [4], axes: [data]}\n",
     "p.yaml:4:1: error: found 'mesh' with an mlp model; expected a graph model (shardings name "
     "its "
     "tensors)"},
    {"GraphWithStrategyDegrees", GRAPH4 "strategy: {data: 4}\n",
     "p.yaml:9:1: error: found strategy degrees data 4 x tensor 1 x pipeline 1 with a graph model; "
     "expected a placement or a mesh with shardings to distribute a graph",
     ErrorKind::kUnsupported},
    {"MeshPasses", GRAPH4 MESH22 "shardings: {x: [data, null], w1: [null, model], w2: [model]}\n",
     ""},
    {"MeshShapeProductMismatch", GRAPH4 "mesh: {shape: [2, 4], axes: [data, model]}\n",
     "p.yaml:9:8: error: found mesh shape [2, 4] = 8 devices; expected the topology's 4 devices"},
    {"ShardingUnknownAxis", GRAPH4 MESH22 "shardings: {w1: [null, modle]}\n",
     "p.yaml:10:13: error: found mesh axis 'modle' in the sharding of 'w1'; expected one of data, "
     "model or null (did you mean 'model'?)"},
    {"ShardingAxisTwice", GRAPH4 MESH22 "shardings: {w1: [model, model]}\n",
     "p.yaml:10:13: error: found mesh axis 'model' twice in the sharding of 'w1'; expected each "
     "axis at most once"},
    {"ShardingLongerThanRank", GRAPH4 MESH22 "shardings: {x: [data, null, null]}\n",
     "p.yaml:10:13: error: found 3 entries in the sharding of 'x'; expected at most 2 (the rank of "
     "x [8, 512])"},
    {"ShardingOfMissingTensor", GRAPH4 MESH22 "shardings: {w3: [null, model]}\n",
     "p.yaml:10:13: error: found shardings for tensor 'w3'; expected a tensor of the graph (did "
     "you mean 'w1'?)"},
    {"ShardingsWithoutMesh", GRAPH4 "shardings: {x: [null, null]}\n",
     "p.yaml:9:1: error: found 'shardings' without a 'mesh'; expected a mesh naming the axes, such "
     "as {shape: [2, 4], axes: [data, model]}"},
    {"ShardedDimensionNotDivisible",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [6, 512, f32], w: [512, 512, f32]}\n"
     "    ops: [{name: mm, op: matmul, in: [x, w], out: y}]\n"
     "mesh: {shape: [4], axes: [data]}\n"
     "shardings: {x: [data, null]}\n",
     "p.yaml:7:13: error: found dimension 0 of 'x' (size 6) sharded over 'data' (size 4); expected "
     "a size divisible by 4"},
    {"HalvingDoublingNeedsPowerOfTwo",
     "topology: {preset: cpu-host, devices: 6}\n"
     "model: {collective: {kind: allreduce, bytes: 1MB, algorithm: halving-doubling}}\n",
     "p.yaml:2:51: error: found halving-doubling over 6 devices; expected a power-of-two group "
     "(recursive halving pairs ranks at distance N/2, N/4, ..., 1)"},
    {"CollectiveWithStrategyDegrees",
     "topology: {preset: dgx-a100}\n"
     "model: {collective: {kind: allreduce, bytes: 1MB}}\n"
     "strategy: {data: 8}\n",
     "p.yaml:3:1: error: found strategy degrees data 8 x tensor 1 x pipeline 1 with a collective "
     "model; expected none (the collective's group names its devices)",
     ErrorKind::kUnsupported},
};

INSTANTIATE_TEST_SUITE_P(Plan, PlanCheck, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<PlanCase>& i) { return i.param.name; });

}  // namespace
}  // namespace brigade
