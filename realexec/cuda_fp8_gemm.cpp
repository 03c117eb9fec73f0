#include "realexec/cuda_fp8_gemm.hpp"

#include <string>

#include "realexec/cuda_check.hpp"
#include "realexec/cuda_gemm.hpp"

namespace brigade::realexec::cuda {

std::int64_t fp8_dimension(std::int64_t x) {
  return (x + 15) / 16 * 16;
}

GemmShape fp8_shape(const GemmShape& g) {
  return {fp8_dimension(g.m), fp8_dimension(g.n), fp8_dimension(g.k), g.batch};
}

Result<int> compute_capability(int gpu) {
  int major = 0, minor = 0;
  BRIGADE_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, gpu));
  BRIGADE_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, gpu));
  return major * 10 + minor;
}

Status Fp8Check::check(const Program& p, TaskId t, const GemmShape& shape, int gpu) {
  program_ = p.name;
  if (!capable_.count(gpu)) {
    BRIGADE_ASSIGN_OR_RETURN(const int cc, compute_capability(gpu));
    if (cc < kFp8MinCapability)
      return Status::error("cuda backend: " + task_label(p, t) + " is an fp8 GEMM and GPU " +
                           std::to_string(gpu) + " has compute capability " +
                           std::to_string(cc / 10) + "." + std::to_string(cc % 10) +
                           "; expected 8.9 or later (Ada, Hopper) for FP8 tensor cores");
    capable_.insert(gpu);
  }
  const GemmShape padded = fp8_shape(shape);
  if (padded.m != shape.m || padded.n != shape.n || padded.k != shape.k) ++padded_;
  return Status::ok();
}

std::string Fp8Check::warning() const {
  if (padded_ == 0) return {};
  return std::to_string(padded_) + " fp8 GEMM" + (padded_ == 1 ? "" : "s") + " of program '" +
         program_ + "' " + (padded_ == 1 ? "has" : "have") +
         " a dimension that is not a multiple of 16: each runs padded to multiples of 16 "
         "(cuBLASLt's FP8 kernels need them, and Transformer Engine refuses other shapes), so "
         "it does more work than the judges count";
}

struct Fp8Gemms::Plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulHeuristicResult_t algo{};
  ~Plan() {
    if (op) cublasLtMatmulDescDestroy(op);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (d) cublasLtMatrixLayoutDestroy(d);
  }
};

Fp8Gemms::Fp8Gemms() = default;

Fp8Gemms::~Fp8Gemms() {
  plans_.clear();
  for (auto& [gpu, st] : gpus_) {
    cudaSetDevice(gpu);
    if (st.scale) cudaFree(st.scale);
    if (st.handle) cublasLtDestroy(st.handle);
  }
}

Result<Fp8Gemms::PerGpu*> Fp8Gemms::gpu_state(int gpu) {
  PerGpu& st = gpus_[gpu];
  if (st.handle) return &st;
  BRIGADE_CUDA_CHECK(cublasLtCreate(&st.handle));
  BRIGADE_CUDA_CHECK(cudaMalloc(&st.scale, sizeof(float)));
  const float one = 1.0f;
  BRIGADE_CUDA_CHECK(cudaMemcpy(st.scale, &one, sizeof one, cudaMemcpyHostToDevice));
  return &st;
}

Status Fp8Gemms::prepare(int gpu, const GemmShape& g, bool fast_accumulation,
                         int accumulate_width) {
  const Result<Plan*> p = plan(gpu, g, fast_accumulation, accumulate_width);
  return p.is_ok() ? Status::ok() : p.status();
}

namespace {

// "the fp8 GEMM 1024 x 512 x 768 (m x n x k), batch 1, A and B E4M3, C and
// D FP32, fast accumulation off, accumulate width 4": an FP8 GEMM as error
// messages name it.
std::string describe(const GemmShape& g, bool fast, int accumulate_width) {
  return "the fp8 GEMM " + describe_shape(g) + ", A and B E4M3, C and D " +
         (gemm_output_bytes(DType::kFP8, accumulate_width) == 4 ? "FP32" : "BF16") +
         ", fast accumulation " + (fast ? "on" : "off") + ", accumulate width " +
         std::to_string(accumulate_width);
}

Status batch_layout(cublasLtMatrixLayout_t l, std::int64_t batch, std::int64_t stride) {
  if (batch <= 1) return Status::ok();
  const auto count = static_cast<std::int32_t>(batch);
  BRIGADE_CUDA_CHECK(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
                                                      sizeof count));
  BRIGADE_CUDA_CHECK(cublasLtMatrixLayoutSetAttribute(
      l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride));
  return Status::ok();
}

}  // namespace

Result<Fp8Gemms::Plan*> Fp8Gemms::plan(int gpu, const GemmShape& g, bool fast,
                                       int accumulate_width) {
  const bool fp32_output = gemm_output_bytes(DType::kFP8, accumulate_width) == 4;
  const Key key{gpu, g.m, g.n, g.k, g.batch, fast, fp32_output};
  if (auto it = plans_.find(key); it != plans_.end()) return it->second.get();
  BRIGADE_ASSIGN_OR_RETURN(PerGpu * st, gpu_state(gpu));
  auto p = std::make_unique<Plan>();
  BRIGADE_CUDA_CHECK(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
  BRIGADE_CUDA_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &transpose,
                                                    sizeof transpose));
  BRIGADE_CUDA_CHECK(
      cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none));
  const std::int8_t fast_accum = fast ? 1 : 0;
  BRIGADE_CUDA_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM,
                                                    &fast_accum, sizeof fast_accum));
  const float* scale = st->scale;
  BRIGADE_CUDA_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                    &scale, sizeof scale));
  BRIGADE_CUDA_CHECK(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                    &scale, sizeof scale));
  BRIGADE_CUDA_CHECK(cublasLtMatrixLayoutCreate(&p->a, CUDA_R_8F_E4M3,
                                                static_cast<std::uint64_t>(g.k),
                                                static_cast<std::uint64_t>(g.m), g.k));
  BRIGADE_CUDA_CHECK(cublasLtMatrixLayoutCreate(&p->b, CUDA_R_8F_E4M3,
                                                static_cast<std::uint64_t>(g.k),
                                                static_cast<std::uint64_t>(g.n), g.k));
  // D (and C, the same layout: an accumulating GEMM reads it) in BF16, or
  // FP32 for a main_grad accumulation (cuBLASLt's FP8 inputs with FP32 C
  // and D, as Transformer Engine's wgrad GEMM runs into main_grad).
  BRIGADE_CUDA_CHECK(cublasLtMatrixLayoutCreate(&p->d, fp32_output ? CUDA_R_32F : CUDA_R_16BF,
                                                static_cast<std::uint64_t>(g.m),
                                                static_cast<std::uint64_t>(g.n), g.m));
  BRIGADE_RETURN_IF_ERROR(batch_layout(p->a, g.batch, g.k * g.m));
  BRIGADE_RETURN_IF_ERROR(batch_layout(p->b, g.batch, g.k * g.n));
  BRIGADE_RETURN_IF_ERROR(batch_layout(p->d, g.batch, g.m * g.n));
  cublasLtMatmulPreference_t pref = nullptr;
  BRIGADE_CUDA_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  const std::uint64_t ws = kFp8WorkspaceBytes;
  const cublasStatus_t set = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  int found = 0;
  cublasStatus_t got = set;
  if (set == CUBLAS_STATUS_SUCCESS)
    got = cublasLtMatmulAlgoGetHeuristic(st->handle, p->op, p->a, p->b, p->d, p->d, pref, 1,
                                         &p->algo, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  BRIGADE_CUDA_CHECK(set);
  // CUBLAS_STATUS_NOT_SUPPORTED is cuBLASLt's usual "no algorithm": said as
  // the empty answer is, with the status beside it.
  if (got != CUBLAS_STATUS_SUCCESS || found == 0)
    return Status::error(
        "cuda backend: cuBLASLt has no FP8 algorithm on GPU " + std::to_string(gpu) + " for " +
            describe(g, fast, accumulate_width) + " (cublasLtMatmulAlgoGetHeuristic: " +
            (got != CUBLAS_STATUS_SUCCESS ? cublasGetStatusName(got) : "no result") + ")",
        ErrorKind::kRuntime);
  Plan* raw = p.get();
  plans_.emplace(key, std::move(p));
  return raw;
}

Status Fp8Gemms::run(int gpu, cudaStream_t stream, const GemmShape& g, bool fast_accumulation,
                     const void* a, const void* b, void* d, void* workspace, int accumulate_width) {
  BRIGADE_ASSIGN_OR_RETURN(Plan * p, plan(gpu, g, fast_accumulation, accumulate_width));
  const float alpha = 1.0f, beta = accumulate_width > 0 ? 1.0f : 0.0f;
  const cublasStatus_t e =
      cublasLtMatmul(gpus_[gpu].handle, p->op, &alpha, a, p->a, b, p->b, &beta, d, p->d, d, p->d,
                     &p->algo.algo, workspace, kFp8WorkspaceBytes, stream);
  if (e == CUBLAS_STATUS_SUCCESS) return Status::ok();
  const std::string call = "cublasLtMatmul (" + describe(g, fast_accumulation, accumulate_width) +
                           ", on GPU " + std::to_string(gpu) + ")";
  return check(e, call.c_str(), __FILE__, __LINE__);
}

}  // namespace brigade::realexec::cuda
