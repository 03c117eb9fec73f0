// The planner's output: the Program every judge consumes, plus what the
// planner decided and why (for `brigade explain`).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "core/program.hpp"

namespace brigade::planner {

// How finely the lowering cuts compute into tasks.
enum class Granularity {
  kAuto,    // the finest of the three whose task count fits LowerOptions::max_kernel_tasks
  kKernel,  // one task per GEMM and per fused memory-bound region
  kRegion,  // one task per run of kernels between communication points (see docs/planner.md)
  kStep,    // one task per pipeline step and phase; a step's tensor-parallel collectives
            // merged per kind (docs/planner.md, "Granularity")
};
std::string_view granularity_name(Granularity g);

struct LowerOptions {
  Granularity granularity = Granularity::kAuto;
  // kAuto's budget: tasks of the whole Program (all devices together).
  std::int64_t max_kernel_tasks = 2'000'000;
  // Cancellation (as RunOptions::cancel): polled before lowering and per
  // pipeline stage and step (transformers) or per operation (graphs); once it
  // reads true, lower() returns Status::error("cancelled", ErrorKind::kCancelled).
  const std::atomic<bool>* cancel = nullptr;
};

// A tensor as one device holds it.
struct TensorView {
  std::string name;
  std::string role;  // "parameter", "input", "activation", ...
  std::vector<std::int64_t> global_shape;
  std::vector<std::int64_t> local_shape;
  DType dtype = DType::kF32;
  std::string sharding;  // "('data', None)", "split over 'tensor' (columns)"
  int count = 1;         // identical tensors folded ("x 6 layers")
};

// What a group of identical devices holds and does.
struct DeviceView {
  std::string title;  // "pipeline stage 0 of 4 (layers 0-5)"
  std::vector<TensorView> tensors;
};

struct Plan {
  Program program;
  std::string summary;             // one line: the strategy as lowered
  std::vector<std::string> notes;  // lines explaining choices (data mode, fusions, ...)
  double parameters = 0;           // model parameters (each counted once)
  double flops_per_iteration = 0;  // counted FLOPs of the Program (GEMMs; see builders.hpp)
  Granularity granularity = Granularity::kKernel;
  std::vector<DeviceView> views;
  std::vector<int> view_of_device;       // device -> views index, -1 if unused
  std::vector<std::string> device_role;  // device -> "tensor 3/8, data 5/8, pipeline 0/16"
};

}  // namespace brigade::planner
