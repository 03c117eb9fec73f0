// Transformer lowering, one pipeline stage (emit_stage; lower_transformer.cpp
// runs the stages in order and the finishing pass): tensor, sequence,
// context, pipeline and data parallelism, ZeRO 1/2/3, activation
// recomputation. Every device of one pipeline stage runs the same schedule,
// so a stage is emitted in lockstep over its T x D devices (rank r = j*T + t,
// the replica j = data rank x C + context rank): each logical task becomes R
// consecutive tasks, rank r's at base + r.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "core/plan_check.hpp"
#include "core/profile.hpp"
#include "core/tr.hpp"
#include "costmodel/memory.hpp"
#include "costmodel/model_size.hpp"
#include "planner/builders.hpp"
#include "planner/lower_internal.hpp"
#include "planner/lower_transformer_setup.hpp"
#include "planner/lower_transformer_stage_emitter.hpp"
#include "planner/rank_map.hpp"
#include "planner/schedule.hpp"

namespace brigade::planner::detail {

StageEmitter::StageEmitter(ProgramBuilder& b, Setup& s, int p) : b_(b), s_(s), p_(p) {
  R_ = s.T * s.D;
  out_.devices.resize(static_cast<size_t>(R_));
  for (int r = 0; r < R_; ++r)
    out_.devices[static_cast<size_t>(r)] = s.ranks->device(r % s.T, r / s.T, p);
  for (int dev : out_.devices) out_.compute.push_back(b.stream(dev, "compute"));
  if (s.training && s.D > 1)
    for (int dev : out_.devices) out_.dp.push_back(b.stream(dev, "dp"));
  if (s.P > 1)
    for (int dev : out_.devices) pp_.push_back(b.stream(dev, "pp"));
  if (s.C > 1)
    for (int dev : out_.devices) cp_.push_back(b.stream(dev, "cp"));
  // Collectives beside GEMMs: TE's userbuffers overlap, or the
  // column-parallel backward's asynchronous collectives.
  if (s.training && s.T > 1 &&
      (s.sc->training.tp_comm_overlap || s.sc->training.tp_backward_overlap))
    for (int dev : out_.devices) tp_.push_back(b.stream(dev, "tp"));
  out_.grad_sync.resize(static_cast<size_t>(R_));
  chunks_ = stage_blocks(s_, p_, out_);
  // FP8 delayed scaling: each chunk's passes end with the amax reduction of
  // every FP8 module on the device (costmodel/transformer_blocks.hpp,
  // fp8_amax_reduction).
  if (const cost::TransformerShape shape = cost::transformer_shape(*s_.sc);
      cost::reduces_fp8_amax(shape, s_.training)) {
    std::int64_t layers = 0;
    for (int c = 0; c < s_.v; ++c) layers += s_.split.layers(c * s_.P + p_);
    amax_ = cost::fp8_amax_reduction(
        shape, static_cast<double>(layers) * cost::fp8_modules_per_layer(s_.layer));
  }
  if (param_gather_ahead(s_)) {
    for (const std::vector<Block>& blocks : chunks_) pg_buckets_.push_back(param_buckets(blocks));
    pg_done_.assign(chunks_.size(), 0);
  }
}

Result<StageOut> StageEmitter::run() {
  BRIGADE_RETURN_IF_ERROR(add_resident_buffers(b_, s_, out_));
  const auto steps =
      pipeline_schedule(s_.sc->strategy.schedule, s_.P, p_, s_.m, s_.v, !s_.training);
  // The step of each chunk whose backward finishes the gradients.
  std::vector<int> last_bwd(static_cast<size_t>(s_.v), -1),
      first_bwd(static_cast<size_t>(s_.v), -1);
  for (int i = 0; i < static_cast<int>(steps.size()); ++i)
    if (!steps[static_cast<size_t>(i)].forward) {
      const auto c = static_cast<size_t>(steps[static_cast<size_t>(i)].chunk);
      last_bwd[c] = i;
      if (first_bwd[c] < 0) first_bwd[c] = i;
    }
  saved_.assign(static_cast<size_t>(s_.v), {});
  for (int i = 0; i < static_cast<int>(steps.size()); ++i) {
    if (cancel_requested(s_.cancel)) return cancelled_status();
    const PipelineStep& st = steps[static_cast<size_t>(i)];
    next_step_ =
        i + 1 < static_cast<int>(steps.size()) ? &steps[static_cast<size_t>(i + 1)] : nullptr;
    if (st.forward)
      forward_step(st);
    else
      backward_step(st, i == last_bwd[static_cast<size_t>(st.chunk)],
                    i == first_bwd[static_cast<size_t>(st.chunk)]);
  }
  // DeepSpeed: the last step's send, in a slot of its own; the step's
  // gradient reduction and optimizer follow it (schedule.py 233-237).
  const TaskId last_send = ds_send_ ? ds_emit_send(-1) : kNone;
  flush();
  close_bucket();
  out_.final_compute = last_send != kNone ? last_send : last_compute_;
  if (!s_.sc->strategy.overlap)
    for (auto& bk : deferred_buckets_) emit_bucket(bk, out_.final_compute);
  return std::move(out_);
}

void StageEmitter::attach(TaskId id, int r) {
  for (const auto& d : pend_.deps) b_.depend(id, d[static_cast<size_t>(r)]);
  for (BufferId a : pend_.allocs) b_.alloc(id, a + r);
  for (BufferId f : pend_.frees) b_.free(id, f + r);
}

void StageEmitter::link_recv(int key, TaskId base) {
  TaskId& recv = s_.recv_base[static_cast<size_t>(key)];
  recv = base;
  const TaskId send = s_.send_base[static_cast<size_t>(key)];
  if (send != kNone)
    for (int r = 0; r < R_; ++r) b_.depend(base + r, send + r);
}

// Frees `slot` (rank r's buffer at slot + r) when the task that last used
// it ends: the pending task if kernels are pending, else the last task
// emitted on the compute stream. (Left in pend_.frees with nothing pending,
// the free would ride on the next task, which may be the next micro-batch's
// first: both buffers would be live together.)
void StageEmitter::free_after_last(BufferId slot) {
  if (pend_.kernels > 0 || last_compute_ == kNone) {
    pend_.frees.push_back(slot);
    return;
  }
  for (int r = 0; r < R_; ++r) b_.free(last_compute_ + r, slot + r);
}

void StageEmitter::clear_attachments() {
  pend_.deps.clear();
  pend_.allocs.clear();
  pend_.frees.clear();
  pend_.recv_keys.clear();
}

// Emits everything pending: the compute, then (kStep) the step's merged
// tensor-parallel collectives. Returns the base id of the last task.
TaskId StageEmitter::flush() {
  flush_compute();
  if (side_next_) {
    // A beside collective no kernel followed (no template ends with one):
    // after the run, as the step's other tensor-parallel collectives.
    defer(*side_next_, side_next_phase_, side_next_mb_);
    side_next_.reset();
  }
  if (!deferred_.empty()) emit_deferred();
  return last_compute_;
}

// A dependency for the next task: it must not delay kernels already pending.
void StageEmitter::next_depends(std::vector<TaskId> per_rank) {
  if (pend_.kernels > 0) flush();
  pend_.deps.push_back(std::move(per_rank));
}

void StageEmitter::next_allocs(BufferId slot) {
  if (pend_.kernels > 0 && !s_.fuse) flush();
  pend_.allocs.push_back(slot);
}

// A MoE expert GEMM under an uneven router: each rank's own rows
// (ceil(routed_rows x its load)), one task per rank on its own; the rank
// of the busiest experts is the straggler the combine AllToAll waits for.
void StageEmitter::routed_gemm(const Kernel& k, Phase phase, int layer, int mb) {
  flush_compute();
  const TaskId base = b_.num_tasks();
  for (int r = 0; r < R_; ++r) {
    const double load = s_.expert_loads[static_cast<size_t>((r / s_.T) % s_.EP)];
    const auto rows = static_cast<std::int64_t>(std::ceil(k.routed_rows * load));
    const std::int64_t m = k.routed_dim == 1 ? rows : k.m;
    const std::int64_t kk = k.routed_dim == 3 ? rows : k.k;
    const TaskId id = b_.add_gemm(out_.compute[static_cast<size_t>(r)], m, k.n, kk, k.dtype,
                                  k.name, phase, k.batch);
    b_.task(id).kernel = k.kernel_class;  // an FP8 gradient's split accumulator
    // An expert's weight gradient adding into its buffer (fused gradient
    // accumulation): its own shape, the bytes that adds (the output's, the
    // same at every load; GemmMixShape::accumulate_bytes).
    if (k.accumulate_bytes > 0)
      b_.task(id).gemm_mix = b_.intern_gemm_mix(
          std::vector<GemmMixShape>{GemmMixShape{m, k.n, kk, k.batch, 1, k.accumulate_bytes}});
    b_.task(id).layer = layer;
    b_.task(id).micro_batch = mb;
    attach(id, r);
  }
  for (int key : pend_.recv_keys) link_recv(key, base);
  clear_attachments();
  last_compute_ = base;
}

// The MoE dispatch or combine AllToAll over each expert-parallel group of
// the stage: data ranks [k ep, (k+1) ep) (tensor 1, so rank r = d and the
// groups' tasks come out in rank order).
void StageEmitter::expert_collective(const Kernel& k, Phase phase, int layer, int mb) {
  flush_compute();
  const TaskId base = b_.num_tasks();
  for (int g = 0; g < s_.D / s_.EP; ++g) {
    std::vector<int> devices;
    std::vector<StreamId> streams;
    for (int j = 0; j < s_.EP; ++j) {
      const int r = g * s_.EP + j;
      devices.push_back(out_.devices[static_cast<size_t>(r)]);
      streams.push_back(out_.compute[static_cast<size_t>(r)]);
    }
    add_group_collective(k, phase, layer, mb, devices, streams);
  }
  collectives_issued(base);
}

// One collective of kernel k over `devices` on `streams`, its ranks'
// tasks tagged with the layer and micro-batch.
void StageEmitter::add_group_collective(const Kernel& k, Phase phase, int layer, int mb,
                                        const std::vector<int>& devices,
                                        const std::vector<StreamId>& streams) {
  const CollectiveId c = b_.add_collective(k.collective, CollectiveAlgorithm::kAuto, devices,
                                           k.collective_bytes, streams, k.name, phase, k.reason);
  b_.collective(c).dtype = s_.dtype;
  b_.collective(c).userbuffers = k.userbuffers;
  b_.collective(c).parts = k.collective_parts;
  for (size_t j = 0; j < devices.size(); ++j) {
    Task& task = b_.task(b_.collective_task(c, static_cast<int>(j)));
    task.layer = layer;
    task.micro_batch = mb;
  }
}

// The stage's collectives from task `base` on are issued: whatever waited
// for "the next task" waits for them.
void StageEmitter::collectives_issued(TaskId base) {
  for (int r = 0; r < R_; ++r) attach(base + r, r);
  for (int key : pend_.recv_keys) link_recv(key, base);
  clear_attachments();
  last_compute_ = base;
}

void StageEmitter::tensor_collective(const Kernel& k, Phase phase, int layer, int mb) {
  if (k.collective == CollectiveKind::kAllToAll && s_.EP > 1) {
    expert_collective(k, phase, layer, mb);
    return;
  }
  flush_compute();
  const TaskId base = b_.num_tasks();
  // Over 'tensor' x 'context' (the FP8 amax reduction's group): one
  // collective a data rank, its replicas data_rank x C + c (RankMap), the
  // tensor ranks of each; over the whole stage (kStage), one collective of
  // every replica; the tasks come out in replica order, as
  // collectives_issued attaches them.
  const int span = k.group == Kernel::Group::kStage           ? s_.D
                   : k.group == Kernel::Group::kTensorContext ? s_.C
                                                              : 1;
  for (int d = 0; d < s_.D; d += span) {
    std::vector<int> devices;
    std::vector<StreamId> streams;
    for (int c = d; c < d + span; ++c) {
      for (int dev : s_.ranks->tensor_group(c, p_)) devices.push_back(dev);
      for (int t = 0; t < s_.T; ++t)
        streams.push_back(out_.compute[static_cast<size_t>(c * s_.T + t)]);
    }
    add_group_collective(k, phase, layer, mb, devices, streams);
  }
  collectives_issued(base);
}

void StageEmitter::defer(const Kernel& k, Phase phase, int mb) {
  defer_to(deferred_, k, phase, mb);
}

void StageEmitter::defer_to(std::vector<Deferred>& list, const Kernel& k, Phase phase, int mb) {
  for (Deferred& d : list)
    if (d.kind == k.collective && d.group == k.group) {
      d.bytes += k.collective_bytes;
      ++d.count;
      d.userbuffers = d.userbuffers && k.userbuffers;
      if (std::find(d.reasons.begin(), d.reasons.end(), k.reason) == d.reasons.end())
        d.reasons.push_back(k.reason);
      return;
    }
  list.push_back(
      {k.collective, k.collective_bytes, 1, phase, mb, {k.reason}, k.userbuffers, k.group});
}

// The collective standing for a kind's deferred ones (their summed bytes),
// named `prefix` + its kind.
Kernel StageEmitter::merged(const Deferred& d, const char* prefix) {
  Kernel k;
  k.name = prefix + std::string(collective_kind_name(d.kind));
  k.is_collective = true;
  k.collective = d.kind;
  k.collective_bytes = d.bytes;
  k.userbuffers = d.userbuffers;
  k.group = d.group;
  // Timed as the d.count calls it stands for, each of the mean bytes.
  k.collective_parts = std::max(1, d.count);
  k.reason = d.reasons.front();
  if (d.count > 1) {
    k.reason = fill_args(tr_text("Reasons",
                                 "%1 tensor-parallel %2s of this pipeline step, "
                                 "merged into one (granularity step): "),
                         {std::to_string(d.count), collective_kind_name(d.kind)});
    for (size_t i = 0; i < d.reasons.size(); ++i) k.reason += (i ? " | " : "") + d.reasons[i];
  }
  return k;
}

void StageEmitter::emit_deferred() {
  std::vector<Deferred> list = std::move(deferred_);
  deferred_.clear();
  for (const Deferred& d : list) tensor_collective(merged(d, "tp."), d.phase, -1, d.mb);
}

// R buffers (one per rank device), consecutive ids.
BufferId StageEmitter::new_slot(const std::string& name, double bytes, MemoryCategory cat) {
  BufferId base = -1;
  for (int r = 0; r < R_; ++r) {
    const BufferId id = b_.add_buffer(name, out_.devices[static_cast<size_t>(r)], bytes, cat);
    if (r == 0) base = id;
  }
  return base;
}

// A data-parallel collective per tensor rank over the stage's data group,
// on the `dp` stream; returns rank r's task ids.
std::vector<TaskId> StageEmitter::data_collective(CollectiveKind kind, double bytes,
                                                  const std::string& name, Phase phase,
                                                  const std::string& reason,
                                                  std::optional<DType> dtype) {
  std::vector<TaskId> ids(static_cast<size_t>(R_));
  for (int t = 0; t < s_.T; ++t) {
    std::vector<StreamId> streams;
    for (int d = 0; d < s_.D; ++d) streams.push_back(out_.dp[static_cast<size_t>(d * s_.T + t)]);
    const CollectiveId c =
        b_.add_collective(kind, s_.sc->strategy.algorithm, s_.ranks->data_group(t, p_), bytes,
                          streams, name, phase, reason);
    b_.collective(c).dtype = dtype.value_or(s_.dtype);
    for (int d = 0; d < s_.D; ++d)
      ids[static_cast<size_t>(d * s_.T + t)] = b_.collective_task(c, d);
  }
  return ids;
}

void StageEmitter::send(int vs_to, int mb, bool forward) {
  if (s_.deepspeed) {  // held for the next step (ds_emit_send)
    ds_send_ = DsSend{vs_to, mb, forward};
    return;
  }
  const TaskId producer = flush();
  const int to_stage = vs_to % s_.P;
  const TaskId base = b_.num_tasks();
  for (int r = 0; r < R_; ++r) {
    const int peer = s_.ranks->device(r % s_.T, r / s_.T, to_stage);
    const TaskId id = b_.add_transfer(pp_[static_cast<size_t>(r)], peer,
                                      s_.scatter_gather ? s_.ds_part_bytes : boundary_bytes(),
                                      forward ? "send activations" : "send gradients",
                                      forward ? Phase::kForward : Phase::kBackward);
    b_.task(id).micro_batch = mb;
    if (producer != kNone) b_.depend(id, producer + r);
  }
  register_send(s_.key(vs_to, mb, forward), base);
  if (s_.blocking_sends) {  // batch_isend_irecv, req.wait(), torch.cuda.synchronize()
    std::vector<TaskId> sent;
    sent.reserve(static_cast<size_t>(R_));
    for (int r = 0; r < R_; ++r) sent.push_back(base + r);
    next_depends(std::move(sent));
  }
}

// The receivers of `key`, emitted before or after, wait for the sends at `base`.
void StageEmitter::register_send(int key, TaskId base) {
  s_.send_base[static_cast<size_t>(key)] = base;
  const TaskId recv = s_.recv_base[static_cast<size_t>(key)];
  if (recv != kNone)
    for (int r = 0; r < R_; ++r) b_.depend(recv + r, base + r);
  for (TaskId waiting : s_.recv_extra[static_cast<size_t>(key)])
    for (int r = 0; r < R_; ++r) b_.depend(waiting + r, base + r);
  for (const auto& [r, waiting] : s_.recv_rank_extra[static_cast<size_t>(key)])
    b_.depend(waiting, base + r);
}

// Emits the held send on the `pp` streams: after the stage's last task
// (and, after_key >= 0, after that receive), with its receiver ready; the
// stage's next task waits for it. Returns its base.
TaskId StageEmitter::ds_emit_send(int after_key) {
  const DsSend x = *ds_send_;
  ds_send_.reset();
  const TaskId before = flush();
  const int to_stage = x.vs_to % s_.P;
  const TaskId base = b_.num_tasks();
  for (int r = 0; r < R_; ++r) {
    const int peer = s_.ranks->device(r % s_.T, r / s_.T, to_stage);
    const TaskId id = b_.add_transfer(pp_[static_cast<size_t>(r)], peer, s_.ds_part_bytes,
                                      x.forward ? "send activations" : "send gradients",
                                      x.forward ? Phase::kForward : Phase::kBackward);
    b_.task(id).micro_batch = x.mb;
    if (before != kNone) b_.depend(id, before + r);
  }
  if (after_key >= 0) link_recv(after_key, base);
  const int key = s_.key(x.vs_to, x.mb, x.forward);
  register_send(key, base);
  if (const TaskId ready = s_.ds_ready[static_cast<size_t>(key)]; ready != kNone)
    for (int r = 0; r < R_; ++r) b_.depend(base + r, ready + r);
  std::vector<TaskId> ends(static_cast<size_t>(R_));
  for (int r = 0; r < R_; ++r) ends[static_cast<size_t>(r)] = base + r;
  next_depends(std::move(ends));
  return base;
}

// The step's receive (key, or -1) with the send held from the step before.
void StageEmitter::ds_exchange(int key, bool forward, int mb) {
  TaskId ready = last_compute_;
  if (ds_send_ && forward && !ds_send_->forward) {
    // Receive, then send: the send waits for the receive (link_recv).
    if (key >= 0) ds_ready_at(key, ready);
    ds_emit_send(key);
  } else {
    if (ds_send_) ready = ds_emit_send(-1);
    if (key >= 0) {
      ds_ready_at(key, ready);
      pend_.recv_keys.push_back(key);
    }
  }
  if (key < 0 || s_.T == 1) return;
  const Kernel k = boundary_gather(tr_text("Reasons",
                                           "DeepSpeed's pipeline engine sends 1/%1 of the boundary "
                                           "tensor a rank; all-gather it back over 'tensor'"));
  for (int n = 0; n < (forward ? 1 : 2); ++n)
    tensor_collective(k, forward ? Phase::kForward : Phase::kBackward, -1, mb);
}

// Megatron's receive of `key`: the next task waits for the send; with
// scatter_gather that task is the AllGather of the parts over 'tensor'
// (megatron/p2p_communication.py at 77efcccb: gather_split_1d_tensor after
// the receive, on the compute stream).
void StageEmitter::receive(int key, bool forward, int mb) {
  pend_.recv_keys.push_back(key);
  if (!s_.scatter_gather) return;
  tensor_collective(boundary_gather(tr_text("Reasons",
                                            "Megatron-LM's scatter-gather sends 1/%1 of the "
                                            "boundary tensor a rank; all-gather it back over "
                                            "'tensor'")),
                    forward ? Phase::kForward : Phase::kBackward, -1, mb);
}

// The AllGather that rebuilds the boundary tensor from its 1/T parts over
// 'tensor' (DeepSpeed's engine, Megatron-LM's scatter-gather), its reason
// `reason` with %1 the tensor degree.
Kernel StageEmitter::boundary_gather(const std::string& reason) const {
  Kernel k;
  k.is_collective = true;
  k.collective = CollectiveKind::kAllGather;
  k.collective_bytes = s_.boundary_bytes;
  k.name = "pipe.allgather";
  k.reason = fill_args(reason, {std::to_string(s_.T)});
  return k;
}

// The receiver of `key` is ready once `ready` (a base, or kNone) has ended:
// its sender's transfer, emitted before or after, starts no sooner.
void StageEmitter::ds_ready_at(int key, TaskId ready) {
  if (ready == kNone) return;
  s_.ds_ready[static_cast<size_t>(key)] = ready;
  if (const TaskId send = s_.send_base[static_cast<size_t>(key)]; send != kNone)
    for (int r = 0; r < R_; ++r) b_.depend(send + r, ready + r);
}

void StageEmitter::forward_step(const PipelineStep& st) {
  flush();
  const int vs = st.chunk * s_.P + p_;
  if (s_.deepspeed)
    ds_exchange(vs > 0 ? s_.key(vs, st.micro_batch, true) : -1, true, st.micro_batch);
  else if (vs > 0)
    receive(s_.key(vs, st.micro_batch, true), true, st.micro_batch);
  auto& blocks = blocks_of(st.chunk);
  gathered_.assign(blocks.size(), {});
  take_prefetched();
  // overlap_param_gather: the chunk's first forward of the step gathers
  // the weights the last step updated (param_gather_chain).
  pg_ = nullptr;
  if (!pg_done_.empty() && s_.v > 1) aligned_param_gathers(st);
  if (!pg_done_.empty() && !pg_done_[static_cast<size_t>(st.chunk)]) {
    pg_done_[static_cast<size_t>(st.chunk)] = 1;
    pg_ = &pg_buckets_[static_cast<size_t>(st.chunk)];
    pg_chunk_ = st.chunk;
    if (s_.v > 1) {
      // Dispatched ahead (aligned_param_gathers); one still waiting is
      // dispatched now, when its chunk's first forward starts.
      if (pg_chunk_ids_[static_cast<size_t>(st.chunk)].empty())
        issue_chunk_gathers(st.chunk, true, st.micro_batch);
      pg_ids_ = pg_chunk_ids_[static_cast<size_t>(st.chunk)];
    } else {
      pg_ids_.assign(pg_->size(), {});
    }
  }
  ++pg_forwards_;
  if (s_.fuse && s_.training) {
    // Fused modes keep one activation buffer per step (all its blocks) but
    // the head's and block recomputation's kept layers': their backward runs
    // first and frees them before the layers recompute (as the closed form
    // counts the peak). The kept layers' buffer is the chunk's first kept
    // layer's (its backward is their last).
    double saved = 0, kept = 0;
    size_t first_kept = blocks.size();
    for (size_t j = 0; j < blocks.size(); ++j) {
      const BlockTemplate* tpl = blocks[j].tpl;
      if (tpl == &s_.layer_kept) {
        kept += tpl->saved_bytes();
        first_kept = std::min(first_kept, j);
      } else if (tpl != &s_.head) {
        saved += tpl->saved_bytes();
      }
    }
    if (saved > 0) {
      const BufferId slot = new_slot("act mb" + std::to_string(st.micro_batch), saved,
                                     MemoryCategory::kActivations);
      next_allocs(slot);
      saved_slot(st.chunk, 0, st.micro_batch) = slot;
    }
    if (kept > 0) {
      const BufferId slot = new_slot("act kept mb" + std::to_string(st.micro_batch), kept,
                                     MemoryCategory::kActivations);
      next_allocs(slot);
      // (first_kept is 0 only where no layer recomputes: saved is then 0 and
      // block 0's slot free for this one.)
      saved_slot(st.chunk, first_kept, st.micro_batch) = slot;
    }
    const Block& top = blocks.back();
    if (top.tpl == &s_.head && top.tpl->saved_bytes() > 0 && blocks.size() > 1) {
      const BufferId slot = new_slot("act head mb" + std::to_string(st.micro_batch),
                                     top.tpl->saved_bytes(), MemoryCategory::kActivations);
      next_allocs(slot);
      saved_slot(st.chunk, blocks.size() - 1, st.micro_batch) = slot;
    }
  }
  // Inference keeps nothing for a backward, but a block's kernels still need
  // their outputs while it runs: one block's working set (what its kernels
  // write, saved_bytes) at a time; fused modes hold the largest for the step.
  BufferId working = -1;
  if (!s_.training && s_.fuse) {
    double bytes = 0;
    for (const Block& blk : blocks) bytes = std::max(bytes, blk.tpl->saved_bytes());
    if (bytes > 0) {
      working = new_slot("working set mb" + std::to_string(st.micro_batch), bytes,
                         MemoryCategory::kActivations);
      next_allocs(working);
    }
  }
  for (size_t j = 0; j < blocks.size(); ++j) forward_block(blocks, j, st);
  amax_reduction(st, true);
  if (working >= 0) free_after_last(working);
  if (vs < s_.V - 1) send(vs + 1, st.micro_batch, true);
}

void StageEmitter::backward_step(const PipelineStep& st, bool completing, bool first) {
  flush();
  const int vs = st.chunk * s_.P + p_;
  if (s_.deepspeed)
    ds_exchange(vs < s_.V - 1 ? s_.key(vs, st.micro_batch, false) : -1, false, st.micro_batch);
  else if (vs < s_.V - 1)
    receive(s_.key(vs, st.micro_batch, false), false, st.micro_batch);
  auto& blocks = blocks_of(st.chunk);
  gathered_.assign(blocks.size(), {});
  take_prefetched();
  // Backward visits the blocks in reverse; gathers follow that order.
  std::vector<size_t> order;
  for (size_t j = blocks.size(); j-- > 0;) order.push_back(j);
  step_recompute_ = -1;
  // kStep: the step's recomputation runs first, as one task (with ZeRO-3
  // the gathers force block boundaries, so it stays interleaved).
  // The blocks before the first that recomputes (the head) run their
  // backward first and free their activations, as without hoisting.
  const bool hoist = s_.fuse_collectives && s_.zero < 3;
  size_t i = 0;
  if (hoist) {
    for (; i < order.size() && blocks[order[i]].tpl->recompute.empty(); ++i)
      backward_block(blocks, order, i, st, completing, first, hoist);
    for (size_t k = i; k < order.size(); ++k)
      recompute_block(blocks, blocks[order[k]], st.micro_batch);
  }
  for (; i < order.size(); ++i) backward_block(blocks, order, i, st, completing, first, hoist);
  if (s_.fuse) {
    const BufferId saved = saved_slot(st.chunk, 0, st.micro_batch);
    if (saved >= 0) free_after_last(saved);
    if (step_recompute_ >= 0) free_after_last(step_recompute_);
  }
  amax_reduction(st, false);
  if (vs > 0) send(vs - 1, st.micro_batch, false);
}

// FP8 delayed scaling's amax reduction at the end of a chunk's pass (one
// with layers): after its blocks, before its send, on the compute stream.
// (Transformer Engine's backward one runs after the first layer's QKV
// module, before the embedding's backward on the first chunk: here after
// it, a few microseconds later for the embedding's gradient alone.)
void StageEmitter::amax_reduction(const PipelineStep& st, bool forward) {
  if (amax_.empty() || s_.split.layers(st.chunk * s_.P + p_) == 0) return;
  for (const Kernel& k : forward ? amax_.forward : amax_.backward)
    add_kernel(k, forward ? Phase::kForward : Phase::kBackward, -1, st.micro_batch);
}

// Fused modes: one buffer per step for recomputed activations, sized for
// one block (blocks recompute one after another and free as they go).
void StageEmitter::recompute_block(const std::vector<Block>& blocks, const Block& blk, int mb) {
  const BlockTemplate& tpl = *blk.tpl;
  if (tpl.recompute.empty()) return;
  if (step_recompute_ < 0) {
    // Allocated when the recomputation starts, not with the fused task
    // before it (the head's backward, which frees the head's activations).
    if (pend_.kernels > 0 && pend_.phase != Phase::kRecompute) flush();
    double bytes = 0;
    for (const Block& b : blocks) bytes = std::max(bytes, b.tpl->recompute_saved_bytes());
    if (bytes > 0) {
      step_recompute_ =
          new_slot("recomp mb" + std::to_string(mb), bytes, MemoryCategory::kActivations);
      next_allocs(step_recompute_);
    }
  }
  for (const Kernel& k : tpl.recompute) add_kernel(k, Phase::kRecompute, blk.layer, mb);
}

// ZeRO-3 (FSDP): gather a block's parameters over 'data' before it
// computes; the gather of the next block is issued when this one starts
// (one block of prefetch, as FSDP's limit_all_gathers), so at most two
// blocks are whole at a time; at a step's end, prefetch_next_step. With
// strategy.overlap false nothing is prefetched: each block's gather runs
// when the block before has ended, and the next block's waits behind its
// reduce-scatter on the one 'data' stream (zero3_prefetches).
void StageEmitter::gather(std::vector<Block>& blocks, size_t j, Phase phase, int mb) {
  if (s_.zero < 3 || s_.D <= 1 || !gathered_[j].ids.empty()) return;
  if (blocks[j].gather_elements <= 0) return;
  gathered_[j] = issue_gather(blocks[j], phase, mb);
}

StageEmitter::Gathered StageEmitter::issue_gather(const Block& blk, Phase phase, int mb) {
  const TaskId after = flush();
  const double bytes = blk.gather_elements * s_.e;
  const BufferId slot = new_slot("gathered " + blk.label, bytes, MemoryCategory::kParams);
  auto ids =
      data_collective(CollectiveKind::kAllGather, bytes, "zero3.gather", phase,
                      fill_args(tr_text("Reasons",
                                        "ZeRO-3: each data replica keeps 1/%1 of %2's "
                                        "parameters; all-gather them over 'data' before use"),
                                {std::to_string(s_.D), blk.label}));
  for (int r = 0; r < R_; ++r) {
    b_.task(ids[static_cast<size_t>(r)]).layer = blk.layer;
    b_.task(ids[static_cast<size_t>(r)]).micro_batch = mb;
    b_.alloc(ids[static_cast<size_t>(r)], slot + r);
    if (after != kNone) b_.depend(ids[static_cast<size_t>(r)], after + r);
  }
  return {std::move(ids), slot};
}

// Whether the prefetch crosses from this step into the next
// (strategy.zero3_prefetch): across_passes as FSDP's, which follows the
// execution order, not the module tree (the last block of a step gathers
// the first block of the next step on this stage, the next micro-batch's
// or chunk's, so a step's first gather does not wait in the open);
// per_micro_batch as DeepSpeed's coordinator, whose one trace runs from a
// forward into the backward and is reset when a forward starts (so only
// into a backward); per_pass never (every step's first gather waits).
void StageEmitter::prefetch_next_step() {
  if (s_.zero < 3 || s_.D <= 1 || next_step_ == nullptr) return;
  const PipelineStep& nx = *next_step_;
  switch (s_.sc->strategy.zero3_prefetch) {
    case Zero3Prefetch::kPerPass:
      return;
    case Zero3Prefetch::kPerMicroBatch:
      if (nx.forward) return;
      break;
    case Zero3Prefetch::kAcrossPasses:
      break;
  }
  const std::vector<Block>& blocks = blocks_of(nx.chunk);
  const size_t j = nx.forward ? 0 : blocks.size() - 1;
  if (blocks[j].gather_elements <= 0) return;
  prefetched_ =
      issue_gather(blocks[j], nx.forward ? Phase::kForward : Phase::kBackward, nx.micro_batch);
  prefetched_index_ = j;
}

void StageEmitter::take_prefetched() {
  if (prefetched_.ids.empty()) return;
  gathered_[prefetched_index_] = std::move(prefetched_);
  prefetched_ = Gathered{};
}

void StageEmitter::use_gathered(size_t j) {
  if (!gathered_[j].ids.empty()) next_depends(gathered_[j].ids);
}

void StageEmitter::forward_block(std::vector<Block>& blocks, size_t j, const PipelineStep& st) {
  const Block& blk = blocks[j];
  if (pg_ != nullptr) param_gather_chain(j, st.micro_batch);
  gather(blocks, j, Phase::kForward, st.micro_batch);
  if (!zero3_prefetches())
    ;
  else if (j + 1 < blocks.size())
    gather(blocks, j + 1, Phase::kForward, st.micro_batch);
  else
    prefetch_next_step();
  use_gathered(j);
  const double saved = blk.tpl->saved_bytes();
  if (s_.training && saved > 0 && !s_.fuse) {
    const BufferId slot =
        new_slot("activations " + blk.label + " mb" + std::to_string(st.micro_batch), saved,
                 MemoryCategory::kActivations);
    next_allocs(slot);
    saved_slot(st.chunk, j, st.micro_batch) = slot;
  }
  BufferId working = -1;
  if (!s_.training && saved > 0 && !s_.fuse) {
    working = new_slot("working set " + blk.label + " mb" + std::to_string(st.micro_batch), saved,
                       MemoryCategory::kActivations);
    next_allocs(working);
  }
  for (const Kernel& k : blk.tpl->forward)
    add_kernel(k, Phase::kForward, blk.layer, st.micro_batch);
  if (working >= 0) {
    // Freed by the block's last compute task (not the next block's first, which
    // allocates the next working set).
    const TaskId last = flush();
    for (int r = 0; r < R_ && last != kNone; ++r) b_.free(last + r, working + r);
  }
  if (!gathered_[j].ids.empty()) free_after_last(gathered_[j].slot);
}

void StageEmitter::backward_block(std::vector<Block>& blocks, const std::vector<size_t>& order,
                                  size_t i, const PipelineStep& st, bool completing, bool first,
                                  bool recomputed) {
  const size_t j = order[i];
  const Block& blk = blocks[j];
  const BlockTemplate& tpl = *blk.tpl;
  gather(blocks, j, Phase::kBackward, st.micro_batch);
  if (!zero3_prefetches())
    ;
  else if (i + 1 < order.size())
    gather(blocks, order[i + 1], Phase::kBackward, st.micro_batch);
  else
    prefetch_next_step();
  use_gathered(j);
  const int mb = st.micro_batch;
  // ZeRO-3: this block's unsharded gradient lives from its first backward
  // kernel to its reduce-scatter.
  BufferId grad_slot = -1;
  if (s_.zero >= 3 && s_.D > 1 && blk.owned_elements > 0) {
    grad_slot = new_slot("gradients " + blk.label + " mb" + std::to_string(mb),
                         blk.owned_elements * s_.e, MemoryCategory::kGrads);
    next_allocs(grad_slot);
  }
  BufferId recompute_slot = -1;
  auto run_recompute = [&] {
    if (tpl.recompute.empty() || recomputed) return;
    if (s_.fuse) {
      recompute_block(blocks, blk, mb);
      return;
    }
    const double bytes = tpl.recompute_saved_bytes();
    if (bytes > 0) {
      recompute_slot = new_slot("recomputed " + blk.label + " mb" + std::to_string(mb), bytes,
                                MemoryCategory::kActivations);
      next_allocs(recompute_slot);
    }
    for (const Kernel& k : tpl.recompute) add_kernel(k, Phase::kRecompute, blk.layer, mb);
  };
  for (size_t k = 0; k < tpl.backward.size(); ++k) {
    if (static_cast<int>(k) == tpl.recompute_before) run_recompute();
    const Kernel& kern = tpl.backward[k];
    const ParamGroup* group = nullptr;
    if (blk.tpl == &s_.head && blk.tied_group >= 0) {
      // The logits' weight gradient finishes the head's tied copy.
      if (kern.name == "head.logits.wgrad") group = &blk.owned[static_cast<size_t>(blk.tied_group)];
    } else if (kern.completes_grad >= 0 &&
               kern.completes_grad < static_cast<int>(blk.owned.size())) {
      group = &blk.owned[static_cast<size_t>(kern.completes_grad)];
    }
    if (group && first && s_.zero == 2 && s_.D > 1) {
      const BufferId slot = new_slot("gradients " + blk.label + " " + group->name,
                                     group->local_elements() * s_.e, MemoryCategory::kGrads);
      next_allocs(slot);
      zero2_slots_[group_key(blk, *group)] = slot;
    }
    add_kernel(kern, Phase::kBackward, blk.layer, mb);
    if (group && completing && s_.zero < 3 && s_.D > 1 && !group->expert) grad_ready(blk, *group);
  }
  if (static_cast<int>(tpl.backward.size()) == tpl.recompute_before) run_recompute();
  if (s_.training && (!s_.fuse || (j > 0 && blk.tpl == &s_.head) || blk.tpl == &s_.layer_kept)) {
    BufferId& saved = saved_slot(st.chunk, j, mb);
    if (saved >= 0) free_after_last(saved);
    saved = -1;  // (not freed again at the fused step's end)
  }
  if (recompute_slot >= 0) free_after_last(recompute_slot);
  if (!gathered_[j].ids.empty()) free_after_last(gathered_[j].slot);
  if (grad_slot >= 0) {
    const TaskId producer = flush();
    auto ids = data_collective(CollectiveKind::kReduceScatter, blk.owned_elements * s_.e,
                               "zero3.reduce_scatter", Phase::kBackward,
                               fill_args(tr_text("Reasons",
                                                 "ZeRO-3: sum %1's gradients over 'data', each "
                                                 "replica keeping its 1/%2 shard"),
                                         {blk.label, std::to_string(s_.D)}));
    for (int r = 0; r < R_; ++r) {
      const TaskId id = ids[static_cast<size_t>(r)];
      b_.task(id).layer = blk.layer;
      b_.task(id).micro_batch = mb;
      b_.depend(id, producer + r);
      b_.free(id, grad_slot + r);
    }
    if (completing)
      for (int r = 0; r < R_; ++r)
        out_.grad_sync[static_cast<size_t>(r)].push_back(ids[static_cast<size_t>(r)]);
  }
}

std::string StageEmitter::group_key(const Block& blk, const ParamGroup& g) {
  return blk.label + "/" + g.name;
}

void StageEmitter::grad_ready(const Block& blk, const ParamGroup& g) {
  bucket_.bytes += g.local_elements() * s_.g;
  bucket_.groups.push_back(group_key(blk, g));
  if (s_.zero == 2) bucket_.zero2_slots.push_back(zero2_slots_[group_key(blk, g)]);
  if (bucket_.bytes >= s_.sc->strategy.bucket_bytes) close_bucket();
}

void StageEmitter::close_bucket() {
  if (bucket_.groups.empty()) return;
  bucket_.producer = flush();
  if (s_.sc->strategy.overlap)
    emit_bucket(bucket_, bucket_.producer);
  else
    deferred_buckets_.push_back(bucket_);
  bucket_ = Bucket{};
}

void StageEmitter::emit_bucket(const Bucket& bk, TaskId after) {
  const int index = static_cast<int>(out_.buckets.size());
  // ZeRO-1 and -2 reduce-scatter: a replica updates only its shard, so it
  // needs only that shard's sum (with the all-gather after the step, the
  // same volume as an all-reduce; Rajbhandari et al. 2020, Sec. 7.2.1).
  const bool rs = s_.zero >= 1;
  std::string what = bk.groups.front();
  if (bk.groups.size() > 1) what += " .. " + bk.groups.back();
  // The part before "; this bucket:" is the same for every bucket (explain
  // groups by it).
  const std::string reason =
      (rs ? fill_args(tr_text("Reasons",
                              "ZeRO-%1: sum the gradients over 'data' bucket by "
                              "bucket, each replica keeping the 1/%2 shard it updates"),
                      {std::to_string(s_.zero), std::to_string(s_.D)})
          : tr_text("Reasons",
                    "data parallel: average the gradients over 'data' (the sauce bowl) "
                    "bucket by bucket, each as soon as the backward has produced it")) +
      fill_args(tr_text("Reasons", "; this bucket: %1"), {what});
  auto ids = data_collective(rs ? CollectiveKind::kReduceScatter : CollectiveKind::kAllReduce,
                             bk.bytes, "grad bucket " + std::to_string(index), Phase::kBackward,
                             reason, s_.grad_dtype);
  for (int r = 0; r < R_; ++r) {
    const TaskId id = ids[static_cast<size_t>(r)];
    if (after != kNone) b_.depend(id, after + r);
    for (BufferId slot : bk.zero2_slots) b_.free(id, slot + r);
    out_.grad_sync[static_cast<size_t>(r)].push_back(id);
  }
  out_.buckets.push_back(bk.bytes);
}

BufferId& StageEmitter::saved_slot(int chunk, size_t j, int mb) {
  auto& c = saved_[static_cast<size_t>(chunk)];
  const size_t n = blocks_of(chunk).size() * static_cast<size_t>(s_.m);
  if (c.size() != n) c.assign(n, -1);
  return c[j * static_cast<size_t>(s_.m) + static_cast<size_t>(mb)];
}

Result<StageOut> emit_stage(ProgramBuilder& b, Setup& s, int p) { return StageEmitter(b, s, p).run(); }

}  // namespace brigade::planner::detail
