// The roofline and the achieved-bandwidth rules every judge shares
// (core/profile.hpp), with a calibrated profile's measured peaks.
#include "core/profile.hpp"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace brigade {
namespace {

Device host_device() {
  Device d;
  d.model = "m";
  d.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kF32))] = 80e9;
  d.memory_bandwidth_bytes_per_second = 10e9;
  d.memory_bytes = 1e9;
  return d;
}

// A named profile that describes other devices than the plan's says so,
// once per model: the plan's devices then keep the data sheet's defaults.
TEST(UncoveredModels, EachModelWithoutAnEntryIsNamedWithItsDevices) {
  Topology t;
  for (int i = 0; i < 5; ++i) {
    Device d = host_device();
    d.name = "d" + std::to_string(i);
    d.model = i < 4 ? "a" : "b";
    t.add_device(d);
  }
  HardwareProfile p;
  p.name = "mine";
  p.devices.resize(1);
  p.devices[0].model = "b";
  const std::vector<std::string> lines = p.uncovered_models(t);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0],
            "profile 'mine' has no entry for device model 'a' (devices d0, d1, d2 and 1 more): "
            "they keep the data sheet's defaults");
  p.devices[0].model = "*";  // a catch-all covers every model
  EXPECT_TRUE(p.uncovered_models(t).empty());
  p.devices.clear();  // a profile of links alone says nothing of devices
  EXPECT_TRUE(p.uncovered_models(t).empty());
}

// Roofline (Williams et al. 2009): launch + max(F / (peak * eff), B / (bw * eff)).
// Data sheet: 1e9 FLOP / (80e9 * 0.5) = 25 ms; 1e8 B / (10e9 * 0.8) = 12.5 ms;
// launch 1 us -> 25.001 ms.
TEST(KernelSeconds, DataSheetRoofline) {
  DeviceProfile p;
  p.gemm[static_cast<size_t>(dtype_index(DType::kF32))].fallback = 0.5;
  p.memory_efficiency = 0.8;
  p.launch_overhead_seconds = 1e-6;
  EXPECT_DOUBLE_EQ(kernel_seconds(host_device(), p, DType::kF32, 1e9, 1e8), 0.025001);
}

// A norm's and an activation's passes stream at their class's efficiency
// where the profile has one, at memory_efficiency where it has not (the
// backward classes here), and the generic and FlashAttention classes always
// at memory_efficiency. Host device: 10 GB/s. 1e8 B: generic 1e8 / (10e9 x
// 0.8) = 12.5 ms; norm forward at 0.5: 20 ms; activation forward at 0.4:
// 25 ms; their backward (no figure): 12.5 ms.
TEST(KernelSeconds, NormsAndActivationsStreamAtTheirOwnEfficiency) {
  DeviceProfile p;
  p.memory_efficiency = 0.8;
  p.norm_forward_efficiency = 0.5;
  p.activation_forward_efficiency = 0.4;
  auto t = [&](KernelClass k) {
    return kernel_seconds(host_device(), p, DType::kF32, 0, 1e8, ComputeKind::kMemoryBound, 0, k);
  };
  EXPECT_DOUBLE_EQ(t(KernelClass::kGeneric), 0.0125);
  EXPECT_DOUBLE_EQ(t(KernelClass::kNormForward), 0.020);
  EXPECT_DOUBLE_EQ(t(KernelClass::kActivationForward), 0.025);
  EXPECT_DOUBLE_EQ(t(KernelClass::kNormBackward), 0.0125);
  EXPECT_DOUBLE_EQ(t(KernelClass::kActivationBackward), 0.0125);
  p.norm_backward_efficiency = 0.25;
  p.activation_backward_efficiency = 0.2;
  EXPECT_DOUBLE_EQ(t(KernelClass::kNormBackward), 0.040);
  EXPECT_DOUBLE_EQ(t(KernelClass::kActivationBackward), 0.050);
  EXPECT_DOUBLE_EQ(streaming_efficiency(p, KernelClass::kFlashForward), 0.8);
  EXPECT_DOUBLE_EQ(streaming_efficiency(p, KernelClass::kAttentionForward), 0.8);
}

// A gated activation (SwiGLU) streams at its own efficiency where the
// profile has one, else at the activation's, else at memory_efficiency: a
// chain, forward and backward apart. Host device 10 GB/s, 1e8 B: nothing
// set, 1e8 / (10e9 x 0.8) = 12.5 ms; the activation's 0.4: 25 ms; its own
// 0.25: 40 ms (the GeLU's still 25); backward own 0.1: 100 ms, forward
// untouched.
TEST(KernelSeconds, GatedActivationsFallBackToTheActivationsEfficiency) {
  DeviceProfile p;
  p.memory_efficiency = 0.8;
  auto t = [&](KernelClass k) {
    return kernel_seconds(host_device(), p, DType::kF32, 0, 1e8, ComputeKind::kMemoryBound, 0, k);
  };
  EXPECT_DOUBLE_EQ(t(KernelClass::kGatedForward), 0.0125);
  EXPECT_DOUBLE_EQ(t(KernelClass::kGatedBackward), 0.0125);
  p.activation_forward_efficiency = 0.4;
  EXPECT_DOUBLE_EQ(t(KernelClass::kGatedForward), 0.025);
  EXPECT_DOUBLE_EQ(t(KernelClass::kGatedBackward), 0.0125);
  p.gated_activation_forward_efficiency = 0.25;
  EXPECT_DOUBLE_EQ(t(KernelClass::kGatedForward), 0.040);
  EXPECT_DOUBLE_EQ(t(KernelClass::kActivationForward), 0.025);
  p.gated_activation_backward_efficiency = 0.1;
  EXPECT_DOUBLE_EQ(t(KernelClass::kGatedBackward), 0.100);
  EXPECT_DOUBLE_EQ(t(KernelClass::kActivationBackward), 0.0125);
  EXPECT_TRUE(is_activation(KernelClass::kGatedBackward));
  EXPECT_TRUE(is_gated_activation(KernelClass::kGatedForward));
  EXPECT_FALSE(is_gated_activation(KernelClass::kActivationForward));
}

// The class of a model op's streaming kernel: LayerNorm a norm, GeLU and
// SiLU activations, backward in the backward phase; relu, add, softmax,
// GEMMs generic.
TEST(KernelSeconds, StreamingClassOfAnOp) {
  EXPECT_EQ(streaming_class_of(OpKind::kLayerNorm, "", Phase::kForward), KernelClass::kNormForward);
  EXPECT_EQ(streaming_class_of(OpKind::kLayerNorm, "", Phase::kRecompute),
            KernelClass::kNormForward);
  EXPECT_EQ(streaming_class_of(OpKind::kLayerNorm, "", Phase::kBackward),
            KernelClass::kNormBackward);
  EXPECT_EQ(streaming_class_of(OpKind::kElementwise, "gelu", Phase::kForward),
            KernelClass::kActivationForward);
  EXPECT_EQ(streaming_class_of(OpKind::kElementwise, "silu", Phase::kBackward),
            KernelClass::kActivationBackward);
  EXPECT_EQ(streaming_class_of(OpKind::kElementwise, "relu", Phase::kForward),
            KernelClass::kGeneric);
  EXPECT_EQ(streaming_class_of(OpKind::kElementwise, "add", Phase::kForward),
            KernelClass::kGeneric);
  EXPECT_EQ(streaming_class_of(OpKind::kSoftmax, "", Phase::kForward), KernelClass::kGeneric);
  EXPECT_EQ(streaming_class_of(OpKind::kMatmul, "", Phase::kForward), KernelClass::kGeneric);
}

// A task that fuses n kernels (the planner's region and step granularities)
// is timed as its kernels: n launch gaps, and the GEMM curve read at the
// mean kernel's FLOPs, not at the sum. Curve (log-linear in FLOPs): 0.25 at
// 1e8, 0.5 at 1e9, 1.0 at 1e10. Four GEMMs of 1e9 FLOP fused (4e9 FLOP):
// at the mean, 1e9, efficiency 0.5: 4e9 / (80e9 x 0.5) = 100 ms, plus 4 x 1
// us; read at the sum it would be 4e9 / (80e9 x 0.80103) = 62.42 ms (the
// curve at 4e9: 0.5 + 0.5 x log10(4) = 0.80103). Without a curve each
// kernel pays its Hockney fill: (4e9 / 80e9 + 4 x 2 ms) / 0.5 = 116 ms.
TEST(KernelSeconds, AFusedTaskIsTimedAsItsKernels) {
  DeviceProfile p;
  p.gemm[static_cast<size_t>(dtype_index(DType::kF32))].points = {{1e8, 0.25}, {1e9, 0.5},
                                                                   {1e10, 1.0}};
  p.launch_overhead_seconds = 1e-6;
  const Device d = host_device();
  EXPECT_NEAR(kernel_seconds(d, p, DType::kF32, 4e9, 0, ComputeKind::kFixed, 0,
                             KernelClass::kGeneric, 0, 0, 4),
              0.1 + 4e-6, 1e-12);
  EXPECT_NEAR(kernel_seconds(d, p, DType::kF32, 4e9, 0, ComputeKind::kFixed),
              4e9 / (80e9 * (0.5 + 0.5 * std::log10(4.0))) + 1e-6, 1e-9);
  // Memory-bound: the bytes as before, a launch gap per kernel.
  p.memory_efficiency = 1.0;
  EXPECT_NEAR(kernel_seconds(d, p, DType::kF32, 0, 1e8, ComputeKind::kMemoryBound, 0,
                             KernelClass::kGeneric, 0, 0, 3),
              0.01 + 3e-6, 1e-12);
  DeviceProfile hockney;
  hockney.gemm[static_cast<size_t>(dtype_index(DType::kF32))].fallback = 0.5;
  hockney.gemm_half_seconds = 2e-3;
  EXPECT_NEAR(kernel_seconds(d, hockney, DType::kF32, 4e9, 0, ComputeKind::kFixed, 0,
                             KernelClass::kGeneric, 0, 0, 4),
              0.116, 1e-12);
  // The fused count a task carries: its batch, for kFixed and kMemoryBound
  // tasks only (a GEMM's batch is its shape); a run of FlashAttention
  // kernels too, since 2026-12-05 (before, a flash task was one kernel).
  Task t;
  t.kind = TaskKind::kCompute;
  t.compute = ComputeKind::kFixed;
  t.batch = 4;
  EXPECT_EQ(fused_kernels(t), 4);
  t.compute = ComputeKind::kGemm;
  EXPECT_EQ(fused_kernels(t), 1);
  t.compute = ComputeKind::kMemoryBound;
  t.batch = 0;
  EXPECT_EQ(fused_kernels(t), 1);
  t.compute = ComputeKind::kFixed;
  t.batch = 3;
  t.kernel = KernelClass::kFlashForward;
  EXPECT_EQ(fused_kernels(t), 3);
}

// A calibrated profile: f32 efficiency 0.5 of a measured 100 GFLOP/s,
// memory 0.8 of a measured 200 GB/s, launch 1 us.
DeviceProfile measured_profile() {
  DeviceProfile p;
  p.gemm[static_cast<size_t>(dtype_index(DType::kF32))].fallback = 0.5;
  p.memory_efficiency = 0.8;
  p.launch_overhead_seconds = 1e-6;
  p.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kF32))] = 100e9;
  p.memory_bandwidth_bytes_per_second = 200e9;
  return p;
}

// A calibrated profile's peaks replace the data sheet's: with 100 GFLOP/s and
// 200 GB/s measured, 1e9 FLOP at efficiency 0.5 is 20 ms and 1e9 B at 0.8 is
// 6.25 ms -> 20 ms (+ 1 us).
TEST(KernelSeconds, MeasuredPeaksReplaceTheDataSheet) {
  const DeviceProfile p = measured_profile();
  EXPECT_DOUBLE_EQ(kernel_seconds(host_device(), p, DType::kF32, 1e9, 1e9), 0.020001);
  // bf16 has no peak in either: it falls back to f32's measured peak.
  EXPECT_DOUBLE_EQ(peak_flops_per_second(host_device(), p, DType::kBF16), 100e9);
  EXPECT_DOUBLE_EQ(peak_memory_bandwidth_bytes_per_second(host_device(), p), 200e9);
}

// Cold operands (DeviceProfile::gemm_cold_operand_bandwidth): a GEMM kernel
// pays its operand bytes at that rate on top of its compute time, inside the
// roofline's max. By hand, f32, m = 128, n = k = 2048: F = 2 * 128 * 2048 *
// 2048 = 1.073741824e9 FLOP at 100 GFLOP/s x 0.5 = 21.47483648 ms; bytes =
// (128*2048 + 2048*2048 + 128*2048) * 4 = 18874368 B at 10 GB/s = 1.8874368
// ms; memory 18874368 / (200e9 * 0.8) = 0.118 ms; launch 1 us: 23.36327328 ms.
// The square GEMM of the same FLOPs has fewer bytes and pays less; a
// streaming kernel never pays it.
TEST(KernelSeconds, ColdOperandsCostAGemmItsBytesOnTopOfItsCompute) {
  DeviceProfile p = measured_profile();
  p.gemm_cold_operand_bandwidth_bytes_per_second = 10e9;
  const double f = gemm_flops(128, 2048, 2048);
  const double b = gemm_bytes(128, 2048, 2048, DType::kF32);
  ASSERT_DOUBLE_EQ(f, 1.073741824e9);
  ASSERT_DOUBLE_EQ(b, 18874368.0);
  EXPECT_NEAR(kernel_seconds(host_device(), p, DType::kF32, f, b), 0.02336327328, 1e-12);
  const double square = kernel_seconds(host_device(), p, DType::kF32, gemm_flops(812, 812, 812),
                                       gemm_bytes(812, 812, 812, DType::kF32));
  EXPECT_LT(square, 0.0228);  // 2 * 812^3 = 1.0708e9 FLOP: 21.42 ms + 0.79 ms of operands
  EXPECT_DOUBLE_EQ(kernel_seconds(host_device(), p, DType::kF32, 0, 1e8, ComputeKind::kMemoryBound),
                   1e-6 + 1e8 / (200e9 * 0.8));
  p.gemm_cold_operand_bandwidth_bytes_per_second = 0;
  EXPECT_NEAR(kernel_seconds(host_device(), p, DType::kF32, f, b), 0.02147583648, 1e-12);
}

// Reads and writes apart (DeviceProfile::gemm_cold_output_bandwidth): with
// an output rate, a GEMM's C goes at it and its A and B at the operand
// rate. By hand, the shapes of the test above at 10 GB/s read and 40 GB/s
// written, compute 21.47483648 ms and launch 1 us as there:
// - 128 x 2048 x 2048 (a forward GEMM against a 16 MiB weight): read
//   (128*2048 + 2048*2048) * 4 = 17825792 B -> 1.7825792 ms, written
//   128*2048*4 = 1048576 B -> 0.0262144 ms: 23.28463008 ms;
// - 2048 x 2048 x 128 (its weight gradient, the same FLOPs and bytes):
//   read 2 * 2048*128*4 = 2097152 B -> 0.2097152 ms, written 16777216 B ->
//   0.4194304 ms: 22.10498208 ms.
// Without the output rate both take 23.36327328 ms (the test above), and a
// streaming kernel's written bytes change nothing.
TEST(KernelSeconds, AnOutputRateChargesAGemmsWrittenBytesApart) {
  DeviceProfile p = measured_profile();
  p.gemm_cold_operand_bandwidth_bytes_per_second = 10e9;
  p.gemm_cold_output_bandwidth_bytes_per_second = 40e9;
  const double f = gemm_flops(128, 2048, 2048);
  const double b = gemm_bytes(128, 2048, 2048, DType::kF32);
  ASSERT_DOUBLE_EQ(gemm_bytes(2048, 2048, 128, DType::kF32), b);
  ASSERT_DOUBLE_EQ(gemm_written_bytes(128, 2048, DType::kF32), 1048576.0);
  ASSERT_DOUBLE_EQ(gemm_written_bytes(2048, 2048, DType::kF32), 16777216.0);
  EXPECT_NEAR(kernel_seconds(host_device(), p, DType::kF32, f, b, ComputeKind::kGemm,
                             gemm_written_bytes(128, 2048, DType::kF32)),
              0.02328463008, 1e-12);
  EXPECT_NEAR(kernel_seconds(host_device(), p, DType::kF32, f, b, ComputeKind::kGemm,
                             gemm_written_bytes(2048, 2048, DType::kF32)),
              0.02210498208, 1e-12);
  EXPECT_DOUBLE_EQ(
      kernel_seconds(host_device(), p, DType::kF32, 0, 1e8, ComputeKind::kMemoryBound, 5e7),
      1e-6 + 1e8 / (200e9 * 0.8));
  p.gemm_cold_output_bandwidth_bytes_per_second = 0;
  EXPECT_NEAR(kernel_seconds(host_device(), p, DType::kF32, f, b, ComputeKind::kGemm,
                             gemm_written_bytes(2048, 2048, DType::kF32)),
              0.02336327328, 1e-12);
}

// A task's written bytes, as the simulator and cost::task_seconds pass them:
// a GEMM's C at its dtype, batch members each their own; nothing for other
// kernels.
// A GEMM adding into its output (fused gradient accumulation) pays the
// profile's exposed share of its extra bytes at the streaming rate, and
// nothing where the profile says the addition is hidden (0, every preset).
// Host device: 10 GB/s at 0.8 = 8 GB/s. 4e8 extra bytes at 0.75: 0.75 x 4e8
// / 8e9 = 37.5 ms; at 1.5 (an epilogue slower than a copy), 75 ms. A fused
// task's extra bytes: each shape's count x its own (2 x 1e6 + 3 x 0 + 1 x
// 2.5e5 = 2.25e6).
TEST(KernelSeconds, AnAccumulatingGemmPaysItsExposedBytes) {
  DeviceProfile p;
  p.memory_efficiency = 0.8;
  EXPECT_EQ(accumulate_seconds(host_device(), p, 4e8), 0.0);
  p.gemm_accumulate_exposed = 0.75;
  EXPECT_DOUBLE_EQ(accumulate_seconds(host_device(), p, 4e8), 0.0375);
  EXPECT_EQ(accumulate_seconds(host_device(), p, 0), 0.0);
  p.gemm_accumulate_exposed = 1.5;
  EXPECT_DOUBLE_EQ(accumulate_seconds(host_device(), p, 4e8), 0.075);
  const std::vector<GemmMixShape> shapes = {
      {64, 64, 64, 1, 2, 1e6}, {64, 64, 128, 1, 3, 0}, {32, 64, 64, 1, 1, 2.5e5}};
  EXPECT_DOUBLE_EQ(gemm_mix_accumulate_bytes(shapes), 2.25e6);
  EXPECT_EQ(gemm_mix_accumulate_bytes({}), 0.0);
}

TEST(KernelSeconds, TaskWrittenBytesAreAGemmsOutput) {
  Task g;
  g.kind = TaskKind::kCompute;
  g.compute = ComputeKind::kGemm;
  g.dtype = DType::kBF16;
  g.m = 128;
  g.n = 512;
  g.k = 64;
  g.batch = 3;
  EXPECT_DOUBLE_EQ(task_written_bytes(g), 128.0 * 512 * 2 * 3);
  g.compute = ComputeKind::kMemoryBound;
  EXPECT_DOUBLE_EQ(task_written_bytes(g), 0.0);
  g.compute = ComputeKind::kGemm;
  g.kind = TaskKind::kTransfer;
  EXPECT_DOUBLE_EQ(task_written_bytes(g), 0.0);
}

// Achieved link bandwidth: (profile's bandwidth, else the link's) x efficiency.
TEST(AchievedLinkBandwidth, ProfileBandwidthReplacesTheLinks) {
  Link l{0, 1, 1e-6, 10e9, LinkClass::kSharedMemory, "a-b"};
  HardwareProfile h;
  h.links[static_cast<size_t>(LinkClass::kSharedMemory)] = {-1, 0.5};
  EXPECT_DOUBLE_EQ(achieved_link_bandwidth_bytes_per_second(l, h), 5e9);
  h.links[static_cast<size_t>(LinkClass::kSharedMemory)] = {-1, 0.5, 60e9};
  EXPECT_DOUBLE_EQ(achieved_link_bandwidth_bytes_per_second(l, h), 30e9);
}

}  // namespace
}  // namespace brigade

namespace brigade {
namespace {

Device a100() {
  Device d;
  d.model = "NVIDIA A100-SXM4-80GB";
  d.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kF32))] = 19.5e12;
  d.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kBF16))] = 312e12;
  d.memory_bandwidth_bytes_per_second = 2039e9;
  return d;
}

// The default GEMM curve (core/presets_profiles.cpp): Hockney's
// half-performance time t_half = one 128x128x512 tile on one SM at the bf16
// rate = 2*128*128*512 / (312e12 / 108) = 5.8075 us on an A100. An f32 GEMM
// 8x2048x512 (the seed's two-chef mm1): 16,777,216 FLOP, ideal 0.86037 us at
// 19.5 TFLOP/s; compute (0.86037 + 5.8075) / 0.9 = 7.4087 us; bytes
// (8*512 + 512*2048 + 8*2048) * 4 = 4,276,224 -> 4276224 / (2039e9 * 0.85)
// = 2.4673 us; the roofline takes the larger, plus the launch gap measured
// on the H200 (5.27878 us): 12.6875 us.
TEST(DefaultProfile, SmallF32GemmPaysOneTileWave) {
  const HardwareProfile h = HardwareProfile::defaults();
  const Device d = a100();
  const double t = kernel_seconds(d, h.for_device(d), DType::kF32, gemm_flops(8, 2048, 512),
                                  gemm_bytes(8, 2048, 512, DType::kF32), ComputeKind::kGemm);
  EXPECT_NEAR(t, 7.408742e-6 + 5.278783798217772e-6, 1e-11);
}

// A streaming kernel's FLOPs are not put through the GEMM curve: relu over
// 8x2048 f32 (16,384 FLOP at peak: 0.84 ns) is bound by its 131,072 bytes:
// 131072 / (2039e9 * 0.85) = 75.6 ns, plus 5.27878 us launch = 5.35441 us.
TEST(DefaultProfile, StreamingKernelIgnoresTheGemmCurve) {
  const HardwareProfile h = HardwareProfile::defaults();
  const Device d = a100();
  const double t = kernel_seconds(d, h.for_device(d), DType::kF32, 16384, 131072,
                                  ComputeKind::kMemoryBound);
  EXPECT_NEAR(t, 0.0756265e-6 + 5.278783798217772e-6, 1e-12);
}

// A large bf16 GEMM approaches e_max, the A100 SXM's rate at its 400 W
// power cap (freeze 8): cuBLAS's 8192^3 on random operands at 257 TFLOP/s
// (Horace He, thonking.ai, 2024). 8192^3 x 2 = 1.0995e12 FLOP, 2,048 tiles
// of 256 x 128 in 19 waves of 108 (2,052 slots), so the tile's rate is
// 257 x 2052 / 2048 = 257.502 TFLOP/s = 0.825327 of 312.
TEST(DefaultProfile, LargeBf16GemmNearItsEfficiency) {
  const HardwareProfile h = HardwareProfile::defaults();
  const Device d = a100();
  const double f = gemm_flops(8192, 8192, 8192);
  const double t = kernel_seconds(d, h.for_device(d), DType::kBF16, f,
                                  gemm_bytes(8192, 8192, 8192, DType::kBF16), ComputeKind::kGemm);
  // Without its shape: Hockney's fill (5.8075 us) at the 16-bit tile rate:
  // (3.5241 ms + 5.8075 us) / 0.825327 + 5.279 us launch = 4.28223 ms.
  const double tile_rate = 257.0 * 2052.0 / (2048.0 * 312.0);
  EXPECT_NEAR(t, (f / 312e12 + 2.0 * 128 * 128 * 512 / (312e12 / 108)) / tile_rate +
                     5.278783798217772e-6,
              1e-12);
  EXPECT_NEAR(t, 4.28223e-3, 1e-8);
  // With it: 2052 x 256 x 128 x 2 x 8192 FLOP at 257.502 TFLOP/s, i.e. the
  // measured 8192^3 at exactly 257 TFLOP/s, + the launch: 4.27825 + 0.00528 ms.
  const double shaped = kernel_seconds(
      d, h.for_device(d), DType::kBF16, f, gemm_bytes(8192, 8192, 8192, DType::kBF16),
      ComputeKind::kGemm, gemm_written_bytes(8192, 8192, DType::kBF16), KernelClass::kGeneric, 0,
      0, 1, GemmShape{8192, 8192, 8192, 1});
  EXPECT_NEAR(shaped, 2052.0 * 256 * 128 * 2 * 8192 / 257.501953125e12 + 5.278783798217772e-6,
              1e-12);
  EXPECT_NEAR(shaped, 4.28353e-3, 1e-8);
}

}  // namespace
}  // namespace brigade
