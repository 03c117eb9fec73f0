// Every parse-time error message, asserted exactly (issue 2: "every error
// message above asserted exactly"). One row: a scenario text and the one line
// it must produce. Positions are 1-based LINE:COL of the offending key or
// value.
#include <gtest/gtest.h>

#include <string>

#include "core/scenario.hpp"

namespace brigade {
namespace {

struct ErrorCase {
  const char* name;
  const char* text;
  const char* expected;
};

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

class ScenarioError : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(ScenarioError, ExactMessage) {
  const ErrorCase& c = GetParam();
  Result<Scenario> r = parse_scenario(c.text, "t.yaml");
  ASSERT_FALSE(r.is_ok()) << "parsed without error:\n" << c.text;
  EXPECT_EQ(r.message(), c.expected) << c.text;
  EXPECT_EQ(r.message().find('\n'), std::string::npos) << "one line";
}

const ErrorCase kCases[] = {
    // Malformed YAML: yaml-cpp's message inside "found ...", its mark made 1-based.
    {"MalformedYaml", "name: [a, b\ntopology: {preset: cpu-host}\n",
     "t.yaml:2:9: error: found malformed YAML (end of sequence flow not found); expected a "
     "well-formed YAML or JSON scenario"},
    {"MalformedIndentation", "topology:\n  preset: cpu-host\n bad: 1\n",
     "t.yaml:3:2: error: found malformed YAML (end of map not found); expected a well-formed "
     "YAML or JSON scenario"},
    // A fuzz find: at the text's end yaml-cpp reads its end-of-stream byte
    // 0x04 and reported "t.yaml:1:4: ... (unknown escape character: \x04)"
    // for the two bytes `"\`, a column past the text and a byte not in it.
    {"EscapeAtTheEndOfTheText", "\"\\",
     "t.yaml:1:3: error: found malformed YAML (the text ends inside an escape sequence); "
     "expected a well-formed YAML or JSON scenario"},
    // An empty value is reported at its key.
    {"EmptyStrategyValue",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy:\n",
     "t.yaml:4:1: error: found nothing; expected a strategy such as {data: 8, tensor: 8, "
     "pipeline: 1}"},
    // Messages stay on one line: line breaks escaped, long text cut at 60 characters.
    {"NameWithLineBreak",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [4, f32]}\n"
     "    ops: [{name: \"a\\nb\", op: relu, in: x, out: y}]\n",
     "t.yaml:5:18: error: found 'a\\nb'; expected a name on one line"},
    {"LongValueIsCut",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {data: "
     "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz}\n",
     "t.yaml:4:18: error: found 'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefgh...'; "
     "expected an integer from 1 to 65536"},
    {"UnknownTopLevelKey",
     "topology: {preset: cpu-host, devices: 4}\n"
     "stratgy: {data: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:2:1: error: found key 'stratgy'; expected one of name, description, topology, "
     "profile, model, training, strategy, placement, device_put, mesh, shardings, simulation, "
     "runtime, lesson, published (did you mean 'strategy'?)"},
    {"UnknownStrategyKey",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {dta: 4}\n",
     "t.yaml:4:12: error: found key 'dta'; expected one of data, tensor, pipeline, "
     "expert, context, sequence_parallel, schedule, virtual_stages, zero, zero3_prefetch, "
     "data_mode, "
     "rank_order, bucket, overlap, overlap_param_gather, algorithm, pipeline_engine, "
     "pipeline_scatter_gather, pipeline_blocking_sends, embedding_in_pipeline_split, "
     "loss_in_pipeline_split (did you mean 'data'?)"},
    {"WrongTypeInteger",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {data: abc}\n",
     "t.yaml:4:18: error: found 'abc'; expected an integer from 1 to 65536"},
    {"ZeroDegree",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {data: 0}\n",
     "t.yaml:4:18: error: found '0'; expected an integer from 1 to 65536"},
    {"DuplicateKey",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {data: 4, data: 2}\n",
     "t.yaml:4:21: error: found key 'data' a second time; expected each key once"},
    {"UnknownPreset",
     "topology: {preset: dgx-a1000}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:1:20: error: found preset 'dgx-a1000'; expected one of cpu-host, dgx-a100, dgx-h100, "
     "dgx-h200, h200x1, pcie-4gpu (did you mean 'dgx-a100'?)"},
    {"PresetDeviceCount",
     "topology: {preset: dgx-a100, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:1:39: error: found devices 4 for preset 'dgx-a100'; expected 8 (the preset's devices "
     "per node) or use nodes"},
    {"ZeroNodes",
     "topology: {preset: dgx-a100, nodes: 0}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:1:37: error: found '0'; expected an integer >= 1"},
    {"NegativeFabricBandwidth",
     "topology: {preset: dgx-a100, nodes: 2, fabric: {bandwidth: -5GB/s}}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:1:60: error: found '-5GB/s'; expected a positive bandwidth such as 25GB/s, 200Gbps or "
     "1e9 (bytes per second)"},
    {"NegativeFabricLatency",
     "topology: {preset: dgx-a100, nodes: 2, fabric: {latency: -1us}}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:1:58: error: found '-1us'; expected a non-negative duration such as 5us, 2ms or 0.001 "
     "(seconds)"},
    {"FabricWithOneNode",
     "topology: {preset: dgx-a100, fabric: {bandwidth: 25GB/s}}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:1:30: error: found 'fabric' for a single node; expected nodes >= 2 (the fabric joins "
     "nodes)"},
    {"UnknownFabricClass",
     "topology: {preset: dgx-a100, nodes: 2, fabric: {class: infiniband2}}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:1:56: error: found 'infiniband2'; expected a link class: one of nvlink, pcie, "
     "infiniband, ethernet, shm (did you mean 'infiniband'?)"},
    {"TopologyNotAMap",
     "topology: dgx-a100\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:1:11: error: found 'dgx-a100'; expected a topology: {preset: dgx-a100} or {devices: "
     "[...], switches: [...], links: [...]}"},
    {"ZeroDeviceMemory",
     "topology:\n"
     "  devices:\n"
     "    - {memory: 0GiB, memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:3:16: error: found '0GiB'; expected a positive size such as 80GiB, 1.5GB or 4096 "
     "(bytes)"},
    {"ZeroLinkBandwidth",
     "topology:\n"
     "  devices: [{memory: 1GiB, memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}}, {memory: 1GiB, "
     "memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}}]\n"
     "  links:\n"
     "    - {between: [0, 1], bandwidth: 0, latency: 1us}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:4:36: error: found '0'; expected a positive bandwidth such as 25GB/s, 200Gbps or 1e9 "
     "(bytes per second)"},
    {"NegativeLinkLatency",
     "topology:\n"
     "  devices: [{memory: 1GiB, memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}}, {memory: 1GiB, "
     "memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}}]\n"
     "  links:\n"
     "    - {between: [0, 1], bandwidth: 1GB/s, latency: -1us}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:4:52: error: found '-1us'; expected a non-negative duration such as 5us, 2ms or 0.001 "
     "(seconds)"},
    {"UnknownLinkEnd",
     "topology:\n"
     "  devices: [{memory: 1GiB, memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}}, {memory: 1GiB, "
     "memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}}]\n"
     "  switches: [{name: sw0}]\n"
     "  links:\n"
     "    - {between: [gpu0, sw1], bandwidth: 1GB/s, latency: 1us}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:5:24: error: found 'sw1'; expected a device or switch name such as gpu0 (did you mean "
     "'sw0'?)"},
    {"DisconnectedTopology",
     "topology:\n"
     "  devices: [{memory: 1GiB, memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}}, {memory: 1GiB, "
     "memory_bandwidth: 1TB/s, flops: {f32: 1TFLOPS}}]\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:1:1: error: topology: device 'gpu1' cannot reach device 'gpu0'; expected a connected "
     "topology"},
    {"UnknownFlopsDtype",
     "topology:\n"
     "  devices:\n"
     "    - {memory: 1GiB, memory_bandwidth: 1TB/s, flops: {bf1: 1TFLOPS}}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:3:55: error: found 'bf1'; expected a dtype: one of f64, f32, tf32, f16, bf16, fp8, "
     "i32, i8 (did you mean 'bf16'?)"},
    {"MissingModel", "topology: {preset: cpu-host, devices: 4}\n",
     "t.yaml:1:1: error: found no 'model' key; expected a model: one of mlp, transformer, "
     "huggingface, "
     "graph or collective"},
    {"EmptyModel",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model: {}\n",
     "t.yaml:2:8: error: found an empty model; expected a model: one of mlp, transformer, "
     "huggingface, "
     "graph or collective"},
    {"TwoModelKinds",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "  transformer: {layers: 1}\n",
     "t.yaml:4:3: error: found both 'mlp' and 'transformer' in 'model'; expected exactly one of "
     "mlp, transformer, huggingface, graph or collective"},
    {"MissingTopology",
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n",
     "t.yaml:1:1: error: found no 'topology' key; expected a topology: {preset: dgx-a100} or "
     "{devices: [...], links: [...]}"},
    {"EmptyDocument", "",
     "t.yaml:1:1: error: found an empty document; expected a scenario: a map with at least "
     "topology and model"},
    {"RootIsAList",
     "- a\n"
     "- b\n",
     "t.yaml:1:1: error: found a list; expected a scenario: a map with at least topology and "
     "model"},
    {"WidthsNotAList",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: 16}\n",
     "t.yaml:3:27: error: found '16'; expected the layer widths [in, hidden..., out]"},
    {"OneWidth",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16]}\n",
     "t.yaml:3:27: error: found 1 width; expected at least 2 widths [in, out]"},
    {"BoolNotBool",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16], bias: yes}\n",
     "t.yaml:3:43: error: found 'yes'; expected true or false"},
    {"UnknownActivation",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16], activation: relu6}\n",
     "t.yaml:3:49: error: found 'relu6'; expected one of relu, gelu, none (did you mean 'relu'?)"},
    {"UnknownSchedule",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {schedule: 1f2b}\n",
     "t.yaml:4:22: error: found '1f2b'; expected one of gpipe, 1f1b, interleaved (did you mean "
     "'1f1b'?)"},
    {"UnknownZero3Prefetch",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {zero: 3, zero3_prefetch: fsdp}\n",
     "t.yaml:4:37: error: found 'fsdp'; expected one of per_pass, per_micro_batch, across_passes"},
    // Megatron-LM's --overlap-param-gather needs --overlap-grad-reduce
    // (megatron/training/arguments.py).
    {"OverlapParamGatherWithoutOverlap",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {data: 4, zero: 1, overlap: false, overlap_param_gather: true}\n",
     "t.yaml:4:68: error: found overlap_param_gather: true with overlap: false; expected "
     "overlap: true with overlap_param_gather (Megatron-LM's --overlap-param-gather needs "
     "--overlap-grad-reduce)"},
    {"UnknownPipelineEngine",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {pipeline: 2, pipeline_engine: deepseed}\n",
     "t.yaml:4:42: error: found 'deepseed'; expected one of megatron, deepspeed (did you mean "
     "'deepspeed'?)"},
    {"UnknownAlgorithm",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {algorithm: rign}\n",
     "t.yaml:4:23: error: found 'rign'; expected one of auto, ring, tree, nvls, halving-doubling, "
     "hierarchical (did you mean 'ring'?)"},
    {"RankOrderTwice",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {rank_order: [data, data, tensor]}\n",
     "t.yaml:4:31: error: found 'data' twice in rank_order; expected a permutation of tensor, "
     "data, pipeline (innermost first), context optional"},
    {"RankOrderContextWithTwoOthers",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {rank_order: [tensor, context, data]}\n",
     "t.yaml:4:24: error: found 3 entries in rank_order; expected a permutation of tensor, "
     "data, pipeline (innermost first), context optional"},
    {"NegativeBucket",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "strategy: {bucket: -25MB}\n",
     "t.yaml:4:20: error: found '-25MB'; expected a positive size such as 80GiB, 1.5GB or 4096 "
     "(bytes)"},
    {"TransformerMissingHeads",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  transformer: {layers: 2, hidden: 64, seq: 16, vocab: 100}\n",
     "t.yaml:3:16: error: found no 'heads' in 'model.transformer'; expected the number of "
     "attention heads"},
    {"TrainingMode",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "training: {mode: serving}\n",
     "t.yaml:4:18: error: found 'serving'; expected one of training, inference"},
    {"UnknownOptimizer",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "training: {optimizer: adamw}\n",
     "t.yaml:4:23: error: found 'adamw'; expected one of adam, sgd, none (did you mean 'adam'?)"},
    {"UnknownRecompute",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "training: {recompute: some}\n",
     "t.yaml:4:23: error: found 'some'; expected one of none, selective, full, op (did you mean "
     "'none'?)"},
    {"PlacementDeviceOutOfRange",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32]}\n"
     "    ops:\n"
     "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n"
     "placement: {mm1: 7}\n",
     "t.yaml:7:18: error: found device '7'; expected a device index from 0 to 3 or a device name "
     "such as gpu0"},
    {"DevicePutUnknownDeviceName",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32]}\n"
     "    ops:\n"
     "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n"
     "device_put: {x: gpuu1}\n",
     "t.yaml:7:17: error: found device 'gpuu1'; expected a device index from 0 to 3 or a device "
     "name such as gpu0 (did you mean 'gpu1'?)"},
    {"SpeedDeviceOutOfRange",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "simulation: {speed: {4: 0.5}}\n",
     "t.yaml:4:22: error: found device '4'; expected a device index from 0 to 3 or a device name "
     "such as cpu0"},
    {"SpeedNotPositive",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "simulation: {speed: {1: 0}}\n",
     "t.yaml:4:25: error: found '0'; expected a speed factor from 1e-6 to 1e6"},
    {"UnknownNetwork",
     "topology: {preset: cpu-host, devices: 4}\n"
     "model:\n"
     "  mlp: {batch: 8, widths: [16, 16]}\n"
     "simulation: {network: fluid}\n",
     "t.yaml:4:23: error: found 'fluid'; expected one of flow, ideal"},
    {"GroupDeviceOutOfRange",
     "topology: {preset: dgx-a100}\n"
     "model: {collective: {kind: allreduce, bytes: 1MB, group: [0, 8]}}\n",
     "t.yaml:2:62: error: found device '8'; expected a device index from 0 to 7 or a device name "
     "such as gpu0"},
    {"GroupDeviceTwice",
     "topology: {preset: dgx-a100}\n"
     "model: {collective: {kind: allreduce, bytes: 1MB, group: [0, gpu0]}}\n",
     "t.yaml:2:62: error: found device 'gpu0' twice in the group; expected each device once"},
    {"UnknownCollectiveKind",
     "topology: {preset: dgx-a100}\n"
     "model: {collective: {kind: allreduse, bytes: 1MB}}\n",
     "t.yaml:2:28: error: found 'allreduse'; expected one of allreduce, allgather, reducescatter, "
     "broadcast, reduce, alltoall (did you mean 'allreduce'?)"},
    {"CollectiveZeroBytes",
     "topology: {preset: dgx-a100}\n"
     "model: {collective: {kind: allreduce, bytes: 0}}\n",
     "t.yaml:2:46: error: found '0'; expected a positive size such as 80GiB, 1.5GB or 4096 "
     "(bytes)"},
    {"MeshAxesCount",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32]}\n"
     "    ops:\n"
     "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n"
     "mesh: {shape: [2, 2], axes: [data]}\n",
     "t.yaml:7:29: error: found 1 axes for a mesh of 2 dimensions; expected one axis name per "
     "dimension"},
    {"MeshAxisTwice",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32]}\n"
     "    ops:\n"
     "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n"
     "mesh: {shape: [2, 2], axes: [data, data]}\n",
     "t.yaml:7:36: error: found axis 'data' twice in the mesh; expected unique axis names"},
    {"ShardingNotAList",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32]}\n"
     "    ops:\n"
     "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n"
     "mesh: {shape: [4], axes: [model]}\n"
     "shardings: {x: model}\n",
     "t.yaml:8:16: error: found 'model'; expected a PartitionSpec: a list with a mesh axis name or "
     "null per dimension"},
    {"UnknownInputTensor",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32]}\n"
     "    ops:\n"
     "      - {name: mm1, op: matmul, in: [x, w11], out: h}\n",
     "t.yaml:6:41: error: found tensor 'w11' as an input of op 'mm1'; expected a declared tensor "
     "or an op's output (did you mean 'w1'?)"},
    {"UnknownOpKind",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32]}\n"
     "    ops:\n"
     "      - {name: mm1, op: matmull, in: [x, w1], out: h}\n",
     "t.yaml:6:25: error: found op 'matmull'; expected one of matmul, elementwise, relu, gelu, "
     "tanh, sigmoid, silu, exp, add, sub, mul, div, softmax, layernorm, embedding, loss, mse, "
     "cross_entropy, custom (did you mean 'matmul'?)"},
    {"ElementwiseWithoutFn",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32]}\n"
     "    ops:\n"
     "      - {name: e, op: elementwise, in: [x], out: y}\n",
     "t.yaml:6:19: error: found op 'elementwise' without 'fn'; expected fn: the function, such as "
     "relu or mse"},
    {"FnWithMatmul",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32]}\n"
     "    ops:\n"
     "      - {name: mm1, op: matmul, in: [x, w1], out: h, fn: relu}\n",
     "t.yaml:6:54: error: found 'fn' with op 'matmul'; expected fn only with op elementwise or "
     "loss"},
    {"DuplicateOpName",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32]}\n"
     "    ops:\n"
     "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n"
     "      - {name: mm1, op: relu, in: [h], out: a}\n",
     "t.yaml:7:16: error: found op name 'mm1' a second time; expected unique op names"},
    {"TensorProducedTwice",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w1: [512, 2048, f32]}\n"
     "    ops:\n"
     "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n"
     "      - {name: act, op: relu, in: [x], out: h}\n",
     "t.yaml:7:45: error: found tensor 'h' as an output of op 'act'; expected each tensor to be "
     "produced by one op (op 'mm1' produces it)"},
    {"ParameterAsOutput",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f32], w: {shape: [8, 512], param: true}}\n"
     "    ops:\n"
     "      - {name: e, op: relu, in: [x], out: w}\n",
     "t.yaml:6:43: error: found parameter 'w' as an output of op 'e'; expected parameters to be "
     "graph inputs"},
    {"BadTensorShape",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 0, f32]}\n"
     "    ops:\n"
     "      - {name: e, op: relu, in: [x], out: y}\n",
     "t.yaml:4:22: error: found '0'; expected an integer >= 1"},
    {"UnknownTensorDtype",
     "topology: {preset: pcie-4gpu}\n"
     "model:\n"
     "  graph:\n"
     "    tensors: {x: [8, 512, f3]}\n"
     "    ops:\n"
     "      - {name: e, op: relu, in: [x], out: y}\n",
     "t.yaml:4:27: error: found 'f3'; expected a dtype: one of f64, f32, tf32, f16, bf16, fp8, "
     "i32, i8 (did you mean 'f32'?)"},
};

INSTANTIATE_TEST_SUITE_P(Scenario, ScenarioError, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<ErrorCase>& i) { return i.param.name; });

}  // namespace
}  // namespace brigade
