// The transformer lowering's pending run of kernels (StageEmitter,
// lower_transformer_stage_emitter.hpp): each kernel the stage emits joins
// the run (add_kernel), or goes its own way (collectives, an uneven
// router's GEMMs, a context ring's blocks); flush_compute emits the run as
// one task per part and rank at region and step granularity, one per
// kernel at kernel granularity.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "planner/lower_transformer_stage_emitter.hpp"

namespace brigade::planner::detail {

// Emits the pending kernel(s) as one task per rank; returns the base id
// (or the last task's when nothing was pending).
TaskId StageEmitter::flush_compute() {
  if (pend_.kernels == 0) return last_compute_;
  const TaskId before = last_compute_;
  int parts = 0;
  for (const Part& x : pend_.parts) parts += x.n > 0;
  if (parts == 0 && pend_.pairs.back().coll.count > 0) {
    // A run of pairs alone whose last has a collective: its GEMMs join its
    // parts and its collectives go beside the whole run (side_segment), for
    // want of a task after the last pair to wait for its collective (a
    // held GEMM alone last waits for the one before it: no need).
    for (SidePair& x : pend_.pairs) {
      Part& part = pend_.parts[static_cast<size_t>(x.kind)];
      if (part.n == 0) part.first = x.gemm.first;
      part.n += x.gemm.n;
      part.flops += x.gemm.flops;
      part.bytes += x.gemm.bytes;
      for (const GemmMixShape& g : x.gemm.shapes) {
        auto same =
            std::find_if(part.shapes.begin(), part.shapes.end(), [&](const GemmMixShape& h) {
              return h.m == g.m && h.n == g.n && h.k == g.k && h.batch == g.batch;
            });
        if (same == part.shapes.end())
          part.shapes.push_back(g);
        else
          same->count += g.count;
      }
      if (x.coll.count == 0) continue;
      auto same = std::find_if(side_.begin(), side_.end(),
                               [&](const Deferred& d) { return d.kind == x.coll.kind; });
      if (same == side_.end()) {
        side_.push_back(x.coll);
        continue;
      }
      same->bytes += x.coll.bytes;
      same->count += x.coll.count;
      same->userbuffers = same->userbuffers && x.coll.userbuffers;
      for (const std::string& why : x.coll.reasons)
        if (std::find(same->reasons.begin(), same->reasons.end(), why) == same->reasons.end())
          same->reasons.push_back(why);
    }
    pend_.pairs.clear();
    for (const Part& x : pend_.parts) parts += x.n > 0;
  }
  const int tasks = parts + static_cast<int>(pend_.pairs.size());
  int emitted = 0;
  TaskId first_base = -1;
  TaskId side = kNone;  // the last pair's collective (rank r's at side + r)
  // Short names (interned once; no allocation per task).
  const std::string fused = std::string(phase_name(pend_.phase)) + " fused";
  static constexpr const char* kPartNames[kParts] = {
      " gemms",
      " fp8 gemms",
      " fp8 split-accumulator gemms",
      " gemms beside communication",
      " fp8 gemms beside communication",
      " fp8 split-accumulator gemms beside communication",
      " memory",
      " attention gemms",
      " attention memory",
      " norm",
      " norm backward",
      " activation",
      " activation backward",
      " gated activation",
      " gated activation backward",
      " flash attention",
      " flash attention backward"};
  // The class each part's tasks carry (the attention core's: the run's).
  static constexpr KernelClass kPartClass[kParts] = {
      KernelClass::kGeneric,               // gemms
      KernelClass::kGeneric,               // fp8 gemms
      KernelClass::kGemmSplitAccumulator,  // fp8 split-accumulator gemms
      KernelClass::kGeneric,               // gemms beside communication
      KernelClass::kGeneric,               // fp8 gemms beside communication
      KernelClass::kGemmSplitAccumulator,  // fp8 split-accumulator gemms beside communication
      KernelClass::kGeneric,               // memory
      KernelClass::kGeneric,               // attention gemms (the run's core class)
      KernelClass::kGeneric,               // attention memory (the run's core class)
      KernelClass::kNormForward,
      KernelClass::kNormBackward,
      KernelClass::kActivationForward,
      KernelClass::kActivationBackward,
      KernelClass::kGatedForward,
      KernelClass::kGatedBackward,
      KernelClass::kFlashForward,
      KernelClass::kFlashBackward};
  // One task a rank for `part` (of kind `kind`), named `fused_name` when
  // it fuses several kernels; after the previous pair's collective where
  // there is one (`side`).
  auto emit = [&](const Part& part, PartKind kind, const std::string& fused_name) {
    const bool flash = kind == kFlashForwardPart || kind == kFlashBackwardPart;
    const bool gemm = kind == kGemmPart || kind == kGemm8Part || kind == kGemm8SplitPart ||
                      kind == kGemmHeldPart || kind == kGemm8HeldPart ||
                      kind == kGemm8SplitHeldPart || kind == kCoreGemmPart || flash;
    const bool core = kind == kCoreGemmPart || kind == kCoreMemoryPart;
    const bool first = emitted == 0, last = ++emitted == tasks;
    const TaskId base = b_.num_tasks();
    const int n = part.n;
    const Kernel& k = part.first;
    const std::string name = n == 1 ? k.name : fused_name;
    std::uint16_t mix = 0;  // the part's GEMM shapes, interned once for its ranks
    for (int r = 0; r < R_; ++r) {
      const StreamId st = out_.compute[static_cast<size_t>(r)];
      TaskId id;
      if (flash) {
        // FlashAttention kernels of one shape, one or a run of them: their
        // class, sequence and head dimension for the measured rates, and
        // their launches (a ring kernel's blocks each launch: ring_steps).
        id = b_.add_fixed(st, part.flops, part.bytes, k.dtype, name, pend_.phase);
        b_.task(id).kernel = k.kernel_class;
        b_.task(id).m = k.m;
        b_.task(id).k = k.k;
        b_.task(id).batch = static_cast<std::int64_t>(n) * std::max(1, k.ring_steps);
      } else if (gemm && n == 1) {
        id = b_.add_gemm(st, k.m, k.n, k.k, k.dtype, name, pend_.phase, k.batch);
        // A GEMM adding into the gradient buffer: its own shape, with the
        // bytes that adds (Task::gemm_mix, GemmMixShape::accumulate_bytes).
        if (k.accumulate_bytes > 0) {
          if (r == 0) mix = b_.intern_gemm_mix(part.shapes);
          b_.task(id).gemm_mix = mix;
        }
      } else if (gemm) {
        id = b_.add_fixed(st, part.flops, part.bytes, k.dtype, name, pend_.phase);
        if (r == 0 && !part.shapes.empty()) mix = b_.intern_gemm_mix(part.shapes);
        b_.task(id).gemm_mix = mix;
      } else
        id = b_.add_memory_bound(st, part.bytes, k.dtype, name, pend_.phase);
      Task& t = b_.task(id);
      if (n > 1 && !flash) t.batch = n;  // the kernels it fuses (core/program.hpp, fused_kernels)
      if (gemm) t.sm_held = static_cast<std::uint8_t>(k.sm_held);  // alike in a held part
      if (core) t.kernel = pend_.core;
      // (A flash part keeps its kernel's class: FlashAttention-2's or cuDNN's.)
      if (!flash && kPartClass[kind] != KernelClass::kGeneric) t.kernel = kPartClass[kind];
      t.layer = pend_.layer;
      t.micro_batch = pend_.mb;
      if (side != kNone) b_.depend(id, side + r);
      if (first) {
        for (const auto& d : pend_.deps) b_.depend(id, d[static_cast<size_t>(r)]);
        for (BufferId a : pend_.allocs) b_.alloc(id, a + r);
      }
      if (last)
        for (BufferId f : pend_.frees) b_.free(id, f + r);
    }
    if (first) first_base = base;
    last_compute_ = base;
  };
  // The pairs: each collective issued with its GEMM (after what precedes
  // both), the GEMM after the previous pair's collective; the run's first
  // other part after the last pair's.
  for (const SidePair& x : pend_.pairs) {
    if (x.coll.count == 0) {  // a held GEMM alone
      emit(x.gemm, x.kind, fused + " " + x.gemm.first.name);
      side = kNone;
      continue;
    }
    const Kernel k = merged(x.coll, "tp.beside.");
    const TaskId base = b_.num_tasks();
    for (int g = 0; g < s_.D; ++g) {
      std::vector<StreamId> streams;
      for (int t = 0; t < s_.T; ++t) streams.push_back(tp_[static_cast<size_t>(g * s_.T + t)]);
      add_group_collective(k, x.coll.phase, -1, x.coll.mb, s_.ranks->tensor_group(g, p_), streams);
    }
    if (emitted == 0)
      start_with_run(base, before);
    else
      for (int r = 0; r < R_; ++r) b_.depend(base + r, last_compute_ + r);
    emit(x.gemm, x.kind,
         fused + " " + x.gemm.first.name + " beside " +
             std::string(collective_kind_name(x.coll.kind)));
    side = base;
  }
  for (int kind = 0; kind < kParts; ++kind) {
    const Part& part = pend_.parts[static_cast<size_t>(kind)];
    if (part.n == 0) continue;
    emit(part, static_cast<PartKind>(kind), fused + kPartNames[kind]);
    side = kNone;
  }
  for (int key : pend_.recv_keys) link_recv(key, first_base);
  if (ring_bytes_ > 0) ring_segment(before);
  if (!side_.empty()) side_segment(before);
  clear_attachments();
  pend_.kernels = 0;
  pend_.pairs.clear();
  for (Part& x : pend_.parts) x.n = 0, x.flops = x.bytes = 0, x.shapes.clear();
  pend_.core = KernelClass::kGeneric;
  return last_compute_;
}

// The class a run of fused kernels keeps apart: an attention core's
// passes (their own streaming efficiency); every other class kGeneric
// (FlashAttention's kernels are a part of their own by class: add below).
KernelClass StageEmitter::attention_core_class(const Kernel& k) {
  return k.kernel_class == KernelClass::kAttentionForward ||
                 k.kernel_class == KernelClass::kAttentionBackward
             ? k.kernel_class
             : KernelClass::kGeneric;
}

// The part a streaming kernel outside the attention core joins: its
// class's (norms, activations), else the run's other memory-bound kernels.
StageEmitter::PartKind StageEmitter::memory_part(KernelClass k) {
  switch (k) {
    case KernelClass::kNormForward:
      return kNormForwardPart;
    case KernelClass::kNormBackward:
      return kNormBackwardPart;
    case KernelClass::kActivationForward:
      return kActivationForwardPart;
    case KernelClass::kActivationBackward:
      return kActivationBackwardPart;
    case KernelClass::kGatedForward:
      return kGatedForwardPart;
    case KernelClass::kGatedBackward:
      return kGatedBackwardPart;
    default:
      return kMemoryPart;
  }
}

void StageEmitter::add_kernel(const Kernel& k, Phase phase, int layer, int mb) {
  if (k.is_collective && k.beside && !tp_.empty()) {
    if (s_.fuse_collectives) {
      // Paired with the next kernel (above); one still waiting for its
      // kernel goes beside the whole run (side_segment).
      if (side_next_) defer_to(side_, *side_next_, side_next_phase_, side_next_mb_);
      side_next_ = k;
      side_next_phase_ = phase;
      side_next_mb_ = mb;
    } else
      beside_collective(k, phase, layer, mb);
    return;
  }
  if (k.is_collective && s_.fuse_collectives) {
    defer(k, phase, mb);
    return;
  }
  if (k.is_collective) {
    tensor_collective(k, phase, layer, mb);
    return;
  }
  if (k.routed_dim != 0 && s_.uneven_experts) {
    routed_gemm(k, phase, layer, mb);
    return;
  }
  if (k.ring_steps > 1 && !s_.fuse_collectives) {
    ring_kernel(k, phase, layer, mb);
    return;
  }
  // kStep: the ring's hops of the fused run go as one transfer (below).
  if (k.ring_steps > 1) ring_bytes_ += (k.ring_steps - 1) * k.ring_bytes;
  const KernelClass core = attention_core_class(k);
  const bool other_core =
      core != KernelClass::kGeneric && pend_.core != KernelClass::kGeneric && pend_.core != core;
  if (pend_.kernels > 0 && (!s_.fuse || pend_.phase != phase || pend_.mb != mb || other_core))
    flush_compute();
  if (pend_.kernels == 0) {
    pend_.phase = phase;
    pend_.layer = layer;
    pend_.mb = mb;
  }
  if (core != KernelClass::kGeneric) pend_.core = core;
  ++pend_.kernels;
  if (side_next_) {
    // kStep: the kernel a collective runs beside; identical pairs of the
    // run merge (SidePair).
    const PartKind kind = part_of(k);
    SidePair& pair = side_pair(side_next_->name + '|' + k.name + '|' + std::to_string(kind), kind);
    std::vector<Deferred> one;
    if (pair.coll.count > 0) one.push_back(std::move(pair.coll));
    defer_to(one, *side_next_, side_next_phase_, side_next_mb_);
    pair.coll = std::move(one.front());
    add_to_part(pair.gemm, k, kind);
    side_next_.reset();
    return;
  }
  const PartKind kind = part_of(k);
  const bool held = kind == kGemmHeldPart || kind == kGemm8HeldPart || kind == kGemm8SplitHeldPart;
  if (held && s_.fuse_collectives) {
    // kStep: a GEMM on the SMs a collective left it (its own, k.sm_held)
    // and no collective beside it (the first of a pipelined overlap's
    // chunks): a task with the run's identical ones, as the pairs, since
    // the layer's overlaps hold back SMs by their own settings.
    add_to_part(side_pair(std::string("|") + k.name + '|' + std::to_string(kind), kind).gemm, k,
                kind);
    return;
  }
  add_to_part(pend_.parts[static_cast<size_t>(kind)], k, kind);
  // The GEMM a collective runs beside: a task of its own, and whatever
  // comes next waits for the collective too.
  if (beside_ != kNone) {
    std::vector<TaskId> ids(static_cast<size_t>(R_));
    for (int r = 0; r < R_; ++r) ids[static_cast<size_t>(r)] = beside_ + r;
    beside_ = kNone;
    next_depends(std::move(ids));
  }
}

// The pending run's entry of `key` (SidePair), added if it has none.
StageEmitter::SidePair& StageEmitter::side_pair(const std::string& key, PartKind kind) {
  for (SidePair& x : pend_.pairs)
    if (x.key == key) return x;
  pend_.pairs.push_back(SidePair{key, kind, {}, {}});
  return pend_.pairs.back();
}

// The part of a fused run a kernel joins.
StageEmitter::PartKind StageEmitter::part_of(const Kernel& k) const {
  const bool held = k.sm_held > 0;
  if (k.dtype == DType::kFP8 && s_.dtype != DType::kFP8) {
    const bool split = k.kernel_class == KernelClass::kGemmSplitAccumulator;
    return held ? (split ? kGemm8SplitHeldPart : kGemm8HeldPart)
                : (split ? kGemm8SplitPart : kGemm8Part);
  }
  // The templates' one fused kernel, FlashAttention's (flash_kernel,
  // costmodel/transformer_blocks_layer.cpp): a part each way.
  if (k.compute == ComputeKind::kFixed)
    return is_fused_attention_backward(k.kernel_class) ? kFlashBackwardPart : kFlashForwardPart;
  const bool is_core = attention_core_class(k) != KernelClass::kGeneric;
  if (k.compute == ComputeKind::kGemm)
    return held ? kGemmHeldPart : is_core ? kCoreGemmPart : kGemmPart;
  return is_core ? kCoreMemoryPart : memory_part(k.kernel_class);
}

// Adds kernel `k` of part kind `kind` to `part`: its FLOPs and bytes (a
// GEMM's operands and output), its shape among the part's GEMMs.
void StageEmitter::add_to_part(Part& part, const Kernel& k, PartKind kind) {
  if (part.n++ == 0) part.first = k;
  const bool gemm = k.compute == ComputeKind::kGemm;
  part.flops += k.compute == ComputeKind::kMemoryBound ? 0.0 : k.flops();
  part.bytes += gemm ? gemm_bytes(k.m, k.n, k.k, k.dtype, k.batch) : k.bytes;
  if (!gemm || kind == kCoreGemmPart) return;
  for (GemmMixShape& g : part.shapes)
    if (g.m == k.m && g.n == k.n && g.k == k.k && g.batch == k.batch &&
        g.accumulate_bytes == k.accumulate_bytes) {
      ++g.count;
      return;
    }
  part.shapes.push_back(GemmMixShape{k.m, k.n, k.k, k.batch, 1, k.accumulate_bytes});
}

}  // namespace brigade::planner::detail
