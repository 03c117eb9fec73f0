// A scenario's `published:` section: what a paper, a vendor's benchmark page
// or an MLPerf submission measured for the plan the scenario describes
// (docs/FIDELITY.md, "End-to-end results"; docs/scenario-format.md,
// "published"). Every judge ignores it; scripts/fidelity compares it with
// their answers.
#pragma once

#include <optional>
#include <string>

#include "core/status.hpp"

namespace brigade {

// What the published figure measures. Each has its unit in its name.
enum class PublishedMetric {
  kStepSeconds,            // seconds per iteration (one global batch)
  kTflopsPerGpu,           // 1e12 FLOP/s per GPU, FLOPs counted as `flops` says
  kTokensPerSecondPerGpu,  // tokens (sequences x seq) per second per GPU
  kMfu,                    // model FLOPs utilisation: a fraction in (0, 1]
};

// Which FLOP count a per-GPU rate or an MFU counts (B sequences of s tokens,
// l layers, hidden h, vocabulary V):
enum class PublishedFlops {
  kNone,
  // 72 B s l h^2 (1 + s/(6h) + V/(12 l h)): one forward and one backward pass
  // (Korthikanti et al. 2022, Sec. 6, "model FLOPs").
  kMegatron,
  // 96 B s l h^2 (1 + s/(6h) + V/(16 l h)): with full recomputation, one more
  // forward pass of every layer (Narayanan et al. 2021, Appendix).
  kMegatronRecompute,
};

struct PublishedResult {
  std::string source;  // paper or page, table, row
  PublishedMetric metric = PublishedMetric::kStepSeconds;
  double value = 0;                              // in the metric's unit
  PublishedFlops flops = PublishedFlops::kNone;  // required for kTflopsPerGpu and kMfu
  double peak_tflops = 0;                        // the peak the source divides by (kMfu only)
  double memory_bytes = 0;  // peak memory per GPU where the source states it; 0: not stated
  std::string note;
};

std::string_view published_metric_name(PublishedMetric m);  // "step_seconds", ...
std::string_view published_flops_name(PublishedFlops f);    // "megatron", ...

// The `published:` section of the scenario in `text` (nullopt when there is
// none), checked as the scenario reader checks it. Errors are one line,
// "FILE:LINE:COL: error: found X; expected Y".
Result<std::optional<PublishedResult>> parse_published(const std::string& text,
                                                       const std::string& filename);
Result<std::optional<PublishedResult>> load_published(const std::string& path);

}  // namespace brigade
