// Private to the transformer judge (costmodel/plan_transformer.cpp) and its
// memo (costmodel/plan_memo.*): the gradient buckets of a pipeline stage,
// kept from stage to stage and, inside a search's memo, from plan to plan.
//
// A stage's buckets depend only on the blocks it runs (the shape's templates,
// the stage's place: first, last, or neither, and whether there is a
// pipeline), the layers per chunk, the chunks, the bucket size, the element
// size and the times of the backward and recomputation kernels (which set
// when each bucket is ready). Those are the key, compared in full: an entry
// found is the same list the judge would fill, bit for bit.
#pragma once

#include <cstdint>
#include <vector>

namespace brigade::cost::detail {

struct GradientBucket {
  double bytes = 0;
  double ready_seconds = 0;
};

struct BucketList {
  // The key.
  const void* blocks = nullptr;  // the TransformerBlocks the stage runs
  int role = 0;                  // bit 0: first stage, 1: last stage, 2: pipeline > 1
  int virtual_stages = 0;
  std::int64_t layers_per_chunk = 0;
  double bucket_bytes = 0, element_bytes = 0;
  std::vector<double> times;  // backward and recompute kernel times of the blocks run

  // The buckets in the order the backward fills them, their distinct sizes
  // (in order of first appearance) and each bucket's index among them, the
  // sum of their bytes (in bucket order) and the backward's length.
  std::vector<GradientBucket> buckets;
  std::vector<double> sizes;
  std::vector<std::uint32_t> size_index;
  double bytes_sum = 0;
  double window_seconds = 0;

  // The last sums over the buckets for one pricing of the sizes (stages
  // whose groups price them alike share them).
  struct Sums {
    bool valid = false;
    bool overlap = false;
    std::vector<double> priced;
    double total = 0, end = 0;
  };
  Sums reduce, gather;
};

struct TransformerCache {
  static constexpr std::size_t kLists = 64;
  std::vector<BucketList> lists;  // at most kLists, replaced in turn
  std::size_t next = 0;
  std::vector<double> key;        // scratch: the times of the stage being judged
  std::vector<double> priced;     // scratch: one stage's bucket prices
};

}  // namespace brigade::cost::detail
