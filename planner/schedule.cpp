#include "planner/schedule.hpp"

#include <algorithm>

namespace brigade::planner {

std::vector<PipelineStep> pipeline_schedule(PipelineSchedule kind, int stages, int stage,
                                            int micro_batches, int chunks, bool forward_only) {
  std::vector<PipelineStep> out;
  const int m = micro_batches;
  if (kind != PipelineSchedule::kInterleaved) chunks = 1;
  if (chunks <= 1 && kind == PipelineSchedule::kInterleaved) kind = PipelineSchedule::k1F1B;
  if (forward_only) {
    // Chunk-major within groups of `stages` micro-batches, as the
    // interleaved warm-up; with one chunk simply 0..m-1.
    const int total = m * chunks;
    for (int k = 0; k < total; ++k) {
      const int group = stages * chunks;
      const int chunk = (k % group) / stages;
      const int mb = (k / group) * stages + k % stages;
      out.push_back({true, chunks > 1 ? mb : k, chunks > 1 ? chunk : 0});
    }
    return out;
  }
  if (kind == PipelineSchedule::kGpipe) {
    for (int i = 0; i < m; ++i) out.push_back({true, i, 0});
    for (int i = m - 1; i >= 0; --i) out.push_back({false, i, 0});
    return out;
  }
  if (kind == PipelineSchedule::k1F1B) {
    const int warmup = std::min(stages - stage - 1, m);
    const int remaining = m - warmup;
    for (int i = 0; i < warmup; ++i) out.push_back({true, i, 0});
    for (int i = 0; i < remaining; ++i) {
      out.push_back({true, warmup + i, 0});
      out.push_back({false, i, 0});
    }
    for (int i = remaining; i < m; ++i) out.push_back({false, i, 0});
    return out;
  }
  // Interleaved: virtual micro-batch k runs model chunk (k mod (p*v)) / p of
  // micro-batch (k / (p*v)) * p + k mod p; backwards visit chunks in reverse.
  const int total = m * chunks;
  const int group = stages * chunks;
  int warmup;
  if (m == stages) {
    warmup = total;
  } else {
    warmup = (stages - stage - 1) * 2 + (chunks - 1) * stages;
    warmup = std::min(warmup, total);
  }
  const int remaining = total - warmup;
  auto step = [&](int k, bool fwd) {
    int chunk = (k % group) / stages;
    if (!fwd) chunk = chunks - chunk - 1;
    return PipelineStep{fwd, (k / group) * stages + k % stages, chunk};
  };
  for (int k = 0; k < warmup; ++k) out.push_back(step(k, true));
  for (int i = 0; i < remaining; ++i) {
    out.push_back(step(warmup + i, true));
    out.push_back(step(i, false));
  }
  for (int k = remaining; k < total; ++k) out.push_back(step(k, false));
  return out;
}

std::string schedule_string(const std::vector<PipelineStep>& steps, bool show_chunks) {
  std::string s;
  for (const PipelineStep& st : steps) {
    if (!s.empty()) s += ' ';
    s += st.forward ? 'F' : 'B';
    s += std::to_string(st.micro_batch);
    if (show_chunks) {
      s += '.';
      s += std::to_string(st.chunk);
    }
  }
  return s;
}

}  // namespace brigade::planner
