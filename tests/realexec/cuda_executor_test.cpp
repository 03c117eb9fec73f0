// The CUDA executor. Without a GPU (or without the CUDA backend built) every
// test but the first skips, saying why; scripts/gpu-check.sh runs them on a
// GPU machine.
#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "core/topology.hpp"
#include "realexec/executor.hpp"

namespace brigade::realexec {
namespace {

// n devices shaped like the GPU preset `h200x1`'s, joined through one switch
// (the executor maps them onto the GPUs present).
Topology gpu_topology(int n, double memory_bytes = 0) {
  const Device proto = make_preset("h200x1").value().device(0);
  Topology t;
  t.preset = "test-gpus";
  for (int d = 0; d < n; ++d) {
    Device dev = proto;
    dev.name = "gpu" + std::to_string(d);
    dev.local_index = d;
    if (memory_bytes > 0) dev.memory_bytes = memory_bytes;
    t.add_device(dev);
  }
  if (n > 1) {
    const int sw = t.add_switch(Switch{"nvswitch", 0});
    for (int d = 0; d < n; ++d)
      t.add_link(Link{d, sw, 1e-6, 450e9, LinkClass::kNvlink, "gpu" + std::to_string(d)});
  }
  EXPECT_TRUE(t.validate().is_ok());
  return t;
}

std::unique_ptr<RealExecutor> executor_or_skip(CudaOptions o = {}) {
  auto ex = make_cuda_executor(o);
  if (!ex.is_ok()) return nullptr;
  return std::move(ex).value();
}

#define SKIP_WITHOUT_GPU(ex)                               \
  do {                                                     \
    std::string why;                                       \
    if (!cuda_device_available(&why)) GTEST_SKIP() << why; \
    ASSERT_NE(ex, nullptr);                                \
  } while (0)

// No GPU is the machine's state, not the user's mistake: an environment
// failure (exit 1), as issue 20 item 6 asks.
TEST(CudaExecutor, WithoutAGpuTheBackendIsAnEnvironmentFailureSayingWhy) {
  std::string why;
  if (cuda_device_available(&why)) GTEST_SKIP() << "a GPU is present";
  auto ex = make_cuda_executor();
  ASSERT_FALSE(ex.is_ok());
  EXPECT_EQ(ex.status().kind(), ErrorKind::kRuntime);
  EXPECT_EQ(ex.message(), why);
#if defined(BRIGADE_HAVE_CUDA)
  EXPECT_EQ(why.rfind("no CUDA device: ", 0), 0u) << why;
#else
  EXPECT_EQ(why.rfind("the CUDA backend was not built", 0), 0u) << why;
#endif
}

TEST(CudaExecutor, GemmsRunInEveryDtypeTheBackendHas) {
  auto ex = executor_or_skip();
  SKIP_WITHOUT_GPU(ex);
  ProgramBuilder b("gemms", 1);
  const StreamId s = b.stream(0, "compute");
  for (DType t : {DType::kF64, DType::kF32, DType::kTF32, DType::kF16, DType::kBF16})
    b.add_gemm(s, 1024, 512, 768, t, std::string(dtype_name(t)), Phase::kForward,
               t == DType::kBF16 ? 4 : 1);
  b.add_memory_bound(s, 64 << 20, DType::kBF16, "stream");
  b.add_fixed(s, 1e10, 1e6, DType::kBF16, "fixed");
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  auto t = ex->run(*p, gpu_topology(1), HardwareProfile::defaults(), RunOptions{});
  ASSERT_TRUE(t.is_ok()) << t.message();
  ASSERT_EQ(t->spans.size(), 7u);
  for (size_t i = 1; i < t->spans.size(); ++i)
    EXPECT_LE(t->spans[i - 1].end_seconds, t->spans[i].start_seconds + 1e-6);
  for (const TraceSpan& sp : t->spans) EXPECT_GT(sp.end_seconds, sp.start_seconds);
}

// FP8 GEMMs through cuBLASLt (realexec/cuda_fp8_gemm.hpp): fast accumulation
// for a forward GEMM, off for Transformer Engine's gradient GEMMs
// (KernelClass::kGemmSplitAccumulator), a batch of 2 (strided:
// CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT 2 on A, B and D), a shape off the
// multiples of 16 padded with a warning; on a GPU without FP8 tensor
// cores, refused naming its compute capability.
TEST(CudaExecutor, Fp8GemmsRunBothWaysOrAreRefusedNamingTheComputeCapability) {
  auto ex = executor_or_skip();
  SKIP_WITHOUT_GPU(ex);
  ProgramBuilder b("fp8", 1);
  const StreamId s = b.stream(0, "compute");
  b.add_gemm(s, 1024, 512, 768, DType::kFP8, "fprop");
  const TaskId grad = b.add_gemm(s, 1024, 512, 768, DType::kFP8, "dgrad");
  b.task(grad).kernel = KernelClass::kGemmSplitAccumulator;
  b.add_gemm(s, 100, 64, 48, DType::kFP8, "odd");
  b.add_gemm(s, 1024, 512, 768, DType::kFP8, "batched", Phase::kForward, 2);
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok());
  auto t = ex->run(*p, gpu_topology(1), HardwareProfile::defaults(), RunOptions{});
  if (!t.is_ok()) {
    EXPECT_NE(t.message().find("cuda backend: task 0 'fprop' is an fp8 GEMM and GPU 0 has compute "
                               "capability "),
              std::string::npos)
        << t.message();
    EXPECT_NE(t.message().find("; expected 8.9 or later (Ada, Hopper) for FP8 tensor cores"),
              std::string::npos)
        << t.message();
    return;
  }
  ASSERT_EQ(t->spans.size(), 4u);
  for (const TraceSpan& sp : t->spans) EXPECT_GT(sp.end_seconds, sp.start_seconds);
  ASSERT_EQ(ex->warnings().size(), 1u);
  EXPECT_EQ(ex->warnings()[0].rfind("1 fp8 GEMM of program 'fp8' has a dimension that is not a "
                                    "multiple of 16",
                                    0),
            0u)
      << ex->warnings()[0];
}

// Weight-gradient GEMMs that add into their outputs (fused gradient
// accumulation, realexec/task_plan.hpp accumulate_width): bf16 into an FP32
// buffer (Apex's wgrad_gemm_accum_fp32) and into a bf16 one, f32, batched,
// and on FP8 tensor cores TE's split-accumulation wgrad into FP32, each with
// beta 1 beside the plain GEMM of its shape.
TEST(CudaExecutor, GemmsThatAddIntoTheirOutputsRunWithBetaOne) {
  auto ex = executor_or_skip();
  SKIP_WITHOUT_GPU(ex);
  ProgramBuilder b("wgrad", 1);
  const StreamId s = b.stream(0, "compute");
  const std::int64_t m = 1024, n = 512, k = 768;
  const double mn = static_cast<double>(m * n);
  auto accumulating = [&](DType t, double bytes_per_element, std::int64_t batch) {
    b.add_gemm(s, m, n, k, t, "plain", Phase::kBackward, batch);
    const TaskId id = b.add_gemm(s, m, n, k, t, "wgrad", Phase::kBackward, batch);
    b.task(id).gemm_mix =
        b.intern_gemm_mix({GemmMixShape{m, n, k, batch, 1, mn * batch * bytes_per_element}});
    return id;
  };
  accumulating(DType::kBF16, 6, 1);
  accumulating(DType::kBF16, 2, 1);
  accumulating(DType::kF32, 4, 2);
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  auto t = ex->run(*p, gpu_topology(1), HardwareProfile::defaults(), RunOptions{});
  ASSERT_TRUE(t.is_ok()) << t.message();
  ASSERT_EQ(t->spans.size(), 6u);
  for (const TraceSpan& sp : t->spans) EXPECT_GT(sp.end_seconds, sp.start_seconds);

  ProgramBuilder f("fp8 wgrad", 1);
  const StreamId fs = f.stream(0, "compute");
  f.task(f.add_gemm(fs, m, n, k, DType::kFP8, "plain")).kernel = KernelClass::kGemmSplitAccumulator;
  const TaskId w = f.add_gemm(fs, m, n, k, DType::kFP8, "wgrad");
  f.task(w).kernel = KernelClass::kGemmSplitAccumulator;
  f.task(w).gemm_mix = f.intern_gemm_mix({GemmMixShape{m, n, k, 1, 1, mn * 6}});
  auto fp = std::move(f).build();
  ASSERT_TRUE(fp.is_ok()) << fp.message();
  auto ft = ex->run(*fp, gpu_topology(1), HardwareProfile::defaults(), RunOptions{});
  if (!ft.is_ok()) {  // no FP8 tensor cores: refused as the test above says
    EXPECT_NE(ft.message().find("for FP8 tensor cores"), std::string::npos) << ft.message();
    return;
  }
  ASSERT_EQ(ft->spans.size(), 2u);
  for (const TraceSpan& sp : ft->spans) EXPECT_GT(sp.end_seconds, sp.start_seconds);
}

class CudaCollective : public ::testing::TestWithParam<std::tuple<CollectiveKind, int>> {};

TEST_P(CudaCollective, ResultsMatchTheReference) {
  auto [kind, devices] = GetParam();
  CudaOptions o;
  o.verify = Verify::kEveryStep;
  auto ex = executor_or_skip(o);
  SKIP_WITHOUT_GPU(ex);
  ProgramBuilder b("coll", devices);
  std::vector<std::int32_t> group;
  std::vector<StreamId> streams;
  for (int d = 0; d < devices; ++d) {
    group.push_back(d);
    streams.push_back(b.stream(d, "comm"));
  }
  const CollectiveId c1 =
      b.add_collective(kind, CollectiveAlgorithm::kRing, group, 12.0 * (1 << 20), streams, "big");
  const CollectiveId c2 =
      b.add_collective(kind, CollectiveAlgorithm::kRing, group, 4096 * 3, streams, "small");
  b.collective(c1).dtype = DType::kBF16;
  b.collective(c2).root = devices - 1;
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  RunOptions ro;
  ro.repeat = 3;
  auto t = ex->run(*p, gpu_topology(devices), HardwareProfile::defaults(), ro);
  ASSERT_TRUE(t.is_ok()) << t.message();
  EXPECT_EQ(t->spans.size(), static_cast<size_t>(2 * devices));
}

INSTANTIATE_TEST_SUITE_P(
    KindsAndDevices, CudaCollective,
    ::testing::Combine(::testing::Values(CollectiveKind::kAllReduce, CollectiveKind::kAllGather,
                                         CollectiveKind::kReduceScatter, CollectiveKind::kBroadcast,
                                         CollectiveKind::kReduce, CollectiveKind::kAllToAll),
                       ::testing::Values(1, 2, 3)),
    [](const ::testing::TestParamInfo<std::tuple<CollectiveKind, int>>& param_info) {
      return std::string(collective_kind_name(std::get<0>(param_info.param))) + "_" +
             std::to_string(std::get<1>(param_info.param)) + "dev";
    });

TEST(CudaExecutor, MoreDevicesThanGpusAreVirtualAndSaySo) {
  auto ex = executor_or_skip();
  SKIP_WITHOUT_GPU(ex);
  if (cuda_device_count() >= 9) GTEST_SKIP() << "9 or more GPUs: no virtual devices to test";
  ProgramBuilder b("virtual", 9);
  std::vector<std::int32_t> group;
  std::vector<StreamId> streams;
  for (int d = 0; d < 9; ++d) {
    group.push_back(d);
    streams.push_back(b.stream(d, "comm"));
  }
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group, 1 << 20, streams,
                   "ar");
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok());
  auto t = ex->run(*p, gpu_topology(9), HardwareProfile::defaults(), RunOptions{});
  ASSERT_TRUE(t.is_ok()) << t.message();
  EXPECT_EQ(t->source, "cuda (virtual devices)");
  ASSERT_EQ(ex->warnings().size(), 1u);
  EXPECT_NE(ex->warnings()[0].find(
                "collectives use Brigade's ring over device-to-device copies, not NCCL"),
            std::string::npos);
  EXPECT_FALSE(t->transfers.empty());
}

TEST(CudaExecutor, TransfersAndDependenciesAreOrdered) {
  auto ex = executor_or_skip();
  SKIP_WITHOUT_GPU(ex);
  ProgramBuilder b("deps", 2);
  const StreamId c0 = b.stream(0, "compute");
  const StreamId x0 = b.stream(0, "xfer");
  const StreamId c1 = b.stream(1, "compute");
  const TaskId produce = b.add_gemm(c0, 2048, 2048, 2048, DType::kBF16, "produce");
  const TaskId send = b.add_transfer(x0, 1, 64 << 20, "send");
  b.depend(send, produce);
  const TaskId consume = b.add_gemm(c1, 2048, 2048, 2048, DType::kBF16, "consume");
  b.depend(consume, send);
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok());
  auto t = ex->run(*p, gpu_topology(2), HardwareProfile::defaults(), RunOptions{});
  ASSERT_TRUE(t.is_ok()) << t.message();
  auto span = [&](TaskId id) {
    for (const TraceSpan& s : t->spans)
      if (s.task == id) return s;
    return TraceSpan{};
  };
  // Event times of dependent work on other streams: within a microsecond of order.
  EXPECT_LE(span(produce).end_seconds, span(send).start_seconds + 1e-6);
  EXPECT_LE(span(send).end_seconds, span(consume).start_seconds + 1e-6);
  ASSERT_EQ(t->transfers.size(), 1u);
}

TEST(CudaExecutor, APlanLargerThanTheDeviceFailsNamingDeviceBufferAndSizes) {
  auto ex = executor_or_skip();
  SKIP_WITHOUT_GPU(ex);
  ProgramBuilder b("oom", 1);
  const TaskId t0 = b.add_gemm(b.stream(0, "compute"), 64, 64, 64, DType::kF32, "fwd");
  const BufferId big = b.add_buffer("act", 0, 200e9, MemoryCategory::kActivations);
  b.alloc(t0, big);
  b.free(t0, big);
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok());
  // The plan's own capacity (the h200x1 preset: 143,771 MiB) is checked first...
  auto t = ex->run(*p, gpu_topology(1), HardwareProfile::defaults(), RunOptions{});
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.message(),
            "cuda backend: out of memory on device 0 'gpu0': buffer 'act' (task 0 'fwd') needs "
            "186 GiB; 0 B of 140 GiB are in use");
  // ... and a device that claims more than the GPU has fails at the real allocation.
  auto u = ex->run(*p, gpu_topology(1, 1e15), HardwareProfile::defaults(), RunOptions{});
  ASSERT_FALSE(u.is_ok());
  EXPECT_EQ(
      u.message().rfind("cuda backend: out of memory on GPU 0 (device 0 'gpu0'): buffer 'act' "
                        "(task 0 'fwd') needs 186 GiB (",
                        0),
      0u)
      << u.message();
  // Nothing was left behind: a normal run still works.
  ProgramBuilder ok("after", 1);
  ok.add_gemm(ok.stream(0, "compute"), 64, 64, 64, DType::kF32, "fwd");
  auto q = std::move(ok).build();
  ASSERT_TRUE(q.is_ok());
  EXPECT_TRUE(ex->run(*q, gpu_topology(1), HardwareProfile::defaults(), RunOptions{}).is_ok());
}

}  // namespace
}  // namespace brigade::realexec
