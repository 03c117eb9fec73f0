// The two judges of one plan, held to each other (issue 18): every bundled
// scenario (scenarios/*.yaml, scenarios/validation/**, scenarios/experiments/**;
// of scenarios/published/ the three small ones, below)
// and a generated family of small plans, one or more per model kind and
// strategy key, go through the closed form (`brigade cost`) and the planner's
// Program through the simulator under `--network ideal` (`brigade simulate
// --network ideal`). Per quantity:
//  - step time: within kStepTolerance, or the tolerance of a modelling
//    difference the closed form names for that plan (cost::judge_differences,
//    docs/costmodel.md "The closed form against the simulator"; the CLI
//    prints each as a note);
//  - communication: the same calls per kind (exactly) on the device the
//    closed form reports, and their time in flight within kCommTolerance;
//  - peak memory: the largest device peak within kMemoryTolerance, or a
//    named difference's.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/costmodel/plan_toy.hpp"
#include "tests/planner/two_judges.hpp"

namespace brigade::planner {
namespace {

struct Case {
  std::string name;
  std::string yaml;  // empty: `path` is a scenario file
  std::string path;
  // kAuto as `brigade simulate`; a small plan forced to fused tasks is held
  // to the peak memory alone (testing::expect_agreement, memory_only).
  Granularity granularity = Granularity::kAuto;
  // Forced fused tasks held to the step, the communication and the peak
  // memory, as the plans `auto` fuses: GEMMs as large as theirs (a 175B
  // model's width), so the fused-task bound applies. (Until 2026-12-06 the
  // communication was left out: a step's merged tensor-parallel calls paid
  // one alpha for all, and the 184 calls of a device that merge into 40
  // saved 2.68 ms of 12.8 ms, 21%; now each merged collective is timed as
  // the calls it stands for, Collective::parts.)
  bool fused_whole = false;
};

const std::string kPublishedHere[] = {
    "published/narayanan21_01_gpt_1.7b_32gpu.yaml",
    "published/narayanan21_02_gpt_3.6b_64gpu.yaml",
    "published/nemo2412_03_gpt3_175b_128gpu.yaml",
};

std::vector<Case> bundled() {
  std::vector<Case> out;
  const std::string root = std::string(BRIGADE_SOURCE_DIR) + "/scenarios";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".yaml") continue;
    const std::string rel = std::filesystem::relative(entry.path(), root).string();
    if (rel.rfind("profiles/", 0) == 0) continue;  // hardware profiles, not plans
    // Published end-to-end rows (docs/FIDELITY.md): clusters of up to 3360
    // GPUs, 3-24 s and up to 6 GB each under the simulator (all 29: 106 s on
    // the 2-core VM), too much for the suite; the two judges are compared on
    // them by `scripts/fidelity --judge sim` instead.
    // The small ones run here (under 2 s each): they once disagreed (issue
    // 18; the shrunk plans of the family below hold the causes).
    if (rel.rfind("published/", 0) == 0 &&
        std::find(std::begin(kPublishedHere), std::end(kPublishedHere), rel) ==
            std::end(kPublishedHere))
      continue;
    // Llama 3 405B on 16,384 GPUs: 5.9 M tasks whose data-parallel rings of
    // 128 ranks over 128 nodes the simulator expands step by step, minutes
    // and more than 8 GiB on the development VM (its speed goal is not met:
    // docs/PERFORMANCE.md); bench/sim_bench's Scenario/llama3_405b_16384
    // runs it. Its closed form runs in tests/cli/models_test.cpp.
    if (rel == "llama3_405b_16384gpu.yaml") continue;
    std::string name = rel.substr(0, rel.size() - 5);
    std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
    out.push_back({name, "", entry.path().string()});
  }
  std::sort(out.begin(), out.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  return out;
}

// A small GPT on one DGX A100 (8 GPUs) with `strategy` and `training` extras.
std::string gpt(const std::string& strategy, const std::string& training = "",
                int layers = 4, const std::string& extra = "", int micro_batch = 2) {
  return "topology: {preset: dgx-a100}\n"
         "model:\n"
         "  transformer: {layers: " + std::to_string(layers) +
         ", hidden: 512, heads: 8, seq: 256, vocab: 4096}\n"
         "training: {global_batch: 32, micro_batch: " + std::to_string(micro_batch) + (training.empty() ? "" : ", " + training) + "}\n"
         "strategy: {" + strategy + "}\n" + extra;
}

// The same small transformer with variant keys (issue 21).
std::string variant(const std::string& keys, const std::string& strategy,
                    const std::string& training = "") {
  return "topology: {preset: dgx-a100}\n"
         "model:\n"
         "  transformer: {layers: 4, hidden: 512, heads: 8, seq: 256, vocab: 4096, " + keys + "}\n"
         "training: {global_batch: 32, micro_batch: 2" + (training.empty() ? "" : ", " + training) + "}\n"
         "strategy: {" + strategy + "}\n";
}

std::string mlp(const std::string& strategy, const std::string& training = "mode: training",
                const std::string& extra = "") {
  return "topology: {preset: dgx-a100}\n"
         "model:\n"
         "  mlp: {batch: 64, widths: [1024, 4096, 4096, 1024], dtype: bf16}\n"
         "training: {" + training + "}\n"
         "strategy: {" + strategy + "}\n" + extra;
}

const char* kGraph =
    "topology: {preset: pcie-4gpu}\n"
    "model:\n"
    "  graph:\n"
    "    tensors: {x: [64, 1024, f32], w1: [1024, 4096, f32], w2: [4096, 1024, f32], t: [64, 1024, f32]}\n"
    "    ops:\n"
    "      - {name: mm1, op: matmul, in: [x, w1], out: h}\n"
    "      - {name: act, op: gelu, in: [h], out: a}\n"
    "      - {name: mm2, op: matmul, in: [a, w2], out: y}\n"
    "      - {name: loss, op: mse, in: [y, t], out: l}\n";

std::string graph(const std::string& rest) { return std::string(kGraph) + rest; }

std::string collective(const std::string& spec) {
  return "topology: {preset: dgx-a100}\nmodel:\n  collective: {" + spec + "}\n";
}

std::vector<Case> family() {
  return {
      // transformer: each strategy key
      {"gpt_data", gpt("data: 8")},
      {"gpt_tensor", gpt("tensor: 8")},
      {"gpt_pipeline", gpt("pipeline: 4, data: 2")},
      {"gpt_tensor_pipeline_data", gpt("tensor: 2, pipeline: 2, data: 2")},
      {"gpt_sequence_parallel", gpt("tensor: 4, data: 2, sequence_parallel: true")},
      {"gpt_zero1", gpt("data: 8, zero: 1")},
      {"gpt_zero2", gpt("data: 8, zero: 2")},
      {"gpt_zero3", gpt("data: 8, zero: 3")},
      // strategy.zero3_prefetch's modes (both judges read it: DeepSpeed's,
      // the execution-order prefetch), and per_pass over interleaved chunks
      // (a cold start each chunk step, v per micro-batch in the closed form).
      {"gpt_zero3_per_micro_batch", gpt("data: 8, zero: 3, zero3_prefetch: per_micro_batch")},
      {"gpt_zero3_across_passes", gpt("data: 8, zero: 3, zero3_prefetch: across_passes")},
      {"gpt_zero3_interleaved",
       gpt("pipeline: 2, data: 4, zero: 3, schedule: interleaved, virtual_stages: 2")},
      {"gpt_zero3_interleaved_across",
       gpt("pipeline: 2, data: 4, zero: 3, schedule: interleaved, virtual_stages: 2, "
           "zero3_prefetch: across_passes")},
      {"gpt_schedule_gpipe", gpt("pipeline: 4, data: 2, schedule: gpipe")},
      // strategy.pipeline_engine deepspeed: blocking sends of 1/tensor parts
      // and the AllGathers that rebuild them (a named difference: the fill
      // and drain).
      {"gpt_pipeline_deepspeed", gpt("pipeline: 4, data: 2, pipeline_engine: deepspeed")},
      {"gpt_tensor_pipeline_deepspeed",
       gpt("tensor: 2, pipeline: 4, pipeline_engine: deepspeed", "recompute: full")},
      {"gpt_schedule_interleaved",
       gpt("pipeline: 2, data: 4, schedule: interleaved, virtual_stages: 2")},
      {"gpt_recompute_selective", gpt("tensor: 2, data: 4", "recompute: selective")},
      {"gpt_recompute_full", gpt("tensor: 2, data: 4", "recompute: full")},
      {"gpt_micro_batch", gpt("data: 8", "", 4, "", 4)},
      {"gpt_bucket", gpt("data: 8, bucket: 4MB")},
      {"gpt_no_overlap", gpt("data: 8, overlap: false")},
      {"gpt_speed", gpt("data: 8", "", 4, "simulation: {speed: {5: 0.5}}\n")},
      {"gpt_inference", gpt("tensor: 2, pipeline: 2, data: 2", "mode: inference")},
      // simulation.host_op_time (the host lane): host-bound (100 us an
      // operation against kernels of a few us), in a pipeline, and
      // device-bound (2 us).
      {"gpt_host_bound", gpt("data: 8", "", 4, "simulation: {host_op_time: 100us}\n")},
      {"gpt_host_pipeline",
       gpt("pipeline: 4, data: 2", "", 4, "simulation: {host_op_time: 100us}\n")},
      {"gpt_host_device_bound",
       gpt("tensor: 2, data: 4", "", 4, "simulation: {host_op_time: 2us}\n")},
      // Device-bound over a pipeline: the closed form walks the order, as
      // without a host, and adds the first issue.
      {"gpt_host_device_bound_pipeline",
       gpt("pipeline: 4, data: 2", "", 4, "simulation: {host_op_time: 1ns}\n")},
      {"gpt_host_device_bound_interleaved",
       gpt("pipeline: 2, data: 4, schedule: interleaved, virtual_stages: 2", "", 4,
           "simulation: {host_op_time: 1ns}\n")},
      // ZeRO-3's gathers and reduce-scatters are issued too; an interleaved
      // pipeline's chunks each send.
      {"gpt_host_zero3", gpt("data: 8, zero: 3", "", 4, "simulation: {host_op_time: 15us}\n")},
      {"gpt_host_interleaved", gpt("pipeline: 2, data: 4, schedule: interleaved, virtual_stages: 2",
                                   "", 4, "simulation: {host_op_time: 15us}\n")},
      // simulation.devices_per_host: one host issuing for several devices
      // (a node's process; the closed form sums its devices' operations).
      {"gpt_host_shared",
       gpt("data: 8", "", 4, "simulation: {host_op_time: 20us, devices_per_host: 8}\n")},
      {"gpt_host_shared_tensor",
       gpt("tensor: 2, data: 4", "", 4, "simulation: {host_op_time: 5us, devices_per_host: 2}\n")},
      {"gpt_host_shared_pipeline", gpt("pipeline: 4, data: 2", "", 4,
                                       "simulation: {host_op_time: 20us, devices_per_host: 4}\n")},
      // A step's activations (fused tasks: one buffer per step) and a block's
      // (kernel tasks) were freed with the task after their last use when that
      // use was a collective or a flush (ZeRO-3's reduce-scatter, the tied
      // embedding, a gradient bucket): the next micro-batch's forward, or the
      // next block's recomputation, allocated beside them. gpt3_175b_1024's
      // searched winner (tensor 4, data 256, ZeRO-3, micro-batch 3) peaked at
      // 121 GiB in the simulator against 63.9 GiB; these peaked 40%, 63% and
      // 10% above the closed form (issue 18).
      {"gpt_zero3_sp_region", gpt("tensor: 2, data: 4, zero: 3, sequence_parallel: true"), "",
       Granularity::kRegion},
      {"gpt_zero3_step", gpt("tensor: 2, data: 4, zero: 3", "", 4, "", 4), "", Granularity::kStep},
      {"gpt_sp_full_recompute_pipeline",
       gpt("tensor: 2, pipeline: 2, data: 2, sequence_parallel: true, zero: 1", "recompute: full",
           4, "", 4)},
      // NCCL's choice of its tree (AllReduce of 256 KiB to 16 MiB across DGX
      // A100 nodes: these 4 MB gradient buckets over 2 nodes) ran as the
      // double binary tree in the simulator, its two halves at once each at
      // NCCL's whole tree bandwidth: a step of 1.876 ms simulated against
      // the closed form's 1.940 ms (communication 0.638 ms against 0.857 ms);
      // narayanan21_01's last, 9 MiB bucket, 64 us of 2.6 s (issue 18).
      {"gpt_data_nccl_tree",
       "topology: {preset: dgx-a100, nodes: 2}\nmodel:\n  transformer: {layers: 4, hidden: 512, "
       "heads: 8, seq: 256, vocab: 4096}\ntraining: {global_batch: 32, micro_batch: 2}\n"
       "strategy: {data: 16, bucket: 4MB}\n"},
      // nemo2412_03 (GPT-3 175B on 128 H100, fp8, sequence parallelism,
      // interleaved) at the step granularity `auto` gives it: fused tasks
      // once dropped per-kernel launches, per-GEMM efficiency and per-call
      // alphas that fp8 does not shrink, 7.5% of its step (issue 18).
      // Shrunk: four layers of its width on one DGX H100, tensor 4 x
      // pipeline 2, 8 micro-batches: 7.0% then, 1.17% (bf16 0.90%) with
      // the merged calls' alphas paid once, 0.04% (bf16 0.03%) since each
      // is paid (2026-12-06).
      {"gpt175b_width_fp8_sp_step",
       "topology: {preset: dgx-h100}\nmodel:\n  transformer: {layers: 4, hidden: 12288, heads: "
       "96, seq: 2048, vocab: 50688, attention: flash}\n"
       "training: {global_batch: 8, micro_batch: 1, fp8: hybrid}\n"
       "strategy: {tensor: 4, pipeline: 2, sequence_parallel: true}\n",
       "", Granularity::kStep, true},
      // The same width with its tensor group over two nodes, so that the
      // collectives beside their GEMMs (the column-parallel backward's
      // through NCCL; with tp_comm_overlap Transformer Engine's userbuffers
      // in both passes) outlast them: each pair exposes its collective's
      // excess. Until 2026-12-07 step granularity ran a run's beside
      // collectives of one kind as one from the run's start, beside all of
      // its compute, which hid them: -4.10% and -17.12% of the closed
      // form's step (region granularity -0.04% and -0.45%); now each run's
      // identical pairs go as one pair, +0.02% and -0.52%.
      {"gpt175b_width_tensor16_beside_step",
       "topology: {preset: dgx-h100, nodes: 2}\nmodel:\n  transformer: {layers: 4, hidden: "
       "12288, heads: 96, seq: 2048, vocab: 50688, attention: flash}\n"
       "training: {global_batch: 8, micro_batch: 1, fp8: hybrid}\n"
       "strategy: {tensor: 16, sequence_parallel: true}\n",
       "", Granularity::kStep, true},
      {"gpt175b_width_tensor16_userbuffers_step",
       "topology: {preset: dgx-h100, nodes: 2}\nmodel:\n  transformer: {layers: 4, hidden: "
       "12288, heads: 96, seq: 2048, vocab: 50688, attention: flash}\n"
       "training: {global_batch: 8, micro_batch: 1, fp8: hybrid, tp_comm_overlap: true}\n"
       "strategy: {tensor: 16, sequence_parallel: true}\n",
       "", Granularity::kStep, true},
      // transformer variants (issue 21): each kind through both judges
      {"variant_gqa", variant("kv_heads: 2", "tensor: 2, pipeline: 2, data: 2")},
      {"variant_mqa", variant("kv_heads: 1", "data: 8")},
      {"variant_swiglu", variant("mlp: swiglu, ffn_hidden: 1376", "tensor: 2, data: 4")},
      {"variant_rmsnorm_rotary",
       variant("norm: rmsnorm, positions: rotary", "pipeline: 2, data: 4")},
      {"variant_untied", variant("tie_embeddings: false", "tensor: 2, pipeline: 2, data: 2")},
      {"variant_untied_zero3", variant("tie_embeddings: false, bias: false", "data: 8, zero: 3")},
      {"variant_flash", variant("attention: flash", "tensor: 2, pipeline: 2, data: 2")},
      {"variant_flash_selective",
       variant("attention: flash", "tensor: 4, data: 2", "recompute: selective")},
      {"variant_llama",
       variant("kv_heads: 2, mlp: swiglu, ffn_hidden: 1376, norm: rmsnorm, positions: rotary, "
               "tie_embeddings: false, bias: false, attention: flash",
               "tensor: 2, data: 4, sequence_parallel: true", "recompute: full")},
      {"variant_llama_pipeline",
       variant("kv_heads: 2, mlp: swiglu, ffn_hidden: 1376, norm: rmsnorm, "
               "positions: rotary, tie_embeddings: false, bias: false, attention: flash",
               "tensor: 2, pipeline: 2, data: 2, sequence_parallel: true, zero: 1")},
      // mlp
      {"mlp_data", mlp("data: 8")},
      {"mlp_pmap",
       "topology: {preset: cpu-host, devices: 4}\nmodel:\n  mlp: {batch: 4, widths: [256, 256, "
       "256]}\n"
       "training: {mode: training}\nstrategy: {data: 4, data_mode: pmap}\n"},
      {"mlp_zero1", mlp("data: 8, zero: 1")},
      {"mlp_zero2", mlp("data: 8, zero: 2")},
      {"mlp_bucket", mlp("data: 8, bucket: 1MB")},
      {"mlp_speed", mlp("data: 8", "mode: training", "simulation: {speed: {2: 0.25}}\n")},
      {"mlp_inference", mlp("data: 8", "mode: inference")},
      {"mlp_host", mlp("data: 8", "mode: training", "simulation: {host_op_time: 50us}\n")},
      {"mlp_host_shared",
       mlp("data: 8", "mode: training", "simulation: {host_op_time: 50us, devices_per_host: 4}\n")},
      {"mlp_one_device",
       "topology: {preset: h200x1}\nmodel:\n  mlp: {batch: 64, widths: [512, 512]}\n"},
      // graph: placement, device_put, mesh, speed
      {"graph_one_device", graph("training: {mode: training}\n")},
      {"graph_inference", graph("training: {mode: inference}\n")},
      {"graph_placement",
       graph("training: {mode: training}\nplacement: {mm1: 0, act: 0, mm2: 1, loss: 1}\n")},
      {"graph_placement_inference",
       graph("training: {mode: inference}\nplacement: {mm1: 0, mm2: 2}\n")},
      {"graph_device_put",
       graph("training: {mode: inference}\nplacement: {mm1: 0}\ndevice_put: {x: 1, w2: 3}\n")},
      {"graph_speed", graph("training: {mode: training}\nplacement: {mm1: 0, mm2: 1}\nsimulation: "
                            "{speed: {1: 0.5}}\n")},
      {"graph_mesh_data", graph("training: {mode: training}\nmesh: {shape: [4], axes: "
                                "[data]}\nshardings: {x: [data, null], t: [data, null]}\n")},
      {"graph_mesh_megatron",
       graph("training: {mode: training}\nmesh: {shape: [2, 2], axes: [data, model]}\n"
             "shardings: {x: [data, null], t: [data, null], w1: [null, model], w2: [model, "
             "null]}\n")},
      {"graph_placement_host",
       graph("training: {mode: training}\nplacement: {mm1: 0, act: 0, mm2: 1, loss: 1}\n"
             "simulation: {host_op_time: 20us}\n")},
      {"graph_placement_host_shared",
       graph("training: {mode: training}\nplacement: {mm1: 0, act: 0, mm2: 1, loss: 1}\n"
             "simulation: {host_op_time: 20us, devices_per_host: 2}\n")},
      {"graph_mesh_megatron_host",
       graph("training: {mode: training}\nmesh: {shape: [2, 2], axes: [data, model]}\n"
             "shardings: {x: [data, null], t: [data, null], w1: [null, model], w2: [model, "
             "null]}\nsimulation: {host_op_time: 30us}\n")},
      {"graph_mesh_inference",
       graph("training: {mode: inference}\nmesh: {shape: [4], axes: [model]}\n"
             "shardings: {w1: [null, model], w2: [model, null]}\n")},
      {"graph_cross_entropy",
       "topology: {preset: pcie-4gpu}\nmodel:\n  graph:\n"
       "    tensors: {x: [32, 512, f32], w1: [512, 1000, f32], labels: [32, i32]}\n"
       "    ops:\n      - {name: mm1, op: matmul, in: [x, w1], out: logits}\n"
       "      - {name: loss, op: cross_entropy, in: [logits, labels], out: l}\n"
       "training: {mode: training}\nmesh: {shape: [4], axes: [data]}\nshardings: {x: [data, null], "
       "labels: [data]}\n"},
      // collective: kinds and algorithms
      {"collective_allreduce_ring", collective("kind: allreduce, bytes: 64MiB")},
      {"collective_allreduce_tree", collective("kind: allreduce, bytes: 64MiB, algorithm: tree")},
      {"collective_allgather_hd",
       collective("kind: allgather, bytes: 64MiB, algorithm: halving-doubling")},
      {"collective_reducescatter",
       collective("kind: reducescatter, bytes: 8MiB, group: [0, 2, 4, 6]")},
      {"collective_broadcast", collective("kind: broadcast, bytes: 16MiB")},
      {"collective_alltoall", collective("kind: alltoall, bytes: 16MiB")},
  };
}

std::vector<Case> all_cases() {
  std::vector<Case> cases = bundled();
  for (Case& c : family()) cases.push_back(std::move(c));
  return cases;
}

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class CrossJudge : public ::testing::TestWithParam<Case> {};

TEST_P(CrossJudge, StepCommunicationAndMemoryAgree) {
  const Case& c = GetParam();
  Result<Scenario> loaded = c.path.empty() ? parse_scenario(c.yaml, c.name + ".yaml") : load_scenario(c.path);
  ASSERT_TRUE(loaded.is_ok()) << loaded.message();
  const Scenario& sc = *loaded;
  // The huge scenarios at the coarsest granularity (their Programs are
  // millions of tasks at kernel granularity); the closed form knows no
  // granularity, and the step granularity's merged collectives are a named
  // difference.
  LowerOptions lo;
  lo.granularity = c.granularity;
  testing::expect_agreement(sc, c.name, lo,
                            !c.fused_whole && c.granularity != Granularity::kAuto &&
                                c.granularity != Granularity::kKernel);
}

// The pipeline's sends, both judges against the same hand-worked figures
// (tests/costmodel/plan_pipeline_test.cpp, EstimatePlan.InterleavedFillAndDrainWait
// ForEverySend and OneFOneBSteadyStateWaitsForItsSends): p = 4 stages, m = 8
// micro-batches, one toy layer a chunk (a layer's micro-batch 1.0223616e-5
// s, a third of it forward), untied embeddings of no vocabulary (no tied
// AllReduce, no head: equal stages), sends of x = 1.4096e-6 s, T a stage's
// micro-batch.
//   GPipe: the fill waits for p - 1 forward sends, the drain for p - 1
//   backward ones: (m + p - 1) T + 6 x.
//   1F1B: the same 6 x, and in the steady state each micro-batch's round
//   trip (its p stages' work and 6 sends) spans p micro-batches of a stage:
//   2((m - 2) - floor((m - 2) / p)) x = 10 x more: 11 T + 16 x.
//   interleaved, v = 2 (8 layers) and v = 4 (16): the fill waits for all
//   v p - 1 forward sends of a micro-batch, the drain for as many backward
//   ones, and the steady state has slack: m T + (p - 1) T / v +
//   2(v p - 1) x.
//   inference (forward only, T a micro-batch's forward, a third of the
//   training figure): 1F1B's order is GPipe's forward, p - 1 sends; the
//   interleaved order takes each group of p micro-batches round the stages
//   v times, and with no backward between, every return to stage 0 waits
//   for p sends: (v - 1) m + p - 1 = 11 (v = 2), 27 (v = 4).
// The simulator runs Megatron-LM's orders (planner/schedule.cpp) and meets
// these waits on its path; the closed form adds them up.
TEST(CrossJudgeByHand, PipelineSendsOnTheSchedulesPath) {
  const double layer = 1.0223616e-5, x = 1.4096e-6;
  struct SendCase {
    PipelineSchedule schedule;
    int v;
    double sends;  // in x
    bool inference = false;
  };
  for (const SendCase& c :
       {SendCase{PipelineSchedule::kGpipe, 1, 6}, SendCase{PipelineSchedule::k1F1B, 1, 16},
        SendCase{PipelineSchedule::kInterleaved, 2, 14}, SendCase{PipelineSchedule::kInterleaved, 4, 30},
        SendCase{PipelineSchedule::k1F1B, 1, 3, true}, SendCase{PipelineSchedule::kInterleaved, 2, 11, true},
        SendCase{PipelineSchedule::kInterleaved, 4, 27, true}}) {
    SCOPED_TRACE(std::string(schedule_name(c.schedule)) + " v " + std::to_string(c.v) +
                 (c.inference ? " inference" : ""));
    Scenario sc = cost::testing::tiny_pipeline(4, 4 * c.v, c.schedule, c.v);
    sc.transformer.tie_embeddings = false;
    sc.training.inference = c.inference;
    const double T = c.v * layer / (c.inference ? 3 : 1);
    const double by_hand = 8 * T + 3 * T / c.v + c.sends * x;
    testing::TwoJudges j = testing::judge_both(sc);
    ASSERT_TRUE(j.ok);
    EXPECT_NEAR(j.cost.step_seconds, by_hand, by_hand * 1e-9);
    EXPECT_NEAR(j.sim.step_seconds, by_hand, by_hand * 1e-9);
  }
}

// strategy.pipeline_scatter_gather (Megatron-LM 2021-02 .. 2023-01): each
// tensor rank sends 1/t of the boundary, and the receiving stage
// all-gathers it on its compute stream, in both judges. The toy of
// PipelineSendsOnTheSchedulesPath with tensor 2 (embeddings untied, no
// vocabulary): on two and four stages, GPipe and 1F1B, the two agree to
// rounding (the closed form's step by hand:
// EstimatePlan.PipelineScatterGatherByHand). On four in 1F1B the end
// stages gather once a micro-batch and the middle ones twice; the closed
// form's formula (the cycle's mean in the steady state) was 0.4% off these
// stages of unequal time before it walked the order with each gather in
// the pass after its receive.
TEST(CrossJudgeByHand, PipelineScatterGather) {
  for (int p : {2, 4})
    for (PipelineSchedule schedule : {PipelineSchedule::kGpipe, PipelineSchedule::k1F1B}) {
      SCOPED_TRACE("pipeline " + std::to_string(p) + " " + std::string(schedule_name(schedule)));
      Scenario sc = cost::testing::tiny_pipeline(p, 4, schedule, 1, 2);
      sc.transformer.tie_embeddings = false;
      sc.strategy.pipeline_scatter_gather = true;
      testing::TwoJudges j = testing::judge_both(sc);
      ASSERT_TRUE(j.ok);
      EXPECT_NEAR(j.sim.step_seconds, j.cost.step_seconds, j.cost.step_seconds * 1e-9);
      // The simulator's sends carry half the boundary (2048 B), and every
      // receive is followed by an AllGather of all of it (4096 B).
      int sends = 0, gathers = 0;
      for (TaskId t = 0; t < j.plan.program.num_tasks(); ++t) {
        const Task& k = j.plan.program.task(t);
        if (k.kind == TaskKind::kTransfer) {
          ++sends;
          EXPECT_EQ(k.bytes, 2048.0);
        }
        if (j.plan.program.task_name(t) == "pipe.allgather") ++gathers;
      }
      // One send a rank per boundary crossing: 8 micro-batches x (p - 1)
      // boundaries x 2 ways x 2 ranks; a gather on each receiving rank.
      EXPECT_EQ(sends, 8 * (p - 1) * 2 * 2);
      EXPECT_EQ(gathers, sends);
    }
}

// strategy.pipeline_blocking_sends (Megatron-LM's blocking exchanges) in
// both judges: the toy of PipelineSendsOnTheSchedulesPath (p = 4, m = 8, a
// layer of T = 1.0223616e-5 s a stage and chunk, embeddings untied, sends
// x = 1.4096e-6 s), each stage waiting for its own sends.
//   GPipe: both judges 11 T + 20 x. The forward phase is each stage's
//   forward and send once, 4 f + 3 x, then 7 more at the pace of a middle
//   stage, f + x; the backward phase likewise, 4 b + 3 x + 7 (b + x).
//   1F1B: the schedule's order, worked through send by send
//   (scripts/pipeline-order, which PipelineOrder.GivesTheCrossJudgeToysFigures
//   holds to every figure of this test), gives 11 T + 19 x, which both
//   judges reach: the closed form walks the order with each blocking send in
//   the pass it follows (EstimatePlan.BlockingSendsAreInTheStagesTime; its
//   formula, m max T' + the others once, gave 11 T + 20 x).
//   Interleaved, v = 2 (a micro-batch's T = 2 layers): the order gives
//   8 T + 3 T / 2 + 29.164767 x, the warm-up's slack hiding part of the
//   sends, and both judges reach it since the closed form walks the
//   interleaved order too (its formula, every send counted in its stage's
//   time, gave 8 T + 3 T / 2 + 37 x, 5% on this toy, whose send is 41% of a
//   chunk's forward).
// Beside the next work the same plans take 6 x, 16 x and 14 x: blocking
// costs each schedule its sends again.
TEST(CrossJudgeByHand, BlockingSends) {
  const double layer = 1.0223616e-5, x = 1.4096e-6;
  struct BlockingCase {
    PipelineSchedule schedule;
    int v;
    double closed, order, beside;  // in x, beyond m T + (p - 1) T / v
  };
  for (const BlockingCase& c : {BlockingCase{PipelineSchedule::kGpipe, 1, 20, 20, 6},
                                BlockingCase{PipelineSchedule::k1F1B, 1, 19, 19, 16},
                                BlockingCase{PipelineSchedule::kInterleaved, 2, 29.164767309875, 29.164767309875, 14}}) {
    SCOPED_TRACE(std::string(schedule_name(c.schedule)) + " v " + std::to_string(c.v));
    Scenario sc = cost::testing::tiny_pipeline(4, 4 * c.v, c.schedule, c.v);
    sc.transformer.tie_embeddings = false;
    const double T = c.v * layer;
    const double base = 8 * T + 3 * T / c.v;
    testing::TwoJudges beside = testing::judge_both(sc);
    ASSERT_TRUE(beside.ok);
    EXPECT_NEAR(beside.sim.step_seconds, base + c.beside * x, base * 1e-9);
    sc.strategy.pipeline_blocking_sends = true;
    testing::TwoJudges j = testing::judge_both(sc);
    ASSERT_TRUE(j.ok);
    EXPECT_NEAR(j.cost.step_seconds, base + c.closed * x, base * 1e-9);
    EXPECT_NEAR(j.sim.step_seconds, base + c.order * x, base * 1e-9);
    EXPECT_LE(j.sim.step_seconds, j.cost.step_seconds * (1 + 1e-12));
    EXPECT_GT(j.sim.step_seconds, j.cost.step_seconds * (1 - 0.05));
  }
}

// ZeRO-3 without a pipeline in both judges: the toy of
// EstimatePlan.ZeroThreePrefetchModesByHand (tiny GPT, V = 1024, d = 2, two
// micro-batches of 4; the embedding's and the head's gathers and the
// embedding's reduce-scatter g = 7.5536 us, a layer's l = 5.9984 us), whose
// closed form walks the passes block by block: the simulator's step is the
// closed form's in every prefetch mode, whose exposed seconds are 6 g + 4 l,
// 4 g + 4 l and 4 g + 4 l by hand.
TEST(CrossJudgeByHand, ZeroThreePrefetchWalk) {
  Scenario sc = cost::testing::tiny_gpt(2, 2, 0, 1024);
  sc.transformer.positions = PositionKind::kRotary;
  sc.strategy.data = 2;
  sc.strategy.zero = 3;
  sc.training.global_batch = 16;
  sc.training.micro_batch = 4;
  for (Zero3Prefetch mode : {Zero3Prefetch::kPerPass, Zero3Prefetch::kPerMicroBatch,
                             Zero3Prefetch::kAcrossPasses}) {
    SCOPED_TRACE(std::string(zero3_prefetch_name(mode)));
    sc.strategy.zero3_prefetch = mode;
    testing::TwoJudges j = testing::judge_both(sc);
    ASSERT_TRUE(j.ok);
    EXPECT_NEAR(j.sim.step_seconds, j.cost.step_seconds, j.cost.step_seconds * 1e-9);
  }
}

INSTANTIATE_TEST_SUITE_P(Plans, CrossJudge, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case>& p) { return p.param.name; });

}  // namespace
}  // namespace brigade::planner
