#include "planner/rank_map.hpp"

#include <algorithm>

namespace brigade::planner {

Result<RankMap> RankMap::make(int tensor, int data, int pipeline,
                              const std::vector<std::string>& order, int context) {
  RankMap r;
  r.tensor_ = tensor;
  r.data_ = data;
  r.pipeline_ = pipeline;
  r.context_ = context;
  r.order_ = order;
  std::vector<std::string> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  if (sorted != std::vector<std::string>{"data", "pipeline", "tensor"} &&
      sorted != std::vector<std::string>{"context", "data", "pipeline", "tensor"}) {
    std::string got;
    for (const auto& o : order) got += (got.empty() ? "" : ", ") + o;
    return Status::error("strategy.rank_order: found [" + got +
                         "]; expected an order of tensor, data, pipeline");
  }
  StrategySpec st;
  st.rank_order = order;
  int stride = 1;
  for (const std::string& axis : full_rank_order(st)) {
    if (axis == "tensor") {
      r.stride_t_ = stride;
      stride *= tensor;
    } else if (axis == "context") {
      r.stride_c_ = stride;
      stride *= context;
    } else if (axis == "data") {
      r.stride_d_ = stride;
      stride *= data;
    } else {
      r.stride_p_ = stride;
      stride *= pipeline;
    }
  }
  return r;
}

int RankMap::device(int t, int j, int p) const {
  return t * stride_t_ + (j / context_) * stride_d_ + (j % context_) * stride_c_ + p * stride_p_;
}

RankCoord RankMap::coord(int device) const {
  RankCoord c;
  c.tensor = (device / stride_t_) % tensor_;
  c.data = (device / stride_d_) % data_;
  c.context = (device / stride_c_) % context_;
  c.pipeline = (device / stride_p_) % pipeline_;
  return c;
}

std::vector<int> RankMap::tensor_group(int j, int p) const {
  std::vector<int> g;
  for (int t = 0; t < tensor_; ++t) g.push_back(device(t, j, p));
  return g;
}

std::vector<int> RankMap::data_group(int t, int p) const {
  std::vector<int> g;
  for (int j = 0; j < data_ * context_; ++j) g.push_back(device(t, j, p));
  return g;
}

}  // namespace brigade::planner
