// Rank mapping: which device plays (tensor rank, context rank, data replica,
// pipeline stage). Devices are numbered node-major by the topology presets,
// so the innermost axis of the order lands inside a node.
#pragma once

#include <string>
#include <vector>

#include "core/scenario.hpp"
#include "core/status.hpp"

namespace brigade::planner {

struct RankCoord {
  int tensor = 0, data = 0, pipeline = 0, context = 0;
};

class RankMap {
 public:
  // `order` lists "tensor", "data", "pipeline" innermost first, and
  // "context" where it goes (left out: right after tensor, Megatron-Core's
  // tp-cp-dp-pp; full_rank_order). The default, tensor groups inside a node
  // first, is {"tensor", "data", "pipeline"}.
  static Result<RankMap> make(int tensor, int data, int pipeline,
                              const std::vector<std::string>& order, int context = 1);

  // `replica` numbers the ranks that hold the same weights (data x context):
  // replica = data_rank x context + context_rank. Without context
  // parallelism it is the data rank.
  int device(int tensor_rank, int replica, int pipeline_stage) const;
  RankCoord coord(int device) const;
  int size() const { return tensor_ * data_ * context_ * pipeline_; }
  int tensor() const { return tensor_; }
  int data() const { return data_; }
  int context() const { return context_; }
  int pipeline() const { return pipeline_; }
  const std::vector<std::string>& order() const { return order_; }

  // Device groups, each in rank order.
  std::vector<int> tensor_group(int replica, int pipeline_stage) const;
  // The replicas of one tensor rank and stage: data x context ranks, context
  // fastest (the gradient group with context parallelism).
  std::vector<int> data_group(int tensor_rank, int pipeline_stage) const;

 private:
  int tensor_ = 1, data_ = 1, pipeline_ = 1, context_ = 1;
  int stride_t_ = 1, stride_d_ = 1, stride_p_ = 1, stride_c_ = 1;
  std::vector<std::string> order_;
};

}  // namespace brigade::planner
