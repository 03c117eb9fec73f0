// Rank mapping: which device plays (tensor rank, data replica, pipeline
// stage). Devices are numbered node-major by the topology presets, so the
// innermost axis of the order lands inside a node.
#pragma once

#include <string>
#include <vector>

#include "core/scenario.hpp"
#include "core/status.hpp"

namespace brigade::planner {

struct RankCoord {
  int tensor = 0, data = 0, pipeline = 0;
};

class RankMap {
 public:
  // `order` lists "tensor", "data", "pipeline" innermost first (the default,
  // tensor groups inside a node first, is {"tensor", "data", "pipeline"}).
  static Result<RankMap> make(int tensor, int data, int pipeline,
                              const std::vector<std::string>& order);

  int device(int tensor_rank, int data_rank, int pipeline_stage) const;
  RankCoord coord(int device) const;
  int size() const { return tensor_ * data_ * pipeline_; }
  int tensor() const { return tensor_; }
  int data() const { return data_; }
  int pipeline() const { return pipeline_; }
  const std::vector<std::string>& order() const { return order_; }

  // Device groups, each in rank order.
  std::vector<int> tensor_group(int data_rank, int pipeline_stage) const;
  std::vector<int> data_group(int tensor_rank, int pipeline_stage) const;

 private:
  int tensor_ = 1, data_ = 1, pipeline_ = 1;
  int stride_t_ = 1, stride_d_ = 1, stride_p_ = 1;
  std::vector<std::string> order_;
};

}  // namespace brigade::planner
