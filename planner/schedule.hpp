// Pipeline schedules: the order in which one pipeline stage runs the
// forward and backward passes of its micro-batches.
#pragma once

#include <string>
#include <vector>

#include "core/scenario.hpp"

namespace brigade::planner {

struct PipelineStep {
  bool forward = true;
  int micro_batch = 0;
  int chunk = 0;  // model chunk on this device (interleaved schedules), else 0
  bool operator==(const PipelineStep&) const = default;
};

// The steps of stage `stage` (0-based) of `stages`, for `micro_batches`
// micro-batches and `chunks` model chunks per device:
//  - GPipe (Huang et al. 2019): all forwards, then all backwards in reverse
//    micro-batch order;
//  - 1F1B (PipeDream-Flush, Narayanan et al. 2021): stages-stage-1 warm-up
//    forwards, then one forward / one backward, then the cool-down backwards;
//  - interleaved 1F1B (Narayanan et al. 2021, Section 2.2.2), as Megatron-LM's
//    forward_backward_pipelining_with_interleaving orders it; needs
//    micro_batches divisible by stages when chunks > 1.
// `forward_only` (inference) keeps only the forwards.
std::vector<PipelineStep> pipeline_schedule(PipelineSchedule kind, int stages, int stage,
                                            int micro_batches, int chunks, bool forward_only);

// "F0 F1 B0 F2 B1 ..." (chunk as a suffix when chunks > 1: "F0.1").
std::string schedule_string(const std::vector<PipelineStep>& steps, bool show_chunks = false);

}  // namespace brigade::planner
