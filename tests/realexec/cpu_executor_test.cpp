// The CPU executor on Programs built in code: kernels, transfers, every
// collective kind on 2, 3 and 4 devices with their numerical checks, stream
// and dependency order in the trace, memory limits, dtype rejection, and no
// thread left behind.
#include <gtest/gtest.h>
#include <atomic>
#include <pthread.h>
#include <sched.h>

#include <cmath>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/profile.hpp"
#include "core/topology.hpp"
#include "realexec/cpu_kernels.hpp"
#include "realexec/executor.hpp"
#include "realexec/summary.hpp"
#include "realexec/task_plan.hpp"

namespace brigade::realexec {
namespace {

Topology host(int devices) {
  auto t = make_preset("cpu-host", 1, devices);
  EXPECT_TRUE(t.is_ok()) << t.message();
  return std::move(t).value();
}

// Host-thread devices with a small capacity, joined through one switch.
Topology small_host(int devices, double memory_bytes) {
  Topology t;
  t.preset = "small-host";
  for (int d = 0; d < devices; ++d) {
    Device dev;
    dev.name = "cpu" + std::to_string(d);
    dev.model = "host-thread";
    dev.kind = DeviceKind::kCpu;
    dev.memory_bytes = memory_bytes;
    dev.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kF32))] = 80e9;
    dev.memory_bandwidth_bytes_per_second = 10e9;
    t.add_device(dev);
  }
  const int sw = t.add_switch(Switch{"host-memory", 0});
  for (int d = 0; d < devices; ++d)
    t.add_link(Link{d, sw, 0.5e-6, 10e9, LinkClass::kSharedMemory, "cpu" + std::to_string(d)});
  EXPECT_TRUE(t.validate().is_ok());
  return t;
}

// Threads of this process (Linux: /proc/self/status).
int thread_count() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Threads:", 0) == 0) return std::stoi(line.substr(8));
  return -1;
}

const TraceSpan& span_of(const Trace& t, TaskId task) {
  for (const TraceSpan& s : t.spans)
    if (s.task == task) return s;
  static TraceSpan none;
  ADD_FAILURE() << "no span for task " << task;
  return none;
}

Result<Trace> run(const Program& p, const Topology& topo, CpuOptions o = {}) {
  auto ex = make_cpu_executor(o);
  return ex->run(p, topo, HardwareProfile::defaults(), RunOptions{});
}

// `repeat` steps, every one checked (the first a warm-up, not returned).
Result<std::vector<Trace>> checked_steps(const Program& p, const Topology& topo, int repeat) {
  CpuOptions o;
  o.verify = Verify::kEveryStep;
  auto ex = make_cpu_executor(o);
  RunOptions ro;
  ro.repeat = repeat;
  return ex->run_steps(p, topo, HardwareProfile::defaults(), ro);
}

TEST(CpuExecutor, RunsGemmsAndStreamsAndNamesTheTrace) {
  ProgramBuilder b("kernels", 1);
  const StreamId s = b.stream(0, "compute");
  const TaskId g32 = b.add_gemm(s, 48, 40, 56, DType::kF32, "mm32", Phase::kForward, 3);
  const TaskId g64 = b.add_gemm(s, 17, 9, 33, DType::kF64, "mm64");
  const TaskId m = b.add_memory_bound(s, 1 << 20, DType::kBF16, "relu");
  const TaskId f = b.add_fixed(s, 2e6, 0, DType::kF32, "fixed");
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  auto t = run(*p, host(1));
  ASSERT_TRUE(t.is_ok()) << t.message();
  EXPECT_EQ(t->source, "cpu");
  EXPECT_EQ(t->program, "kernels");
  ASSERT_EQ(t->device_names.size(), 1u);
  EXPECT_EQ(t->device_names[0], "cpu0");
  ASSERT_EQ(t->spans.size(), 4u);
  for (TaskId id : {g32, g64, m, f}) {
    const TraceSpan& sp = span_of(*t, id);
    EXPECT_LE(sp.start_seconds, sp.end_seconds);
    EXPECT_EQ(t->names[static_cast<size_t>(sp.name)], p->task_name(id));
  }
}

// A batched GEMM's members each read their own A and B and write their own C,
// as a real batch (attention's heads) does and as the cost model charges it
// (gemm_bytes: batch x (A + B + C)). Worked by hand for 2x2x2 in f32: the
// pattern's element i is ((i mod 7) - 3) / 8; a member takes 12 elements.
// Member 0: A = [p0 p2; p1 p3], B = [p4 p6; p5 p7], so C(0,0) = p0 p4 + p2 p5
// = (-3/8)(1/8) + (-1/8)(2/8) = -5/64. Member 1 (elements 12-23): C(0,0) =
// p12 p16 + p14 p17 = (2/8)(-1/8) + (-3/8)(0) = -1/32.
TEST(CpuKernels, EachMemberOfABatchHasItsOwnOperands) {
  const std::int64_t m = 2, n = 2, k = 2, batch = 2;
  const std::size_t bytes = cpu::gemm_workspace_bytes(false, m, n, k, batch);
  ASSERT_EQ(bytes, 2u * 12u * 4u);
  auto ws = cpu::HostBuffer::allocate(bytes);
  ASSERT_TRUE(ws.is_ok());
  cpu::fill_gemm_workspace(false, ws->data(), bytes);
  cpu::gemm(false, ws->data(), m, n, k, batch);
  const auto* f = reinterpret_cast<const float*>(ws->data());
  EXPECT_EQ(f[8], -5.0f / 64.0f);       // member 0's C(0,0)
  EXPECT_EQ(f[12 + 8], -1.0f / 32.0f);  // member 1's C(0,0)
  EXPECT_TRUE(cpu::check_gemm(false, ws->data(), m, n, k).ok);
}

// A GEMM that adds into its output (fused gradient accumulation) reads the
// C it finds. The same 2x2x2 f32 member 0, its C filled with the pattern
// too: C(0,0) held p8 = ((8 mod 7) - 3) / 8 = -1/4 and becomes -1/4 - 5/64 =
// -21/64; C(1,1) held p11 = (4 - 3) / 8 = 1/8 and gains A(1,0) B(0,1) +
// A(1,1) B(1,1) = p1 p6 + p3 p7 = (-2/8)(3/8) + (0)(-3/8) = -3/32, so 1/32.
// The check knows which it was.
TEST(CpuKernels, AGemmThatAccumulatesAddsIntoTheOutputItFinds) {
  const std::int64_t m = 2, n = 2, k = 2;
  const std::size_t bytes = cpu::gemm_workspace_bytes(false, m, n, k, 1);
  auto ws = cpu::HostBuffer::allocate(bytes);
  ASSERT_TRUE(ws.is_ok());
  cpu::fill_gemm_operands(false, ws->data(), m, n, k, /*with_output=*/true);
  const auto* f = reinterpret_cast<const float*>(ws->data());
  EXPECT_EQ(f[8], -0.25f);
  EXPECT_EQ(f[11], 0.125f);
  cpu::gemm(false, ws->data(), m, n, k, 1, /*accumulate=*/true);
  EXPECT_EQ(f[8], -21.0f / 64.0f);
  EXPECT_EQ(f[11], 1.0f / 32.0f);
  EXPECT_TRUE(cpu::check_gemm(false, ws->data(), m, n, k, /*accumulated=*/true).ok);
  const cpu::GemmCheck fresh = cpu::check_gemm(false, ws->data(), m, n, k);
  EXPECT_FALSE(fresh.ok);
  EXPECT_EQ(fresh.want, -5.0 / 64.0);
  EXPECT_EQ(fresh.got, -21.0 / 64.0);
}

// Which GEMMs add into their outputs, and at what width: a kGemm task whose
// own gemm_mix entry carries accumulate_bytes = m n (2g - e) (costmodel/
// transformer_blocks.cpp), e = 2 for bf16 and fp8 (a BF16 D), 4 for f32.
// bf16 into Megatron's FP32 main_grad: 6 B an element, g = 4; into a bf16
// buffer: 2 B, g = 2; fp8 (TE's wgrad into main_grad): 6 B, g = 4; an f32
// model: 2 x 4 - 4 = 4 B, g = 4. A plain GEMM, a fused task with GEMM
// shapes and a streaming task: 0.
TEST(TaskPlan, AccumulateWidthIsTheGradientBuffersElementBytes) {
  ProgramBuilder b("accumulate", 1);
  const StreamId s = b.stream(0, "compute");
  const std::int64_t m = 64, n = 32, k = 16;
  const double mn = static_cast<double>(m * n);
  auto accumulating = [&](DType t, double bytes_per_element) {
    const TaskId id = b.add_gemm(s, m, n, k, t, "wgrad");
    b.task(id).gemm_mix = b.intern_gemm_mix({GemmMixShape{m, n, k, 1, 1, mn * bytes_per_element}});
    return id;
  };
  const TaskId bf16_fp32 = accumulating(DType::kBF16, 6);
  const TaskId bf16_bf16 = accumulating(DType::kBF16, 2);
  const TaskId fp8_fp32 = accumulating(DType::kFP8, 6);
  const TaskId f32 = accumulating(DType::kF32, 4);
  const TaskId plain = b.add_gemm(s, m, n, k, DType::kBF16, "fprop");
  const TaskId fused = b.add_fixed(s, 1e9, 1e6, DType::kBF16, "run");
  b.task(fused).gemm_mix = b.intern_gemm_mix({GemmMixShape{m, n, k, 1, 4, 0}});
  const TaskId stream = b.add_memory_bound(s, 1 << 20, DType::kBF16, "add");
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  EXPECT_EQ(accumulate_width(*p, p->task(bf16_fp32)), 4);
  EXPECT_EQ(accumulate_width(*p, p->task(bf16_bf16)), 2);
  EXPECT_EQ(accumulate_width(*p, p->task(fp8_fp32)), 4);
  EXPECT_EQ(accumulate_width(*p, p->task(f32)), 4);
  EXPECT_EQ(accumulate_width(*p, p->task(plain)), 0);
  EXPECT_EQ(accumulate_width(*p, p->task(fused)), 0);
  EXPECT_EQ(accumulate_width(*p, p->task(stream)), 0);
}

// The executor runs an accumulating GEMM as one (each checked run against
// the C it was given), step after step, batched and not, beside plain ones.
TEST(CpuExecutor, GemmsThatAddIntoTheirOutputsAreCheckedAgainstWhatTheyAddTo) {
  ProgramBuilder b("wgrad", 1);
  const StreamId s = b.stream(0, "compute");
  b.add_gemm(s, 48, 40, 56, DType::kF32, "fprop");
  for (std::int64_t batch : {1, 3}) {
    const TaskId w = b.add_gemm(s, 48, 40, 56, DType::kF32, "wgrad", Phase::kBackward, batch);
    b.task(w).gemm_mix =
        b.intern_gemm_mix({GemmMixShape{48, 40, 56, batch, 1, 48.0 * 40 * batch * 4}});
  }
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  auto steps = checked_steps(*p, host(1), 3);
  ASSERT_TRUE(steps.is_ok()) << steps.message();
  EXPECT_EQ(steps->size(), 2u);
}

// The norm and activation classes' kernels (what the executor runs for a
// task of KernelClass kNorm* / kActivation*) compute what they say, out of
// the scratch's first half into its second. A LayerNorm row of kNormRow
// elements alternating -1, +1: mean 0, variance 1, so y = x / sqrt(1 +
// 1e-5). The tanh GeLU of 1: 0.5 (1 + tanh(0.7978845608 x 1.044715)) =
// 0.841192; of -1: -0.158808; of 0: 0. Bytes are 8 an element, so one
// row's bytes touch one row and leave the rest of the second half as it was.
TEST(CpuKernels, NormAndGeluComputeTheirFunctions) {
  constexpr auto kRow = static_cast<std::size_t>(kNormRow);  // realexec/out_of_place.hpp
  const std::size_t n = 2 * kRow;                            // two halves of one row each
  std::vector<float> scratch(2 * n, 7.0f);
  for (std::size_t i = 0; i < kRow; ++i) scratch[i] = i % 2 ? 1.0f : -1.0f;
  cpu::layer_norm(scratch.data(), scratch.size(), 8.0 * kNormRow);
  const float inv = 1.0f / std::sqrt(1.0f + 1e-5f);
  EXPECT_FLOAT_EQ(scratch[n], -inv);
  EXPECT_FLOAT_EQ(scratch[n + 1], inv);
  EXPECT_FLOAT_EQ(scratch[n + kRow - 1], inv);
  EXPECT_EQ(scratch[n + kRow], 7.0f);           // beyond the bytes: untouched
  EXPECT_EQ(scratch[0], -1.0f);                 // the input is read, not written
  std::vector<float> g = {1.0f, -1.0f, 0.0f, 5.0f, 9.0f, 9.0f, 9.0f, 9.0f};
  cpu::gelu(g.data(), g.size(), 8.0 * 3);
  EXPECT_NEAR(g[4], 0.841192f, 1e-5);
  EXPECT_NEAR(g[5], -0.158808f, 1e-5);
  EXPECT_EQ(g[6], 0.0f);
  EXPECT_EQ(g[7], 9.0f);  // the fourth element's bytes were not asked for
}

// The gated activation's kernel (KernelClass kGated*): SwiGLU over the
// scratch's thirds, gate, up and out, 12 bytes an output element. silu(1)
// x 2 = 2 / (1 + e^-1) = 1.462117; silu(0) x 5 = 0; silu(-1) x 1 =
// -1 / (1 + e) = -0.268941. Three elements' bytes leave the fourth output
// as it was, and the inputs unwritten.
TEST(CpuKernels, SwigluComputesItsFunction) {
  std::vector<float> s = {1.0f, 0.0f, -1.0f, 2.0f,   // gate
                          2.0f, 5.0f, 1.0f,  9.0f,   // up
                          7.0f, 7.0f, 7.0f,  7.0f};  // out
  cpu::swiglu(s.data(), s.size(), 12.0 * 3);
  EXPECT_NEAR(s[8], 1.462117f, 1e-5);
  EXPECT_NEAR(s[9], 0.0f, 1e-7);
  EXPECT_NEAR(s[10], -0.268941f, 1e-5);
  EXPECT_EQ(s[11], 7.0f);
  EXPECT_EQ(s[0], 1.0f);
  EXPECT_EQ(s[4], 2.0f);
  // Passes: a task of more bytes than a third holds runs the thirds again.
  std::vector<float> t = {1.0f, 2.0f, 7.0f};
  cpu::swiglu(t.data(), t.size(), 12.0 * 5);
  EXPECT_NEAR(t[2], 1.462117f, 1e-5);
}

TEST(CpuExecutor, TasksOfAStreamRunInIssueOrder) {
  ProgramBuilder b("order", 1);
  const StreamId s = b.stream(0, "compute");
  std::vector<TaskId> ids;
  for (int i = 0; i < 5; ++i)
    ids.push_back(b.add_gemm(s, 8, 8, 8, DType::kF32, "g" + std::to_string(i)));
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok());
  CpuOptions o;
  o.clock = std::make_shared<FakeClock>(1e-6);  // every read 1 us later than the one before
  auto t = run(*p, host(1), o);
  ASSERT_TRUE(t.is_ok()) << t.message();
  for (size_t i = 1; i < ids.size(); ++i)
    EXPECT_LT(span_of(*t, ids[i - 1]).end_seconds, span_of(*t, ids[i]).start_seconds);
}

TEST(CpuExecutor, DependenciesAcrossStreamsAndDevicesAreWaitedFor) {
  ProgramBuilder b("deps", 2);
  const StreamId c0 = b.stream(0, "compute");
  const StreamId x0 = b.stream(0, "xfer");
  const StreamId c1 = b.stream(1, "compute");
  const TaskId produce = b.add_gemm(c0, 64, 64, 64, DType::kF32, "produce");
  const TaskId send = b.add_transfer(x0, 1, 1 << 16, "send");
  b.depend(send, produce);
  const TaskId consume = b.add_gemm(c1, 64, 64, 64, DType::kF32, "consume");
  b.depend(consume, send);
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  CpuOptions o;
  o.clock = std::make_shared<FakeClock>(1e-6);
  auto t = run(*p, host(2), o);
  ASSERT_TRUE(t.is_ok()) << t.message();
  EXPECT_LT(span_of(*t, produce).end_seconds, span_of(*t, send).start_seconds);
  EXPECT_LT(span_of(*t, send).end_seconds, span_of(*t, consume).start_seconds);
  ASSERT_EQ(t->transfers.size(), 1u);
  EXPECT_EQ(t->transfers[0].src, 0);
  EXPECT_EQ(t->transfers[0].dst, 1);
  EXPECT_EQ(t->transfers[0].bytes, 65536.0);
  ASSERT_EQ(t->lanes.size(), 1u);
  EXPECT_EQ(t->lanes[0], "cpu0->cpu1");
}

struct CollCase {
  CollectiveKind kind;
  int devices;
  DType dtype;
  double bytes;
};

class CpuCollective : public ::testing::TestWithParam<CollCase> {};

TEST_P(CpuCollective, ResultMatchesTheReferenceAndRanksEndTogether) {
  const CollCase c = GetParam();
  ProgramBuilder b("coll", c.devices);
  std::vector<std::int32_t> group;
  std::vector<StreamId> streams;
  for (int d = 0; d < c.devices; ++d) {
    group.push_back(d);
    streams.push_back(b.stream(d, "comm"));
  }
  // Two back to back, so the second reuses the first's buffers.
  const CollectiveId first =
      b.add_collective(c.kind, CollectiveAlgorithm::kRing, group, c.bytes, streams, "first");
  const CollectiveId second =
      b.add_collective(c.kind, CollectiveAlgorithm::kRing, group, c.bytes / 2, streams, "second");
  b.collective(first).dtype = c.dtype;
  b.collective(second).dtype = c.dtype;
  b.collective(second).root = c.devices - 1;
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  auto steps = checked_steps(*p, host(c.devices), 2);
  ASSERT_TRUE(steps.is_ok()) << steps.message();
  ASSERT_EQ(steps->size(), 1u);  // the warm-up step is not returned
  const Trace& t = steps->front();
  ASSERT_EQ(t.spans.size(), static_cast<size_t>(2 * c.devices));
  for (CollectiveId id : {first, second}) {
    const auto& tasks = p->collectives()[static_cast<size_t>(id)].tasks;
    for (TaskId task : tasks) {
      EXPECT_EQ(span_of(t, task).start_seconds, span_of(t, tasks[0]).start_seconds);
      EXPECT_EQ(span_of(t, task).end_seconds, span_of(t, tasks[0]).end_seconds);
    }
  }
  if (c.devices > 1) {
    EXPECT_FALSE(t.transfers.empty());
  }
}

std::vector<CollCase> coll_cases() {
  std::vector<CollCase> v;
  for (int k = 0; k < kNumCollectiveKinds; ++k)
    for (int n : {2, 3, 4})
      v.push_back(CollCase{static_cast<CollectiveKind>(k), n, DType::kF32, 3.0 * (1 << 20) + 12});
  for (DType d : {DType::kF64, DType::kF16, DType::kBF16, DType::kI32})
    v.push_back(CollCase{CollectiveKind::kAllReduce, 3, d, 100000});
  v.push_back(CollCase{CollectiveKind::kAllReduce, 1, DType::kF32, 4096});
  return v;
}

INSTANTIATE_TEST_SUITE_P(Kinds, CpuCollective, ::testing::ValuesIn(coll_cases()),
                         [](const ::testing::TestParamInfo<CollCase>& param_info) {
                           return std::string(collective_kind_name(param_info.param.kind)) + "_" +
                                  std::to_string(param_info.param.devices) + "dev_" +
                                  std::string(dtype_name(param_info.param.dtype));
                         });

Program allreduce_program(int devices, double bytes) {
  ProgramBuilder b("ar", devices);
  std::vector<std::int32_t> group;
  std::vector<StreamId> streams;
  for (int d = 0; d < devices; ++d) {
    group.push_back(d);
    streams.push_back(b.stream(d, "comm"));
  }
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group, bytes, streams,
                   "grads");
  return std::move(b).build().value();
}

TEST(CpuExecutor, AWrongCollectiveResultIsARuntimeFailureNamingTheElement) {
  const Program p = allreduce_program(3, 4096);
  CpuOptions o;
  o.corrupt_collective = 0;
  const int before = thread_count();
  auto t = run(p, host(3), o);
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.status().kind(), ErrorKind::kRuntime);
  // Rank 0 is device 0: element 0 should be the sum over devices 0, 1, 2 of
  // input_value(d, 0) = d % 3 + 1, i.e. 1 + 2 + 3 = 6; the injected fault made it 7.
  EXPECT_EQ(t.message(),
            "cpu backend: allreduce task 0 'grads' (collective 0) on device 0 'cpu0', rank 0 of 3: "
            "element 0 is 7; expected 6");
  EXPECT_EQ(thread_count(), before);
}

TEST(CpuExecutor, ABufferLargerThanTheDeviceFailsNamingDeviceBufferAndSizes) {
  ProgramBuilder b("oom", 2);
  const StreamId s0 = b.stream(0, "compute");
  const StreamId s1 = b.stream(1, "compute");
  b.add_gemm(s0, 8, 8, 8, DType::kF32, "fwd0");
  const TaskId c = b.add_gemm(s1, 8, 8, 8, DType::kF32, "fwd1");
  b.add_buffer("weights", 1, 48.0 * (1 << 20), MemoryCategory::kParams, true);
  const BufferId act = b.add_buffer("act", 1, 24.0 * (1 << 20), MemoryCategory::kActivations);
  b.alloc(c, act);
  b.free(c, act);
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  const int before = thread_count();
  auto t = run(*p, small_host(2, 64.0 * (1 << 20)));
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.status().kind(), ErrorKind::kBadInput);
  EXPECT_EQ(t.message(),
            "cpu backend: out of memory on device 1 'cpu1': buffer 'act' (task 1 'fwd1') needs "
            "24.0 MiB; 48.0 MiB of 64.0 MiB are in use");
  EXPECT_EQ(thread_count(), before);
}

TEST(CpuExecutor, ResidentBuffersThatDoNotFitFailBeforeAnyTaskRuns) {
  ProgramBuilder b("resident", 1);
  b.add_gemm(b.stream(0, "compute"), 8, 8, 8, DType::kF32, "fwd");
  b.add_buffer("weights", 0, 40.0 * (1 << 20), MemoryCategory::kParams, true);
  b.add_buffer("adam", 0, 40.0 * (1 << 20), MemoryCategory::kOptimizer, true);
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok());
  auto t = run(*p, small_host(1, 64.0 * (1 << 20)));
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.message(),
            "cpu backend: out of memory on device 0 'cpu0': buffer 'adam' (resident) needs "
            "40.0 MiB; 40.0 MiB of 64.0 MiB are in use");
}

TEST(CpuExecutor, TheHostLimitCoversWorkspacesToo) {
  ProgramBuilder b("big", 1);
  const StreamId s = b.stream(0, "compute");
  b.add_gemm(s, 1024, 1024, 1024, DType::kF32, "mm");  // 3 x 4 MiB of operands
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok());
  CpuOptions o;
  o.host_memory_limit_bytes = 8.0 * (1 << 20);
  auto t = run(*p, host(1), o);
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.message(),
            "cpu backend: host memory limit reached: GEMM operands of stream 'compute' on device 0 "
            "'cpu0' need 12.0 MiB; 0 B of the 8.00 MiB limit are in use");
}

TEST(CpuExecutor, MemorySamplesFollowAllocationsAndFrees) {
  ProgramBuilder b("mem", 1);
  const StreamId s = b.stream(0, "compute");
  const TaskId f = b.add_gemm(s, 16, 16, 16, DType::kF32, "fwd");
  const TaskId g = b.add_gemm(s, 16, 16, 16, DType::kF32, "bwd");
  b.add_buffer("w", 0, 4096, MemoryCategory::kParams, true);
  const BufferId act = b.add_buffer("act", 0, 8192, MemoryCategory::kActivations);
  b.alloc(f, act);
  b.free(g, act);
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok());
  auto t = run(*p, host(1));
  ASSERT_TRUE(t.is_ok()) << t.message();
  std::vector<std::pair<MemoryCategory, double>> seen;
  for (const MemorySample& m : t->memory) seen.emplace_back(m.category, m.bytes);
  const std::vector<std::pair<MemoryCategory, double>> want = {{MemoryCategory::kParams, 4096},
                                                               {MemoryCategory::kActivations, 8192},
                                                               {MemoryCategory::kActivations, 0}};
  EXPECT_EQ(seen, want);
  EXPECT_EQ(t->memory[0].time_seconds, 0.0);
}

TEST(CpuExecutor, A16BitGemmIsRejectedUnlessAllowedInF32) {
  ProgramBuilder b("half", 1);
  const StreamId s = b.stream(0, "compute");
  b.add_gemm(s, 32, 32, 32, DType::kBF16, "attn");
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok());
  auto t = run(*p, host(1));
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.status().kind(), ErrorKind::kBadInput);
  EXPECT_EQ(t.message(),
            "cpu backend: task 0 'attn' is a bf16 GEMM; the CPU backend computes f64 and f32 "
            "(tf32 as f32), and f16 and bf16 only when allowed to compute them in f32");
  CpuOptions o;
  o.compute_16bit_in_f32 = true;
  auto ok = run(*p, host(1), o);
  ASSERT_TRUE(ok.is_ok()) << ok.message();
  EXPECT_EQ(ok->source, "cpu (f16/bf16 computed in f32)");
}

TEST(CpuExecutor, AnFp8CollectiveIsRejected) {
  ProgramBuilder b("fp8", 2);
  const CollectiveId c =
      b.add_collective(CollectiveKind::kAllGather, CollectiveAlgorithm::kRing, {0, 1}, 1024,
                       {b.stream(0, "comm"), b.stream(1, "comm")}, "gather");
  b.collective(c).dtype = DType::kFP8;
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok());
  auto t = run(*p, host(2));
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.message(),
            "cpu backend: collective 0 (task 0 'gather') reduces fp8; the CPU backend reduces f64, "
            "f32, tf32, f16, bf16 and i32");
}

TEST(CpuExecutor, MoreDevicesThanCoresIsWarnedAbout) {
  const Program p = allreduce_program(3, 4096);
  CpuOptions o;
  o.hardware_threads = 2;
  auto ex = make_cpu_executor(o);
  auto t = ex->run(p, host(3), HardwareProfile::defaults(), RunOptions{});
  ASSERT_TRUE(t.is_ok()) << t.message();
  ASSERT_EQ(ex->warnings().size(), 1u);
  EXPECT_EQ(ex->warnings()[0],
            "program 'ar' has 3 devices and this process 2 CPUs to run on: devices share cores, so "
            "measured times include time-slicing");
}

// CpuOptions::communication_first and pin_devices: which thread runs where.
// Data parallelism's shape: per device a compute stream (a GEMM) and a comm
// stream (an AllReduce after it).
Program compute_and_comm_program(int devices) {
  ProgramBuilder b("overlap", devices);
  std::vector<std::int32_t> group;
  std::vector<StreamId> comm;
  std::vector<TaskId> gemms;
  for (int d = 0; d < devices; ++d) {
    const StreamId c = b.stream(d, "compute");
    gemms.push_back(b.add_gemm(c, 64, 64, 64, DType::kF32, "mm"));
    group.push_back(d);
    comm.push_back(b.stream(d, "comm"));
  }
  const CollectiveId ar = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                           group, 4096, comm, "grads");
  for (int d = 0; d < devices; ++d)
    b.depend(b.collective(ar).tasks[static_cast<size_t>(d)], gemms[static_cast<size_t>(d)]);
  auto p = std::move(b).build();
  EXPECT_TRUE(p.is_ok()) << p.message();
  return std::move(p).value();
}

TEST(CpuPlacement, ComputeYieldsToCommunicationAndEachDeviceIsACore) {
  const Program p = compute_and_comm_program(2);
  // Streams in creation order: d0 compute, d0 comm, d1 compute, d1 comm.
  // Two CPUs for two devices: a device's threads share its core, compute idle.
  auto two = cpu_stream_placement(p, 2, CpuOptions{}, {4, 7});
  ASSERT_EQ(two.size(), 4u);
  EXPECT_TRUE(two[0].idle);
  EXPECT_FALSE(two[1].idle);
  EXPECT_EQ(two[0].cpu, 4);
  EXPECT_EQ(two[1].cpu, 4);
  EXPECT_EQ(two[2].cpu, 7);
  EXPECT_EQ(two[3].cpu, 7);
  // Four CPUs: communication gets a core of its own, next to its device's.
  auto four = cpu_stream_placement(p, 2, CpuOptions{}, {0, 1, 2, 3});
  EXPECT_EQ(four[0].cpu, 0);
  EXPECT_EQ(four[1].cpu, 1);
  EXPECT_EQ(four[2].cpu, 2);
  EXPECT_EQ(four[3].cpu, 3);
  // Three CPUs for two devices is not two each: one core per device.
  auto three = cpu_stream_placement(p, 2, CpuOptions{}, {0, 1, 2});
  EXPECT_EQ(three[1].cpu, 0);
  EXPECT_EQ(three[3].cpu, 1);
  // Both switched off.
  CpuOptions plain;
  plain.communication_first = false;
  plain.pin_devices = false;
  for (const StreamPlacement& w : cpu_stream_placement(p, 2, plain, {0, 1})) {
    EXPECT_FALSE(w.idle);
    EXPECT_EQ(w.cpu, -1);
  }
}

TEST(CpuPlacement, MoreDevicesThanCpusWrapAround) {
  EXPECT_EQ(pinned_cpu(0, 3, false, {5, 6}), 5);
  EXPECT_EQ(pinned_cpu(1, 3, true, {5, 6}), 6);
  EXPECT_EQ(pinned_cpu(2, 3, false, {5, 6}), 5);
  EXPECT_EQ(pinned_cpu(2, 3, false, {}), -1);
  EXPECT_FALSE(communication_has_own_core(3, {0, 1, 2, 3, 4}));
  EXPECT_TRUE(communication_has_own_core(3, {0, 1, 2, 3, 4, 5}));
  EXPECT_FALSE(communication_has_own_core(0, {0, 1}));
}

TEST(CpuPlacement, APlacedThreadRunsIdleOnItsCpu) {
  const std::vector<int> cpus = usable_cpus();
  ASSERT_FALSE(cpus.empty());
  const int cpu = cpus.back();
  int policy = -1;
  bool ok = false, only_there = false;
  std::thread([&] {
    ok = place_this_thread(StreamPlacement{true, cpu});
    policy = sched_getscheduler(0);
    cpu_set_t set;
    CPU_ZERO(&set);
    only_there = pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0 &&
                 CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
  }).join();
  EXPECT_TRUE(ok);
  EXPECT_EQ(policy, SCHED_IDLE);
  EXPECT_TRUE(only_there);
}

TEST(CpuPlacement, ARunWithComputeIdleAndPinnedGivesCheckedResults) {
  // The overlap program on two devices, every step verified, with the
  // placement on and off: the same spans either way.
  const Program p = compute_and_comm_program(2);
  for (bool on : {true, false}) {
    CpuOptions o;
    o.verify = Verify::kEveryStep;
    o.communication_first = on;
    o.pin_devices = on;
    auto ex = make_cpu_executor(o);
    RunOptions ro;
    ro.repeat = 3;
    auto t = ex->run(p, host(2), HardwareProfile::defaults(), ro);
    ASSERT_TRUE(t.is_ok()) << t.message();
    EXPECT_EQ(t->spans.size(), 4u);
  }
}

TEST(CpuExecutor, ATopologyWithFewerDevicesIsBadInput) {
  const Program p = allreduce_program(3, 4096);
  auto t = run(p, host(2));
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.message(), "program 'ar' uses 3 devices; the topology 'cpu-host' has 2");
}

TEST(CpuExecutor, RepeatedRunsAreSummarisedPerKind) {
  ProgramBuilder b("rep", 2);
  const StreamId c0 = b.stream(0, "compute");
  const StreamId c1 = b.stream(1, "compute");
  const TaskId g0 = b.add_gemm(c0, 32, 32, 32, DType::kF32, "g0");
  const TaskId g1 = b.add_gemm(c1, 32, 32, 32, DType::kF32, "g1");
  const CollectiveId ar = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                           {0, 1}, 8192, {c0, c1}, "ar");
  (void)ar;
  (void)g0;
  (void)g1;
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok());
  auto ex = make_cpu_executor();
  auto r = run_repeated(*ex, *p, host(2), HardwareProfile::defaults(), 3);
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->steps.size(), 3u);
  EXPECT_EQ(r->summary.steps, 3);
  ASSERT_EQ(r->summary.kinds.size(), 2u);
  EXPECT_EQ(r->summary.kinds[0].kind, "allreduce");
  EXPECT_EQ(r->summary.kinds[0].spans_per_step, 2);
  EXPECT_EQ(r->summary.kinds[1].kind, "gemm");
  EXPECT_GT(r->summary.median_step_seconds, 0.0);
  EXPECT_GE(r->summary.p90_step_seconds, r->summary.median_step_seconds);
}

// The warm-up (task_plan.hpp run_repeated): one verified step, then untimed
// steps until they have taken warmup_seconds in all, then the timed steps.
// Steps of 10 ms and a warm-up of 35 ms: warm-up steps at 10, 20, 30, 40 ms
// of warm-up, i.e. 4, then 2 timed ones; only the first step verifies.
TEST(RunRepeated, WarmsUpForAsLongAsAsked) {
  std::vector<bool> checks;
  auto step = [&](double seconds) {
    return [&checks, seconds](bool verify) -> Result<Trace> {
      checks.push_back(verify);
      Trace t;
      t.spans.push_back(TraceSpan{0, 0, 0, 0.0, seconds});
      return t;
    };
  };
  RunOptions o;
  o.repeat = 3;
  o.warmup_seconds = 0.035;
  auto r = run_repeated(o, Verify::kFirstStep, step(0.01));
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->size(), 2u);
  EXPECT_EQ(checks, (std::vector<bool>{true, false, false, false, false, false}));
  // Steps that take no time end the warm-up at once (no endless loop).
  checks.clear();
  auto z = run_repeated(o, Verify::kFirstStep, step(0.0));
  ASSERT_TRUE(z.is_ok());
  EXPECT_EQ(checks.size(), 4u);  // the first, one more that took no time, 2 timed
  // No warm-up asked: the first step alone.
  checks.clear();
  o.warmup_seconds = 0;
  ASSERT_TRUE(run_repeated(o, Verify::kFirstStep, step(0.01)).is_ok());
  EXPECT_EQ(checks.size(), 3u);
}

// RunOptions::cancel, polled between steps: set before the run, no step
// runs; set from on_progress after the second step, the third never runs.
TEST(RunRepeated, StopsBetweenStepsWhenCancelled) {
  int steps = 0;
  auto step = [&](bool) -> Result<Trace> {
    ++steps;
    Trace t;
    t.spans.push_back(TraceSpan{0, 0, 0, 0.0, 0.01});
    return t;
  };
  std::atomic<bool> cancel{true};
  RunOptions o;
  o.repeat = 5;
  o.cancel = &cancel;
  auto before = run_repeated(o, Verify::kFirstStep, step);
  ASSERT_FALSE(before.is_ok());
  EXPECT_EQ(before.status().kind(), ErrorKind::kCancelled);
  EXPECT_EQ(steps, 0);
  cancel = false;
  o.on_progress = [&](double done, double) {
    if (done >= 2) cancel = true;
  };
  auto during = run_repeated(o, Verify::kFirstStep, step);
  ASSERT_FALSE(during.is_ok());
  EXPECT_EQ(during.status().kind(), ErrorKind::kCancelled);
  EXPECT_EQ(steps, 2);
}

TEST(CpuExecutor, ACancelledRunReturnsCancelled) {
  ProgramBuilder b("kernels", 1);
  b.add_gemm(b.stream(0, "compute"), 16, 16, 16, DType::kF32, "mm");
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok());
  std::atomic<bool> cancel{true};
  RunOptions ro;
  ro.cancel = &cancel;
  auto t = make_cpu_executor()->run(*p, host(1), HardwareProfile::defaults(), ro);
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.status().kind(), ErrorKind::kCancelled);
}

TEST(Summary, MedianAndNearestRankPercentile) {
  EXPECT_EQ(median({3, 1, 2}), 2.0);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  // Nearest rank: p90 of 10 values is the ceil(0.9 * 10) = 9th smallest.
  EXPECT_EQ(percentile({10, 9, 8, 7, 6, 5, 4, 3, 2, 1}, 90), 9.0);
  // ... of 3 values the ceil(2.7) = 3rd.
  EXPECT_EQ(percentile({1, 2, 3}, 90), 3.0);
  EXPECT_EQ(percentile({}, 90), 0.0);
}

}  // namespace
}  // namespace brigade::realexec
