// The closed form's toy transformer and the checks its hand-worked tests
// share (tests/costmodel/plan_test.cpp, plan_tensor_parallel_test.cpp): on
// toy hardware (test_hardware.hpp) with memory bandwidth 0 a kernel takes
// FLOPs / 1e12 exactly.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "core/scenario.hpp"
#include "costmodel/plan.hpp"
#include "tests/costmodel/test_hardware.hpp"

namespace brigade::cost::testing {

inline void expect_rel(double actual, double expected, double rel = 1e-12) {
  EXPECT_NEAR(actual, expected, std::fabs(expected) * rel + 1e-30) << "expected " << expected;
}

inline const CommunicationEstimate* find_comm(const PlanEstimate& e, const std::string& purpose,
                                              const std::string& kind) {
  for (const CommunicationEstimate& c : e.communication)
    if (c.purpose == purpose && c.kind == kind) return &c;
  return nullptr;
}

// A tiny GPT: L layers, h = 64, a = 4, s = 32, V = 128, bf16, mixed-precision Adam.
inline Scenario tiny_gpt(int devices, int layers = 2, double memory_bandwidth = 0,
                         std::int64_t vocab = 128) {
  Scenario sc;
  sc.name = "tiny-gpt";
  sc.path = "tiny.yaml";
  sc.topology = round_star(devices, 1e-6, 1e10, memory_bandwidth);
  EXPECT_TRUE(sc.topology.validate().is_ok());
  sc.profile = round_hardware();
  sc.model_kind = ModelKind::kTransformer;
  sc.transformer.layers = layers;
  sc.transformer.hidden = 64;
  sc.transformer.heads = 4;
  sc.transformer.seq = 32;
  sc.transformer.vocab = vocab;
  sc.transformer.dtype = DType::kBF16;
  sc.training.global_batch = 1;
  sc.training.micro_batch = 1;
  sc.has_strategy = true;
  return sc;
}

// tiny_gpt over `pipeline` stages, one rank each unless `tensor` > 1, with
// `global_batch` micro-batches of 1, no vocabulary, memory bandwidth 0:
// `layers` toy layers in `schedule` (interleaved with `chunks` a stage).
inline Scenario tiny_pipeline(int pipeline, int layers, PipelineSchedule schedule, int chunks = 1,
                              int tensor = 1, std::int64_t global_batch = 8) {
  Scenario sc = tiny_gpt(pipeline * tensor, layers, 0, 0);
  sc.strategy.pipeline = pipeline;
  sc.strategy.tensor = tensor;
  sc.strategy.schedule = schedule;
  sc.strategy.virtual_stages = chunks;
  sc.training.global_batch = global_batch;
  return sc;
}

}  // namespace brigade::cost::testing
