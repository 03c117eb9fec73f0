// Transformer lowering, one pipeline stage: the work a stage runs beside
// its compute stream, on streams of their own (StageEmitter's members for
// it, lower_transformer_stage_emitter.hpp; the rest of the stage in
// lower_transformer_stage.cpp): Transformer Engine's tensor-parallel
// overlap, collectives on the `tp` streams beside their GEMMs
// (training.tp_comm_overlap; docs/costmodel.md), and context parallelism's
// KV ring, hops on the `cp` streams beside the attention blocks.
#include <string>
#include <vector>

#include "planner/lower_transformer_stage_emitter.hpp"

namespace brigade::planner::detail {

// The collective a GEMM runs beside (Kernel::beside), kernel and region
// granularity: issued with the GEMM on the `tp` streams.
void StageEmitter::beside_collective(const Kernel& k, Phase phase, int layer, int mb) {
  const TaskId before = flush_compute();
  const TaskId base = b_.num_tasks();
  for (int d = 0; d < s_.D; ++d) {
    std::vector<StreamId> streams;
    for (int t = 0; t < s_.T; ++t) streams.push_back(tp_[static_cast<size_t>(d * s_.T + t)]);
    add_group_collective(k, phase, layer, mb, s_.ranks->tensor_group(d, p_), streams);
  }
  // It starts with its GEMM: after what precedes both, and what the GEMM
  // waits for (which stays attached to the GEMM too).
  start_with_run(base, before);
  beside_ = base;
}

// Tasks at `base` (one a rank) start with the pending run: after `before`
// and what the run waits for (its dependencies, its pipeline receives),
// which stay attached to the run.
void StageEmitter::start_with_run(TaskId base, TaskId before) {
  for (int r = 0; r < R_; ++r) {
    if (before != kNone) b_.depend(base + r, before + r);
    for (const auto& d : pend_.deps) b_.depend(base + r, d[static_cast<size_t>(r)]);
  }
  for (int key : pend_.recv_keys) {
    const TaskId send = s_.send_base[static_cast<size_t>(key)];
    if (send != kNone)
      for (int r = 0; r < R_; ++r) b_.depend(base + r, send + r);
    else
      s_.recv_extra[static_cast<size_t>(key)].push_back(base);
  }
}

// Step granularity: the fused run's beside collectives, one per kind with
// their summed bytes, on the `tp` streams from the run's start (what
// precedes it and what it waits for); the run's last task waits for them.
void StageEmitter::side_segment(TaskId before) {
  std::vector<Deferred> list = std::move(side_);
  side_.clear();
  for (const Deferred& d : list) {
    const Kernel k = merged(d, "tp.beside.");
    const TaskId base = b_.num_tasks();
    for (int g = 0; g < s_.D; ++g) {
      std::vector<StreamId> streams;
      for (int t = 0; t < s_.T; ++t) streams.push_back(tp_[static_cast<size_t>(g * s_.T + t)]);
      add_group_collective(k, d.phase, -1, d.mb, s_.ranks->tensor_group(g, p_), streams);
    }
    start_with_run(base, before);
    for (int r = 0; r < R_; ++r) b_.depend(last_compute_ + r, base + r);
  }
}

// Rank r's neighbour in its context ring: the next (hop 1) or the
// previous (hop -1) context rank of the same tensor rank and data replica.
int StageEmitter::ring_peer(int r, int hop) const {
  const int t = r % s_.T, j = r / s_.T, c = j % s_.C;
  return (j - c + (c + hop + s_.C) % s_.C) * s_.T + t;
}

// Context parallelism, kernel and region granularity: the fused attention
// as Transformer Engine's ring attention runs it (AttnFuncWithCPAndKVP2P):
// C blocks of 1/C of its FLOPs and bytes, each timed as the kernel is (its
// class and shape: FlashAttention's measured rates); before block i >= 1 each rank
// forwards the chunk it holds to the next rank of its ring, a hop issued
// when block i-1 starts (after block i-2 and the hop that brought that
// chunk), which block i waits for. The closed form's
// ring_attention_seconds on an idle network.
void StageEmitter::ring_kernel(const Kernel& k, Phase phase, int layer, int mb) {
  const TaskId before = flush_compute();
  const int C = k.ring_steps;
  const double flops = k.flops() / C, bytes = k.bytes / C;
  std::vector<TaskId> blocks(static_cast<size_t>(C), kNone), hops(static_cast<size_t>(C), kNone);
  const std::string hop_name = k.name + ".kv_hop";
  for (int i = 0; i < C; ++i) {
    const auto si = static_cast<size_t>(i);
    if (i >= 1) {
      hops[si] = b_.num_tasks();
      const TaskId after = i >= 2 ? blocks[si - 2] : before;
      for (int r = 0; r < R_; ++r) {
        const TaskId id = b_.add_transfer(cp_[static_cast<size_t>(r)],
                                          out_.devices[static_cast<size_t>(ring_peer(r, 1))],
                                          k.ring_bytes, hop_name, phase);
        b_.task(id).layer = layer;
        b_.task(id).micro_batch = mb;
        if (after != kNone) b_.depend(id, after + r);
        if (i >= 2) b_.depend(id, hops[si - 1] + ring_peer(r, -1));
        if (i == 1)
          for (const auto& d : pend_.deps) b_.depend(id, d[static_cast<size_t>(r)]);
      }
    }
    blocks[si] = b_.num_tasks();
    for (int r = 0; r < R_; ++r) {
      const TaskId id = b_.add_fixed(out_.compute[static_cast<size_t>(r)], flops, bytes,
                                     k.dtype, k.name, phase);
      // FlashAttention's class and shape for its measured rates, as the
      // kernel without a ring has them (cost::ring_block_seconds).
      b_.task(id).kernel = k.kernel_class;
      b_.task(id).m = k.m;
      b_.task(id).k = k.k;
      b_.task(id).layer = layer;
      b_.task(id).micro_batch = mb;
      if (i == 0) attach(id, r);
      if (i >= 1) b_.depend(id, hops[si] + ring_peer(r, -1));
    }
    if (i == 0) {
      for (int key : pend_.recv_keys) link_recv(key, blocks[si]);
      clear_attachments();
    }
    last_compute_ = blocks[si];
  }
}

// Context parallelism, step granularity: the hops of a fused run's ring
// kernels as one transfer per rank to the next rank of its ring (their
// summed bytes, one latency), from the run's start (what precedes it, and
// the pipeline receive it waits for), beside its compute; the run's last
// task waits for the transfer coming in. The closed form's per-kernel
// ring is hidden or exposed alike where the run's compute hides the hops
// or not (docs/costmodel.md, "The closed form against the simulator").
void StageEmitter::ring_segment(TaskId before) {
  const TaskId base = b_.num_tasks();
  for (int r = 0; r < R_; ++r) {
    const TaskId id = b_.add_transfer(cp_[static_cast<size_t>(r)],
                                      out_.devices[static_cast<size_t>(ring_peer(r, 1))],
                                      ring_bytes_, "cp.kv_ring", pend_.phase);
    b_.task(id).micro_batch = pend_.mb;
  }
  start_with_run(base, before);
  for (int r = 0; r < R_; ++r) b_.depend(last_compute_ + r, base + ring_peer(r, -1));
  ring_bytes_ = 0;
}

}  // namespace brigade::planner::detail
