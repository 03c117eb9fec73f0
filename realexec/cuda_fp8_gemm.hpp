// FP8 GEMMs for the CUDA backend, through cuBLASLt as Transformer Engine
// calls it (transformer_engine/common/gemm/cublaslt_gemm.cu): E4M3 operands
// in the "TN" layout FP8 needs (A stored k x m, B k x n, both K-major), BF16
// output (or an FP32 one added into, for fused gradient accumulation), FP32
// compute and scale, per-tensor scale pointers (at 1), a 32 MiB
// workspace, cuBLASLt's first heuristic; CUBLASLT_MATMUL_DESC_FAST_ACCUM at
// 1 for a forward GEMM and at 0 for KernelClass::kGemmSplitAccumulator (TE's
// input- and weight-gradient GEMMs, docs/costmodel.md "Split accumulation in
// the gradients' GEMMs"). Both operands are E4M3 (the hybrid recipe's E5M2
// gradients run at the same tensor-core rate). CUDA builds only.
#pragma once

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>

#include "core/program.hpp"
#include "core/status.hpp"
#include "realexec/task_plan.hpp"

namespace brigade::realexec::cuda {

// cuBLASLt's FP8 kernels need 16-byte-aligned leading dimensions (16
// elements), and Transformer Engine refuses other shapes; a GEMM that has
// other dimensions runs with each rounded up to a multiple of 16.
std::int64_t fp8_dimension(std::int64_t x);
GemmShape fp8_shape(const GemmShape& g);

constexpr std::size_t kFp8WorkspaceBytes = std::size_t{32} << 20;

// Compute capability of `gpu` as major * 10 + minor (89: Ada, 90: Hopper).
Result<int> compute_capability(int gpu);
// FP8 GEMMs need sm_89 or later.
constexpr int kFp8MinCapability = 89;

// A program's FP8 GEMMs before it runs: each on a GPU with FP8 tensor
// cores (else an error naming the task and the GPU's capability, once per
// GPU), and a warning counting those whose dimensions are padded.
class Fp8Check {
 public:
  // Task t of p, an fp8 GEMM of `shape`, runs on GPU `gpu`.
  Status check(const Program& p, TaskId t, const GemmShape& shape, int gpu);
  // Empty unless some GEMM is padded.
  std::string warning() const;

 private:
  std::set<int> capable_;  // GPUs checked
  std::int64_t padded_ = 0;
  std::string program_;
};

// The plans (descriptors and chosen algorithm) of one run's FP8 GEMMs, by
// GPU, shape and accumulation, made on first use; one cuBLASLt handle and
// one device-resident scale (1.0f) per GPU. Not thread-safe: the executor
// enqueues from one host thread.
class Fp8Gemms {
 public:
  Fp8Gemms();  // out of line: Plan is complete only in the .cpp
  Fp8Gemms(const Fp8Gemms&) = delete;
  Fp8Gemms& operator=(const Fp8Gemms&) = delete;
  ~Fp8Gemms();

  // D (m x n, BF16, column-major) = A^T B over k, `g` already padded
  // (fp8_shape), batch members strided; on `stream` of the current device,
  // `gpu`. `workspace` holds kFp8WorkspaceBytes on that GPU.
  // `accumulate_width` 2 or 4: D = A^T B + D (beta 1) in BF16 or FP32, as
  // Transformer Engine's weight-gradient GEMM adds into main_grad
  // (fuse_wgrad_accumulation); 0: a fresh BF16 D.
  // A failed call names the GEMM's values (shape, batch, types, fast
  // accumulation, accumulate width).
  Status run(int gpu, cudaStream_t stream, const GemmShape& g, bool fast_accumulation,
             const void* a, const void* b, void* d, void* workspace, int accumulate_width = 0);
  // What run() would make on first use, made now (on the current device,
  // `gpu`): its handle and scale (a synchronous allocation and copy) and the
  // plan of this GEMM, so that none of it happens while a step is timed.
  Status prepare(int gpu, const GemmShape& g, bool fast_accumulation, int accumulate_width);

 private:
  struct Plan;
  struct PerGpu {
    cublasLtHandle_t handle = nullptr;
    float* scale = nullptr;  // device memory, 1.0f
  };
  Result<PerGpu*> gpu_state(int gpu);
  Result<Plan*> plan(int gpu, const GemmShape& g, bool fast_accumulation, int accumulate_width);

  std::map<int, PerGpu> gpus_;
  using Key = std::tuple<int, std::int64_t, std::int64_t, std::int64_t, std::int64_t, bool, bool>;
  std::map<Key, std::unique_ptr<Plan>> plans_;
};

}  // namespace brigade::realexec::cuda
