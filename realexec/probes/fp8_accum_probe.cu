// brigade-fp8-probe: cuBLASLt's FP8 GEMMs timed with fast accumulation on
// and off, for the profile key fp8_split_accumulator_efficiency
// (docs/costmodel.md, "FP8 training", "Split accumulation in the
// gradients' GEMMs"); and weight-gradient GEMMs that add into the gradient
// buffer, for what that addition costs (docs/FIDELITY.md, "What the errors
// say", the fused gradient accumulation).
//
// Transformer Engine runs its forward FP8 GEMMs with cuBLASLt's
// CUBLASLT_MATMUL_DESC_FAST_ACCUM at 1 and its input- and weight-gradient
// GEMMs at 0 (_2X_ACC_DGRAD, _2X_ACC_WGRAD); the public FP8 curves the
// Hopper presets take were measured at 1. This times both modes on the same
// operands, shape by shape (alternating, so that the clock and the power cap
// treat both alike), the way TE calls cuBLASLt: E4M3 weights, E4M3 or E5M2
// (hybrid's gradients) for the other operand, BF16 output, FP32 compute and
// scale, the "TN" layout FP8 needs, per-tensor scale pointers, a 32 MiB
// workspace and cuBLASLt's first heuristic. It prints a table and the
// median over the shapes of split rate / fast rate, the key's value.
//
// The second table: with gradient accumulation fused (Megatron-LM's
// gradient_accumulation_fusion, on by default since 2022; NeMo's and
// Megatron-Core's), each weight-gradient GEMM adds its product into the
// parameter's gradient buffer, D = A^T B + C with C = D (beta 1): TE's
// fuse_wgrad_accumulation into main_grad (FP8, split accumulation), Apex's
// wgrad_gemm_accum_fp32 / _fp16 (16-bit operands). Against the same GEMM
// writing a fresh BF16 D (beta 0: what the presets' curves measure), the
// addition reads C and, into an FP32 buffer, writes twice the bytes. The
// judges charge those bytes inside the roofline's max, hidden behind the
// GEMM's arithmetic; whether the kernels hide them (their epilogue runs
// after each tile's main loop) is what this measures. Each row prints the
// extra time over the bytes' time at this GPU's measured copy rate: 0, the
// addition is hidden; 1, it costs its bytes at the streaming rate. The
// shapes are weight gradients (C: the weight, m x n; k: the micro-batch's
// tokens) of the NeMo and Korthikanti rows, FP8 where the GPU has FP8
// tensor cores and BF16 (any GPU: the A100 rows' path) both.
//
// A standalone program: `brigade calibrate --backend cuda` times the fast
// and split modes on square GEMMs (realexec/cuda_fp8_gemm.hpp), this at the
// NeMo rows' own shapes, B in E5M2 too. scripts/gpu-check.sh builds it,
// carries it and runs it on a lent GPU. Usage:
//   brigade-fp8-probe [M N K ...]   (default: the rows' GEMM shapes; given
//                                    shapes are timed in both tables)
// Exit status: 0 with the tables, 1 when no GPU or a CUDA call fails (the
// call and its error on stderr), 2 on bad arguments. Without FP8 tensor
// cores (before sm_89) it prints the BF16 accumulation rows alone.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

// cuBLAS has no string function for its status in every release: the codes
// this program can meet, by name.
const char* status_name(cublasStatus_t s) {
  switch (s) {
    case CUBLAS_STATUS_NOT_INITIALIZED:
      return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED:
      return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE:
      return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH:
      return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_EXECUTION_FAILED:
      return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_NOT_SUPPORTED:
      return "CUBLAS_STATUS_NOT_SUPPORTED";
    default:
      return "a cuBLAS error";
  }
}

[[noreturn]] void fail(const char* what, const char* why) {
  std::fprintf(stderr, "brigade-fp8-probe: error: %s: %s\n", what, why);
  std::exit(1);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(what, cudaGetErrorString(e));
}

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) fail(what, status_name(s));
}

// Uniform values in [-2, 2) from a hash of the index, written in T (FP8 or
// BF16): random operands, as the presets' GEMM measurements use (zeros draw
// less power).
template <typename T>
__global__ void fill_uniform(T* p, std::size_t n, std::uint32_t seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    std::uint32_t x = static_cast<std::uint32_t>(i) * 2654435761u ^ seed;
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    p[i] = T(static_cast<float>(x & 0xffffff) / 4194304.0f - 2.0f);
  }
}

struct Shape {
  std::int64_t m, n, k;
};

struct Operands {
  void* a = nullptr;  // k x m, E4M3 or BF16 (the weight's side)
  void* b = nullptr;  // k x n, E4M3, E5M2 or BF16
  void* d = nullptr;  // m x n, BF16 or FP32 (C too where beta is 1)
  float* scale = nullptr;
};

// One GEMM's plan: its descriptors and cuBLASLt's algorithm for them.
struct Plan {
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulHeuristicResult_t algo{};
  float beta = 0.0f;  // 1: D = A^T B + C, C the same buffer as D
  Plan() = default;
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;
  ~Plan() {
    if (op) cublasLtMatmulDescDestroy(op);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (d) cublasLtMatrixLayoutDestroy(d);
  }
};

constexpr std::size_t kWorkspace = 32u << 20;

bool is_fp8(cudaDataType_t t) {
  return t == CUDA_R_8F_E4M3 || t == CUDA_R_8F_E5M2;
}

// D (m x n, d_type) = A^T B over k, A of a_type (k x m), B of b_type (k x n),
// as Transformer Engine lays them out; FP8 operands with their scale
// pointers and FAST_ACCUM at `fast`. `accumulate`: beta 1, C = D.
void make_plan(cublasLtHandle_t lt, const Shape& s, cudaDataType_t a_type, cudaDataType_t b_type,
               bool fast, cudaDataType_t d_type, bool accumulate, const Operands& x, Plan& p) {
  check(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_32F, CUDA_R_32F),
        "cublasLtMatmulDescCreate");
  const cublasOperation_t t = CUBLAS_OP_T, n = CUBLAS_OP_N;
  check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), "TRANSA");
  check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n), "TRANSB");
  if (is_fp8(a_type)) {
    const std::int8_t fast_accum = fast ? 1 : 0;
    check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accum,
                                         sizeof fast_accum),
          "FAST_ACCUM");
    check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &x.scale,
                                         sizeof x.scale),
          "A_SCALE_POINTER");
    check(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &x.scale,
                                         sizeof x.scale),
          "B_SCALE_POINTER");
  }
  check(cublasLtMatrixLayoutCreate(&p.a, a_type, s.k, s.m, s.k), "layout A");
  check(cublasLtMatrixLayoutCreate(&p.b, b_type, s.k, s.n, s.k), "layout B");
  check(cublasLtMatrixLayoutCreate(&p.d, d_type, s.m, s.n, s.m), "layout D");
  p.beta = accumulate ? 1.0f : 0.0f;
  cublasLtMatmulPreference_t pref = nullptr;
  check(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
  const std::uint64_t ws = kWorkspace;
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                             sizeof ws),
        "MAX_WORKSPACE_BYTES");
  int found = 0;
  const cublasStatus_t st =
      cublasLtMatmulAlgoGetHeuristic(lt, p.op, p.a, p.b, p.d, p.d, pref, 1, &p.algo, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  check(st, "cublasLtMatmulAlgoGetHeuristic");
  if (found == 0) fail("cublasLtMatmulAlgoGetHeuristic", "no algorithm for this GEMM");
}

// Seconds between two events around `calls` calls of `call`, per call, the
// median of `rounds` rounds.
template <typename F>
double time_calls(cudaStream_t stream, int calls, int rounds, F&& call) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> per_call;
  for (int r = 0; r < rounds; ++r) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    for (int c = 0; c < calls; ++c) call();
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    per_call.push_back(ms * 1e-3 / calls);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

// Seconds a call of plan p on operands x.
double time_plan(cublasLtHandle_t lt, const Plan& p, const Operands& x, void* ws,
                 cudaStream_t stream, int calls, int rounds) {
  const float alpha = 1.0f;
  return time_calls(stream, calls, rounds, [&] {
    check(cublasLtMatmul(lt, p.op, &alpha, x.a, p.a, x.b, p.b, &p.beta, x.d, p.d, x.d, p.d,
                         &p.algo.algo, ws, kWorkspace, stream),
          "cublasLtMatmul");
  });
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : 0.5 * (v[h - 1] + v[h]);
}

// Calls enough for about 20 ms a round at 1,000 TFLOP/s.
int calls_for(double flop) {
  return static_cast<int>(std::clamp(2e13 / flop, 5.0, 2000.0));
}

// The GPU's streaming rate: a device-to-device copy of 512 MiB (read and
// written: twice its bytes a copy), the median of five.
double copy_rate(cudaStream_t stream) {
  const std::size_t bytes = std::size_t{512} << 20;
  void *src = nullptr, *dst = nullptr;
  check(cudaMalloc(&src, bytes), "cudaMalloc copy source");
  check(cudaMalloc(&dst, bytes), "cudaMalloc copy destination");
  check(cudaMemsetAsync(src, 1, bytes, stream), "cudaMemsetAsync");
  auto copy = [&] {
    check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream), "cudaMemcpyAsync");
  };
  time_calls(stream, 2, 1, copy);  // warm-up
  const double seconds = time_calls(stream, 4, 5, copy);
  cudaFree(src);
  cudaFree(dst);
  return 2.0 * static_cast<double>(bytes) / seconds;
}

// The split / fast table (fp8_split_accumulator_efficiency).
void split_table(cublasLtHandle_t lt, cudaStream_t stream, void* ws, float* scale,
                 const std::vector<Shape>& shapes) {
  std::printf(
      "#      m       n       k  B     fast ms  split ms  fast TFLOP/s  split TFLOP/s  "
      "split/fast\n");
  std::vector<double> ratios;
  for (const Shape& s : shapes) {
    for (const cudaDataType_t b_type : {CUDA_R_8F_E4M3, CUDA_R_8F_E5M2}) {
      Operands x;
      x.scale = scale;
      const std::size_t a_n = static_cast<std::size_t>(s.k) * s.m;
      const std::size_t b_n = static_cast<std::size_t>(s.k) * s.n;
      check(cudaMalloc(&x.a, a_n), "cudaMalloc A");
      check(cudaMalloc(&x.b, b_n), "cudaMalloc B");
      check(cudaMalloc(&x.d, static_cast<std::size_t>(s.m) * s.n * 2), "cudaMalloc D");
      fill_uniform<<<1024, 256, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(x.a), a_n, 1u);
      if (b_type == CUDA_R_8F_E4M3)
        fill_uniform<<<1024, 256, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(x.b), b_n, 2u);
      else
        fill_uniform<<<1024, 256, 0, stream>>>(static_cast<__nv_fp8_e5m2*>(x.b), b_n, 2u);
      check(cudaGetLastError(), "fill_uniform");
      Plan fast, split;
      make_plan(lt, s, CUDA_R_8F_E4M3, b_type, true, CUDA_R_16BF, false, x, fast);
      make_plan(lt, s, CUDA_R_8F_E4M3, b_type, false, CUDA_R_16BF, false, x, split);
      const double flop = 2.0 * s.m * s.n * s.k;
      const int calls = calls_for(flop);
      time_plan(lt, fast, x, ws, stream, calls, 3);  // warm-up: the clock settles
      time_plan(lt, split, x, ws, stream, calls, 3);
      std::vector<double> tf, ts;
      for (int i = 0; i < 5; ++i) {  // alternating, so both see the same clocks
        tf.push_back(time_plan(lt, fast, x, ws, stream, calls, 3));
        ts.push_back(time_plan(lt, split, x, ws, stream, calls, 3));
      }
      const double f = median(tf), t = median(ts);
      const double ratio = f / t;  // the split mode's rate over the fast one's
      ratios.push_back(ratio);
      std::printf("%8lld %7lld %7lld  %s %9.4f %9.4f %13.1f %14.1f %11.4f\n",
                  static_cast<long long>(s.m), static_cast<long long>(s.n),
                  static_cast<long long>(s.k), b_type == CUDA_R_8F_E4M3 ? "e4m3" : "e5m2", f * 1e3,
                  t * 1e3, flop / f / 1e12, flop / t / 1e12, ratio);
      cudaFree(x.a);
      cudaFree(x.b);
      cudaFree(x.d);
    }
  }
  std::printf("fp8_split_accumulator_efficiency: %.4f (the median of split/fast over %zu GEMMs)\n",
              median(ratios), ratios.size());
}

// The share of the addition's bytes, at the copy rate, that shows in the
// accumulating GEMM's time: (t_accumulate - t_plain) / (extra bytes / rate).
struct Exposed {
  std::vector<double> bf16, fp32;
};

// One weight-gradient shape in one operand type: the GEMM writing a fresh
// BF16 D, adding into a BF16 buffer, adding into an FP32 one, alternating.
void accumulate_row(cublasLtHandle_t lt, cudaStream_t stream, void* ws, float* scale,
                    const Shape& s, bool fp8, double rate, Exposed& out) {
  Operands x;
  x.scale = scale;
  const std::size_t a_n = static_cast<std::size_t>(s.k) * s.m;
  const std::size_t b_n = static_cast<std::size_t>(s.k) * s.n;
  const std::size_t c_n = static_cast<std::size_t>(s.m) * s.n;
  const std::size_t width = fp8 ? 1 : 2;
  check(cudaMalloc(&x.a, a_n * width), "cudaMalloc A");
  check(cudaMalloc(&x.b, b_n * width), "cudaMalloc B");
  // D in BF16 for the plain and BF16 rows, in FP32 for the FP32 rows: each
  // buffer is added into at one width only (zeros at first), where a BF16
  // row over FP32 values would read their halves as numbers (NaN or Inf
  // among them).
  Operands x32 = x;
  check(cudaMalloc(&x.d, c_n * 2), "cudaMalloc D");
  check(cudaMalloc(&x32.d, c_n * 4), "cudaMalloc D (FP32)");
  check(cudaMemsetAsync(x.d, 0, c_n * 2, stream), "cudaMemsetAsync D");
  check(cudaMemsetAsync(x32.d, 0, c_n * 4, stream), "cudaMemsetAsync D (FP32)");
  if (fp8) {
    fill_uniform<<<1024, 256, 0, stream>>>(static_cast<__nv_fp8_e4m3*>(x.a), a_n, 1u);
    fill_uniform<<<1024, 256, 0, stream>>>(static_cast<__nv_fp8_e5m2*>(x.b), b_n, 2u);
  } else {
    fill_uniform<<<1024, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(x.a), a_n, 1u);
    fill_uniform<<<1024, 256, 0, stream>>>(static_cast<__nv_bfloat16*>(x.b), b_n, 2u);
  }
  check(cudaGetLastError(), "fill");
  // TE's weight gradient: the E4M3 input against the E5M2 output gradient,
  // split accumulation; Apex's: 16-bit operands.
  const cudaDataType_t a_type = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_16BF;
  const cudaDataType_t b_type = fp8 ? CUDA_R_8F_E5M2 : CUDA_R_16BF;
  Plan plain, add16, add32;
  make_plan(lt, s, a_type, b_type, false, CUDA_R_16BF, false, x, plain);
  make_plan(lt, s, a_type, b_type, false, CUDA_R_16BF, true, x, add16);
  make_plan(lt, s, a_type, b_type, false, CUDA_R_32F, true, x, add32);
  const double flop = 2.0 * s.m * s.n * s.k;
  const int calls = calls_for(flop);
  time_plan(lt, plain, x, ws, stream, calls, 3);
  time_plan(lt, add16, x, ws, stream, calls, 3);
  time_plan(lt, add32, x32, ws, stream, calls, 3);
  std::vector<double> t0, t16, t32;
  for (int i = 0; i < 5; ++i) {
    t0.push_back(time_plan(lt, plain, x, ws, stream, calls, 3));
    t16.push_back(time_plan(lt, add16, x, ws, stream, calls, 3));
    t32.push_back(time_plan(lt, add32, x32, ws, stream, calls, 3));
  }
  const double p0 = median(t0), p16 = median(t16), p32 = median(t32);
  // Beyond a fresh BF16 D: C read (2 B) into BF16; C read (4 B) and 2 B
  // more written a D element into FP32.
  const double extra16 = 2.0 * c_n, extra32 = 6.0 * c_n;
  const double e16 = (p16 - p0) / (extra16 / rate), e32 = (p32 - p0) / (extra32 / rate);
  out.bf16.push_back(e16);
  out.fp32.push_back(e32);
  std::printf("%5s %7lld %7lld %7lld %9.4f %10.4f %10.4f %12.1f %11.3f %11.3f\n",
              fp8 ? "fp8" : "bf16", static_cast<long long>(s.m), static_cast<long long>(s.n),
              static_cast<long long>(s.k), p0 * 1e3, p16 * 1e3, p32 * 1e3, flop / p0 / 1e12, e16,
              e32);
  cudaFree(x.a);
  cudaFree(x.b);
  cudaFree(x.d);
  cudaFree(x32.d);
}

}  // namespace

int main(int argc, char** argv) {
  // The NeMo rows' gradient GEMMs (m, n, k as cuBLAS's column-major m x n
  // output over k): Llama 2 7B's fc1 input gradient (T 4096 x h 4096 over
  // 2 x 11008) and weight gradient (22016 x 4096 over T 4096), QKV's
  // (4096 x 4096 over 12288, 12288 x 4096 over 4096), GPT-3 175B's at TP 4
  // and micro-batch 1 (2048 x 12288 over 9216; 9216 x 12288 over 2048), and
  // the square 8192 the presets' curve has.
  std::vector<Shape> shapes = {{4096, 4096, 22016}, {22016, 4096, 4096}, {4096, 4096, 12288},
                               {12288, 4096, 4096}, {2048, 12288, 9216}, {9216, 12288, 2048},
                               {8192, 8192, 8192}};
  // Weight gradients (C the weight: m x n; k the micro-batch's tokens):
  // GPT-3 175B at TP 4 (NeMo) over micro-batches of 1 and 2 (2048 and 4096
  // tokens): fc1 (12288 x 12288 a rank), QKV (9216 x 12288), the projection
  // (12288 x 3072); Llama 2 7B's fc1 and QKV over 4096 tokens; the 175B at
  // TP 8 (Korthikanti et al., 2048 tokens): fc1 6144 x 12288.
  std::vector<Shape> wgrads = {{12288, 12288, 2048}, {12288, 12288, 4096}, {9216, 12288, 2048},
                               {12288, 3072, 2048},  {22016, 4096, 4096},  {12288, 4096, 4096},
                               {6144, 12288, 2048}};
  if (argc > 1) {
    if ((argc - 1) % 3 != 0) {
      std::fprintf(stderr,
                   "brigade-fp8-probe: error: found %d numbers; expected M N K triples (GEMM "
                   "shapes)\n",
                   argc - 1);
      return 2;
    }
    shapes.clear();
    for (int i = 1; i + 2 < argc; i += 3) {
      Shape s{};
      char* end = nullptr;
      std::int64_t* dims[3] = {&s.m, &s.n, &s.k};
      for (int j = 0; j < 3; ++j) {
        *dims[j] = std::strtoll(argv[i + j], &end, 10);
        if (end == argv[i + j] || *end != '\0' || *dims[j] < 16 || *dims[j] > 65536 ||
            *dims[j] % 16 != 0) {
          std::fprintf(stderr,
                       "brigade-fp8-probe: error: found '%s'; expected a dimension from 16 to "
                       "65536, a multiple of 16 (FP8 GEMMs need 16-byte alignment)\n",
                       argv[i + j]);
          return 2;
        }
      }
      shapes.push_back(s);
    }
    wgrads = shapes;
  }

  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
  const bool has_fp8 = prop.major * 10 + prop.minor >= 89;
  int runtime = 0;
  check(cudaRuntimeGetVersion(&runtime), "cudaRuntimeGetVersion");
  std::printf("# brigade-fp8-probe: cuBLASLt FP8 GEMMs, CUBLASLT_MATMUL_DESC_FAST_ACCUM 1 and 0\n");
  std::printf("# GPU %s (sm_%d%d), CUDA runtime %d, cuBLASLt %zu\n", prop.name, prop.major,
              prop.minor, runtime, cublasLtGetVersion());

  cublasLtHandle_t lt = nullptr;
  check(cublasLtCreate(&lt), "cublasLtCreate");
  cudaStream_t stream = nullptr;
  check(cudaStreamCreate(&stream), "cudaStreamCreate");
  void* ws = nullptr;
  check(cudaMalloc(&ws, kWorkspace), "cudaMalloc workspace");
  float* scale = nullptr;
  check(cudaMalloc(&scale, sizeof(float)), "cudaMalloc scale");
  const float one = 1.0f;
  check(cudaMemcpy(scale, &one, sizeof one, cudaMemcpyHostToDevice), "cudaMemcpy scale");

  if (has_fp8)
    split_table(lt, stream, ws, scale, shapes);
  else
    std::printf("# no FP8 tensor cores (sm_%d%d; FP8 needs 8.9): the split table is skipped\n",
                prop.major, prop.minor);

  const double rate = copy_rate(stream);
  std::printf(
      "# weight gradients adding into the gradient buffer (beta 1, C = D) against the same GEMM "
      "writing a fresh BF16 D;\n# exposed: the extra time over the extra bytes' time at the copy "
      "rate, %.1f GB/s (cudaMemcpy device to device, read + written)\n",
      rate / 1e9);
  std::printf(
      "#  in       m       n       k  plain ms  +BF16 C ms  +FP32 C ms  plain TFLOP/s  "
      "exposed 16  exposed 32\n");
  Exposed fp8_rows, bf16_rows;
  for (const Shape& s : wgrads) {
    if (has_fp8) accumulate_row(lt, stream, ws, scale, s, true, rate, fp8_rows);
    accumulate_row(lt, stream, ws, scale, s, false, rate, bf16_rows);
  }
  if (has_fp8)
    std::printf("gemm_accumulate_exposed fp8: %.3f into BF16, %.3f into FP32 (medians of %zu)\n",
                median(fp8_rows.bf16), median(fp8_rows.fp32), fp8_rows.bf16.size());
  std::printf("gemm_accumulate_exposed bf16: %.3f into BF16, %.3f into FP32 (medians of %zu)\n",
              median(bf16_rows.bf16), median(bf16_rows.fp32), bf16_rows.bf16.size());
  cudaFree(scale);
  cudaFree(ws);
  cudaStreamDestroy(stream);
  cublasLtDestroy(lt);
  return 0;
}
