// The closed form's pipeline order walk (pipeline_step,
// costmodel/plan_transformer_step.cpp): each stage's forwards and backwards
// micro-batch by micro-batch in the planner's order, with each stage's
// gradient buckets (interleaved) or ZeRO-3 gathers and reduce-scatters on
// its data stream beside them; and its extension by the order's period.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "core/scenario.hpp"
#include "costmodel/plan_stage.hpp"

namespace brigade::cost::detail {

// The pipeline's order walked micro-batch by micro-batch, each stage in its
// own order (the planner's pipeline_schedule: GPipe, 1F1B, or with v > 1
// chunks a stage Megatron-LM's interleaved 1F1B): virtual stage vs = c p + i
// is chunk c of stage i; `f`, `b`: each virtual stage's forward and
// backward of one micro-batch (indexed by vs); `to_next`, `to_previous`:
// each stage's send to stage i + 1 and i - 1 (mod p). A forward waits for
// its own step before and virtual stage vs - 1's forward of that
// micro-batch and its send; a backward for its own step before and vs + 1's
// backward and its send (the last virtual stage's for its own forward).
// One chunk: `last_extra`, what a stage's last backward takes more (its
// buckets' NCCL kernels beside it), `first_extra` its first forward
// (waiting for its parameter gathers); empty elsewhere. Writes each stage's
// last backward's end (chunk 0's, of the last micro-batch, or GPipe's
// first). Interleaved, m is a multiple of p (check_plan). (The simulator's
// path at stage granularity: exact where a stage's micro-batches take the
// same time.)
//
// With `buckets` (one a stage; interleaved, buckets overlapped), each
// stage's gradient buckets run on its own stream beside its backwards, as
// the planner's: a bucket is ready where the chunk's last backward completes
// it, waits for the one before, and while it runs the backward's kernels
// lose the share of the SMs its NCCL kernel takes (`b_work`: the part of a
// backward they slow; the rest, its blocking sends, after it), except in
// the chunk's full-rate stretches (ChunkBuckets). Writes each stage's
// buckets' end after the p ends.
//
// With `zero3` (one a stage; ZeRO-3 over a pipeline), each pass
// is walked block by block with its gathers and reduce-scatters on the
// stage's one 'data' stream (zero3_pass), `f_extra`, `b_extra` (each virtual
// stage's blocking sends and AllGathers) after it. Writes each stage's
// stream's end after the p ends.
struct ChunkOrder {
  PipelineSchedule schedule;
  int p, v;
  std::span<const double> f, b, to_next, to_previous;
  std::span<const double> b_work;
  std::span<const ChunkBuckets> buckets;
  std::span<const double> last_extra, first_extra;
  std::span<const Zero3Stage> zero3 = {};
  std::span<const double> f_extra = {}, b_extra = {};
  Zero3Prefetch mode = Zero3Prefetch::kPerPass;
  bool prefetch = true;  // strategy.overlap: without it no gather goes ahead
};
void chunk_order_ends(const ChunkOrder& o, std::int64_t m, std::vector<double>& ends);

// A collective on a stage's 'data' stream, from its start to its end, and the
// share of the SMs its NCCL kernel takes from the kernels beside it.
struct StreamRun {
  double from, to, share;
};

// Compute `work` seconds at the whole rate from `t` beside `runs` (in time
// order; `next`, the first not over at `t`, moves with it): while one runs,
// at 1 - its share, but for `full` of the work (tensor-parallel
// collectives, which the data stream's NCCL kernels do not slow), taken as
// spread through it. The time the work ends. (ZeRO-3's passes:
// zero3_pass here, zero3_walk in plan_data_parallel.cpp.)
double compute_beside(const std::vector<StreamRun>& runs, size_t& next, double t, double work,
                      double full);

// FP8 delayed scaling's amax reduction `a` from `t` beside `runs` (as
// compute_beside), in its order: its kernels slowed while a run is beside
// them, its AllReduce not. The time it ends.
double amax_beside(const std::vector<StreamRun>& runs, size_t& next, double t, const Zero3Amax& a);

// Each stage's end for m micro-batches of `o`'s order (chunk_order_ends'
// ends), walking at most about 4p of them: past its fill the order repeats
// every p micro-batches, each stage's ends moving by the same amount
// (checked on three runs p apart, m1, m1 + p and m1 + 2p micro-batches;
// walked whole otherwise). The three share their first steps, which are
// walked once (each stage's steps alike in the three orders whose passes
// wait only for such steps: bit for bit the same in each); each shorter
// run's rest is walked from there and taken back. Gives the first run's
// length, m1, and its ends (`first`) where it extended them (m1 = m where
// it walked the whole order). Without buckets (`o.buckets` empty).
std::int64_t chunk_order_periodic(const ChunkOrder& o, std::int64_t m, std::vector<double>& ends,
                                  std::vector<double>& first);

}  // namespace brigade::cost::detail
