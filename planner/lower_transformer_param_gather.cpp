// Transformer lowering, one pipeline stage: strategy.overlap_param_gather,
// ZeRO-1/2 (StageEmitter's members for it, lower_transformer_stage_emitter.hpp;
// the rest of the stage in lower_transformer_stage.cpp).
//
// Megatron-LM's --overlap-param-gather (megatron/core/distributed/
// param_and_grad_buffer.py, _ParamAndGradBucketGroup.start_param_sync and
// finish_param_sync; distributed_data_parallel.py's forward pre-hooks;
// distrib_optimizer.py step_with_ready_grads): the optimizer step gathers
// nothing; in the next step's first forward each module's pre-hook waits
// for its bucket's all-gather and dispatches the next bucket's (buckets in
// forward order), which NCCL starts when the compute reaches that module:
// one bucket of prefetch. A one-step Program as the steady state: the last
// step's update is gathered at the start of this one, bucket k (forward
// order) issued when the first block using bucket k-1 starts (bucket 0 at
// the step's start on chunk 0; a later chunk's when its first forward
// does), the first micro-batch's first block using bucket k waiting for it.
// Each chunk has buckets of its own (Megatron-LM's per-chunk buffers),
// filled as the gradient buckets are (grad_ready: whole groups in the
// backward's completion order, closed at strategy.bucket bytes).
#include <algorithm>
#include <vector>

#include "core/tr.hpp"
#include "planner/lower_transformer_stage_emitter.hpp"

namespace brigade::planner::detail {

std::vector<StageEmitter::ParamBucket> StageEmitter::param_buckets(
    const std::vector<Block>& blocks) const {
  std::vector<ParamBucket> list;
  double grad_bytes = 0;
  ParamBucket cur;
  bool open = false;
  auto add = [&](size_t j, const ParamGroup& g) {
    if (g.expert) return;
    grad_bytes += g.local_elements() * s_.g;
    cur.bytes += g.local_elements() * s_.e - g.fp8_elements() * (s_.e - s_.fp8_gather);
    cur.first = j;
    open = true;
    if (grad_bytes >= s_.sc->strategy.bucket_bytes) {
      list.push_back(cur);
      cur = ParamBucket{};
      grad_bytes = 0;
      open = false;
    }
  };
  for (size_t j = blocks.size(); j-- > 0;) {
    const Block& blk = blocks[j];
    for (const Kernel& kern : blk.tpl->backward) {
      if (blk.tpl == &s_.head && blk.tied_group >= 0) {
        if (kern.name == "head.logits.wgrad")
          add(j, blk.owned[static_cast<size_t>(blk.tied_group)]);
      } else if (kern.completes_grad >= 0 &&
                 kern.completes_grad < static_cast<int>(blk.owned.size())) {
        add(j, blk.owned[static_cast<size_t>(kern.completes_grad)]);
      }
    }
  }
  if (open) list.push_back(cur);
  std::reverse(list.begin(), list.end());
  return list;
}

// Interleaved schedules (virtual_stages > 1): Megatron-LM's
// align_param_gather (megatron/training/arguments.py: on unless the
// schedule is not interleaved). The pre-hooks only wait
// (skip_next_bucket_dispatch); the schedule dispatches whole chunks
// (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving): chunks 0 and 1 at the
// step's start (param_sync_func[0], [1]), every bucket in forward order,
// back to back on the dp stream; chunk c >= 2 when this rank's forward of
// virtual micro-batch k starts, where k + rank is chunk c-1's first
// virtual micro-batch ((c-1) * P: forward_step_helper's
// param_sync_microbatch_id, is_first_microbatch_for_model_chunk,
// get_model_chunk_id(...) + 1), at the step's start if k < 0.
void StageEmitter::aligned_param_gathers(const PipelineStep& st) {
  if (pg_chunk_ids_.empty()) {
    pg_chunk_ids_.assign(chunks_.size(), {});
    for (int c = 0; c < std::min(2, s_.v); ++c) issue_chunk_gathers(c, false, st.micro_batch);
    for (int c = 2; c < s_.v; ++c)
      if ((c - 1) * s_.P - p_ < 0) issue_chunk_gathers(c, false, st.micro_batch);
  }
  for (int c = 2; c < s_.v; ++c)
    if ((c - 1) * s_.P - p_ == pg_forwards_ && pg_chunk_ids_[static_cast<size_t>(c)].empty())
      issue_chunk_gathers(c, true, st.micro_batch);
}

// All of chunk c's gathers, in forward order; `gated` as in
// issue_param_gather.
void StageEmitter::issue_chunk_gathers(int c, bool gated, int mb) {
  const std::vector<ParamBucket>& bks = pg_buckets_[static_cast<size_t>(c)];
  auto& ids = pg_chunk_ids_[static_cast<size_t>(c)];
  ids.assign(bks.size(), {});
  for (size_t k = 0; k < bks.size(); ++k) ids[k] = issue_param_gather(bks[k].bytes, gated, mb);
}

// Before block j of the chunk's first forward: the gathers of the buckets
// it is the first to use, each dispatching the next bucket's (interleaved
// schedules: dispatched ahead, only waited for).
void StageEmitter::param_gather_chain(size_t j, int mb) {
  const std::vector<ParamBucket>& bks = *pg_;
  for (size_t k = 0; k < bks.size(); ++k) {
    if (bks[k].first != j) continue;
    if (s_.v > 1) {
      next_depends(pg_ids_[k]);
      continue;
    }
    if (pg_ids_[k].empty()) pg_ids_[k] = issue_param_gather(bks[k].bytes, k > 0 || pg_chunk_ > 0, mb);
    if (k + 1 < bks.size() && pg_ids_[k + 1].empty())
      pg_ids_[k + 1] = issue_param_gather(bks[k + 1].bytes, true, mb);
    next_depends(pg_ids_[k]);
  }
}

// `gated`: issued when the next block starts (after the compute before
// it and the pipeline receive it waits for), else at the step's start.
std::vector<TaskId> StageEmitter::issue_param_gather(double bytes, bool gated, int mb) {
  const TaskId after = gated ? flush() : kNone;
  auto ids = data_collective(
      CollectiveKind::kAllGather, bytes, "zero.param_gather", Phase::kForward,
      fill_args(tr_text("Reasons",
                        "ZeRO-%1 with overlap_param_gather: each data replica updated only "
                        "its 1/%2 of the weights; all-gather them over 'data' bucket by bucket "
                        "in the next step's first forward, one bucket ahead of the compute"),
                {std::to_string(s_.zero), std::to_string(s_.D)}));
  for (int r = 0; r < R_; ++r) {
    const TaskId id = ids[static_cast<size_t>(r)];
    b_.task(id).micro_batch = mb;
    if (after != kNone) b_.depend(id, after + r);
    if (!gated) continue;
    for (int key : pend_.recv_keys) {
      const TaskId send = s_.send_base[static_cast<size_t>(key)];
      if (send != kNone)
        b_.depend(id, send + r);
      else  // a later stage's send (interleaved: the last stage's to the first)
        s_.recv_rank_extra[static_cast<size_t>(key)].emplace_back(r, id);
    }
  }
  return ids;
}

}  // namespace brigade::planner::detail
