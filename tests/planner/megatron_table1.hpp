// The ten GPT configurations of Megatron-LM's Table 1 (Narayanan et al.,
// "Efficient Large-Scale Language Model Training on GPU Clusters Using
// Megatron-LM", SC'21, arXiv:2104.04473, Table 1: weak-scaling throughput
// for GPT models from 1 billion to 1 trillion parameters). All use a
// vocabulary of 51,200 and a sequence of 2048 (Section 5.1). The table's
// tensor- and pipeline-parallel sizes are listed too.
//
// Transcription check: Eq. 2 evaluated on each row's (layers, hidden)
// reproduces the table's "number of parameters (billion)" column to its one
// decimal (test ParamsMatchTheTablesColumn), so a mistyped row fails.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace brigade::planner::testing {

struct Table1Row {
  const char* name;
  double billions;  // the table's parameter column
  std::int64_t heads, hidden, layers;
  int tensor, pipeline, gpus;
  std::int64_t batch;
};

inline const std::vector<Table1Row>& megatron_table1() {
  static const std::vector<Table1Row> rows = {
      {"gpt_1_7b", 1.7, 24, 2304, 24, 1, 1, 32, 512},
      {"gpt_3_6b", 3.6, 32, 3072, 30, 2, 1, 64, 512},
      {"gpt_7_5b", 7.5, 32, 4096, 36, 4, 1, 128, 512},
      {"gpt_18_4b", 18.4, 48, 6144, 40, 8, 1, 256, 1024},
      {"gpt_39_1b", 39.1, 64, 8192, 48, 8, 2, 512, 1536},
      {"gpt_76_1b", 76.1, 80, 10240, 60, 8, 4, 1024, 1792},
      {"gpt_145_6b", 145.6, 96, 12288, 80, 8, 8, 1536, 2304},
      {"gpt_310_1b", 310.1, 128, 16384, 96, 8, 16, 1920, 2160},
      {"gpt_529_6b", 529.6, 128, 20480, 105, 8, 35, 2520, 2520},
      {"gpt_1008b", 1008.0, 160, 25600, 128, 8, 64, 3072, 3072},
  };
  return rows;
}

inline constexpr std::int64_t kTable1Vocab = 51200;
inline constexpr std::int64_t kTable1Seq = 2048;

// Megatron-LM Eq. 2 (Narayanan et al. 2021, Section 5.1):
//   P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h))
inline double megatron_eq2(double l, double h, double V, double s) {
  return 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
}

// Megatron-LM Eq. 3 (same section), FLOPs per iteration with full activation
// recomputation: F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)).
inline double megatron_eq3(double B, double s, double l, double h, double V) {
  return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}

// The same derivation without recomputation: layers run forward once and
// backward twice (3x instead of 4x), and so does the logits GEMM, which Eq. 3
// already counts 3x (it is never recomputed):
//   F = 72 B s l h^2 (1 + s/(6h)) + 6 B s h V = 72 B s l h^2 (1 + s/(6h) + V/(12 l h)).
inline double megatron_eq3_no_recompute(double B, double s, double l, double h, double V) {
  return 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
}

}  // namespace brigade::planner::testing
