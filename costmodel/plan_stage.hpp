// Private to the transformer judge (costmodel/plan_transformer.cpp,
// costmodel/plan_buckets.cpp): how one pipeline stage is laid out, and its
// gradient buckets. Not part of the library's interface.
#pragma once

#include <cstdint>

#include "costmodel/plan_memo.hpp"
#include "costmodel/plan_transformer_cache.hpp"
#include "costmodel/transformer_blocks.hpp"

namespace brigade::cost::detail {

// A block of one pipeline stage as the planner lays it out
// (planner/lower_transformer.cpp, build_blocks): its template, the parameter
// groups the device keeps (the last stage's head keeps a copy of the tied word
// embedding), and what ZeRO-3 gathers before it computes. Element counts are
// whole numbers (below 2^53), so their sums are exact in any order.
struct StageBlock {
  const BlockTemplate* tpl = nullptr;
  const TemplateFigures* figures = nullptr;
  // The groups of `tpl` the device keeps, or the tied embedding: their
  // elements (ParamGroup::local_elements), `owned` of them.
  const double* group_elements = nullptr;
  const char* group_expert = nullptr;  // per group: 1 for experts split over 'expert'
  int owned = 0;
  int tied = -1;  // index among the owned groups of the tied word embedding
  bool is_head = false;
  double owned_elements = 0;
  double replicated_elements = 0;  // of the owned groups, not split over the tensor group
  double expert_elements = 0;      // of the owned groups, experts split over 'expert'
  double gather_elements = 0;
  bool is_expert(int g) const { return group_expert != nullptr && group_expert[g] != 0; }
};

// The blocks of device stage `stage` per model chunk (virtual stage
// c * P + stage): the embedding on virtual stage 0 (chunk 0 of stage 0),
// `layers_per_chunk` layers, the head on the last virtual stage (chunk v - 1
// of stage P - 1). Held as the three kinds of block, not block by block.
struct StageLayout {
  StageBlock embedding, layer, head;
  bool first = false, last = false;  // runs the embedding / the head
  int chunks = 1;
  std::int64_t layers_per_chunk = 0;

  // Calls f(block, n) for each kind of block the stage runs, n blocks of it
  // (n > 0): the embedding, the layers, the head.
  template <class F>
  void for_each_kind(F&& f) const {
    if (first) f(embedding, 1.0);
    if (layers_per_chunk > 0) f(layer, static_cast<double>(layers_per_chunk * chunks));
    if (last) f(head, 1.0);
  }
  // The sum of a whole-number figure over every block (exact: below 2^53).
  template <class F>
  double sum(F&& figure) const {
    double total = 0;
    for_each_kind([&](const StageBlock& b, double n) { total += n * figure(b); });
    return total;
  }
};

// The stage's bucket list from the cache, filled there first if no entry
// has the same key (plan_transformer_cache.hpp).
BucketList& stage_buckets(TransformerCache& cache, const TransformerBlocks& tb,
                          const StageLayout& lay, bool pipelined, const KernelTimes& times,
                          double bytes_per_element, double bucket_bytes);

}  // namespace brigade::cost::detail
