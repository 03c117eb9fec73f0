#include "realexec/ring.hpp"

#include <algorithm>
#include <cmath>

#include "realexec/pattern.hpp"

namespace brigade::realexec {
namespace {

int mod(std::int64_t a, int n) {
  return static_cast<int>(((a % n) + n) % n);
}

}  // namespace

int chain_chunks(std::int64_t count, double element_bytes) {
  const double bytes = static_cast<double>(count) * element_bytes;
  const auto by_size = static_cast<std::int64_t>(std::ceil(bytes / (1024.0 * 1024.0)));
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>({by_size, 32, count})));
}

int ring_steps(CollectiveKind kind, int ranks, int chunks) {
  if (ranks <= 1) return 1;
  switch (kind) {
    case CollectiveKind::kAllReduce:
      return 2 * (ranks - 1);
    case CollectiveKind::kReduceScatter:
    case CollectiveKind::kAllGather:
    case CollectiveKind::kAllToAll:
      return ranks - 1;
    case CollectiveKind::kBroadcast:
    case CollectiveKind::kReduce:
      return chunks + ranks - 2;
  }
  return 1;
}

void ring_step_ops(CollectiveKind kind, int ranks, int rank, int root, std::int64_t count,
                   int chunks, int step, std::vector<RingOp>& out) {
  out.clear();
  const int n = ranks, r = rank;
  auto part = [&](int j) { return part_begin(count, n, j); };
  auto size = [&](int j) { return part_size(count, n, j); };
  if (n <= 1) {
    // One rank: the result is its own input.
    out.push_back(RingOp{r, RingSource::kInput, 0, 0, count, false});
    return;
  }
  const int prev = mod(r - 1, n), next = mod(r + 1, n);
  switch (kind) {
    case CollectiveKind::kAllReduce:
    case CollectiveKind::kReduceScatter: {
      if (step < n - 1) {
        // Reduce-scatter step s: rank r adds its predecessor's partial sum of
        // part c = r - s - 2 (computed by the predecessor in step s - 1, or its
        // raw input in step 0) to its own input; after N - 1 steps rank r holds
        // part r summed over all ranks.
        const int c = mod(r - step - 2, n);
        out.push_back(RingOp{prev, step == 0 ? RingSource::kInput : RingSource::kOutput, part(c),
                             part(c), size(c), true});
      } else {
        // All-gather step s: rank r copies part r - 1 - s, which its predecessor
        // completed (step 0) or received (later steps) one step earlier.
        const int s = step - (n - 1);
        const int c = mod(r - 1 - s, n);
        out.push_back(RingOp{prev, RingSource::kOutput, part(c), part(c), size(c), false});
      }
      return;
    }
    case CollectiveKind::kAllGather: {
      // Rank r's input is its part of the output, indexed from 0.
      if (step == 0) out.push_back(RingOp{r, RingSource::kInput, 0, part(r), size(r), false});
      const int c = mod(r - 1 - step, n);
      if (step == 0)
        out.push_back(RingOp{prev, RingSource::kInput, 0, part(c), size(c), false});
      else
        out.push_back(RingOp{prev, RingSource::kOutput, part(c), part(c), size(c), false});
      return;
    }
    case CollectiveKind::kBroadcast: {
      const int pos = mod(r - root, n);
      if (pos == 0) {
        if (step == 0) out.push_back(RingOp{r, RingSource::kInput, 0, 0, count, false});
        return;
      }
      const int q = step - (pos - 1);
      if (q < 0 || q >= chunks) return;
      const std::int64_t b = part_begin(count, chunks, q);
      out.push_back(RingOp{prev, pos == 1 ? RingSource::kInput : RingSource::kOutput, b, b,
                           part_size(count, chunks, q), false});
      return;
    }
    case CollectiveKind::kReduce: {
      const int pos = mod(r - root, n);
      if (pos == n - 1) return;  // the chain's head: its input is read by its successor
      const int q = step - (n - 2 - pos);
      if (q < 0 || q >= chunks) return;
      const std::int64_t b = part_begin(count, chunks, q);
      out.push_back(RingOp{next, pos + 1 == n - 1 ? RingSource::kInput : RingSource::kOutput, b, b,
                           part_size(count, chunks, q), true});
      return;
    }
    case CollectiveKind::kAllToAll: {
      const std::int64_t block = count / n;
      if (step == 0)
        out.push_back(RingOp{r, RingSource::kInput, r * block, r * block, block, false});
      const int q = mod(r - (step + 1), n);
      out.push_back(RingOp{q, RingSource::kInput, r * block, q * block, block, false});
      return;
    }
  }
}

}  // namespace brigade::realexec
