// Brigade's own collective algorithms, as step schedules: which elements each
// rank reads from which peer in each step. The CPU backend runs them over
// shared memory; the CUDA backend runs them over device-to-device copies when
// virtual devices share a GPU (NCCL refuses two ranks on one GPU). Every step
// ends with all ranks synchronised (a barrier), so a rank only ever reads
// what its peer finished writing in an earlier step.
//
// All collectives run out of place: inputs are only read; each rank writes
// its output buffer (M elements, laid out as nccl-tests' "size").
//
//   AllReduce      ring: N-1 reduce-scatter steps then N-1 all-gather steps,
//                  each moving one of N parts to the ring successor
//                  (Patarasuk & Yuan, "Bandwidth optimal all-reduce
//                  algorithms for clusters of workstations", JPDC 2009).
//   ReduceScatter  the reduce-scatter half: rank r ends with part r reduced.
//   AllGather      the all-gather half, starting from each rank's input.
//   Broadcast      pipelined chain root -> root+1 -> ...: the message in P
//                  chunks, P + N - 2 steps (van de Geijn's pipelined chain).
//   Reduce         the chain reversed, partial sums flowing to the root.
//   AllToAll       pairwise exchange: in step s rank r reads its block from
//                  rank r - s (N-1 steps; Thakur, Rabenseifner & Gropp 2005).
#pragma once

#include <cstdint>
#include <vector>

#include "core/program.hpp"

namespace brigade::realexec {

enum class RingSource : std::uint8_t { kInput, kOutput };

// One piece of a step on one rank: read `count` elements from `src_rank`'s
// buffer at `src_begin`, and write them (reduce: add them to this rank's own
// input at the same place) into this rank's output at `dst_begin`.
struct RingOp {
  int src_rank = 0;
  RingSource src = RingSource::kInput;
  std::int64_t src_begin = 0;
  std::int64_t dst_begin = 0;
  std::int64_t count = 0;
  bool reduce = false;  // out[dst+i] = in_self[dst+i] + src[src_begin+i]
};

// Chunks of a pipelined chain (Broadcast, Reduce): about 1 MiB each, at most
// 32, at least 1, never more than there are elements.
int chain_chunks(std::int64_t count, double element_bytes);

// Steps of a collective over `ranks` ranks (every rank runs all of them, with
// a barrier after each). A single rank runs one step: a local copy.
int ring_steps(CollectiveKind kind, int ranks, int chunks);

// Rank `rank`'s ops in step `step` (appended to `out`, which is cleared).
void ring_step_ops(CollectiveKind kind, int ranks, int rank, int root, std::int64_t count,
                   int chunks, int step, std::vector<RingOp>& out);

}  // namespace brigade::realexec
