// What the presets' GPUs really achieve: their device profiles, from
// kernel- and collective-level measurements only (never from an end-to-end
// training result: those test the presets, docs/FIDELITY.md). Every number
// carries its source; docs/costmodel.md, "Presets", has the same list.
// HardwareProfile::defaults() (core/profile.cpp) collects these.
#include "core/presets_profiles.hpp"

#include <cmath>

namespace brigade {
namespace {

constexpr double kGB = 1e9;
constexpr double kTF = 1e12;
constexpr double kUs = 1e-6;

EfficiencyCurve flat(double e) {
  EfficiencyCurve c;
  c.fallback = e;
  return c;
}

EfficiencyCurve curve(std::vector<std::pair<double, double>> points) {
  EfficiencyCurve c;
  c.points = std::move(points);
  c.fallback = c.points.back().second;
  return c;
}

void set(DeviceProfile& p, DType t, EfficiencyCurve c) {
  p.gemm[static_cast<size_t>(dtype_index(t))] = std::move(c);
}

// Hockney's half-performance time of a GPU with no measured curve: one SM's
// 128 x 128 output tile with k = 512 at the bf16 tensor rate, i.e. one wave
// of tiles (CUTLASS/cuBLAS tile sizes): below that the machine is not full.
// A100: 2*128*128*512 FLOP / (312 TFLOP/s / 108 SMs) = 5.8 us.
double gpu_tile_seconds(double bf16_peak, int sms) { return 2.0 * 128 * 128 * 512 / (bf16_peak / sms); }

// ---- NCCL's tuning tables ---------------------------------------------------
//
// NVIDIA/nccl, src/graph/tuning.cc (ncclTunerConstantsDefaults, read at
// commit 5067397c, NCCL 2.29): baseLatencies (per call), hwLatencies (per
// step, by NVLink / PCI / NET), the protocols' bandwidth refinements of
// ncclTopoTuneModel (ring LL x0.5 capped at llMaxBws, ring LL128 x0.92, tree
// x0.92, tree LL /3.8 capped at llMaxBws, tree LL128 x7/9 in a node and
// x120/128 across nodes), treeCorrectionFactor; src/graph/topo.h for the
// NVLink bandwidth per link (SM80_NVLINK_BW 20.0, SM90_NVLINK_BW 20.6 GB/s).
// NCCL fits these to its own measurements to rank algorithms; where a
// collective-level measurement of the bandwidth exists (NVLS below), the
// preset takes the measurement.

NcclEntry entry(double latency_us, double nvlink_us, double pcie_us, double network_us,
                double factor, double multinode_factor = 0, std::array<double, 3> caps_gbs = {0, 0, 0}) {
  NcclEntry e;
  e.latency_seconds = latency_us * kUs;
  e.hop_latency_seconds = {nvlink_us * kUs, pcie_us < 0 ? -1 : pcie_us * kUs, network_us * kUs};
  e.bandwidth_factor = factor;
  e.multinode_bandwidth_factor = multinode_factor;
  for (size_t i = 0; i < 3; ++i) e.max_bandwidth_bytes_per_second[i] = caps_gbs[i] * kGB;
  return e;
}

// Ring and tree as tuning.cc has them for every GPU from Volta to Hopper;
// `ll_caps` is the llMaxBws row for the GPU and the host's CPU vendor:
// {one node (by GPU generation), two nodes, more (by CPU vendor)}.
NcclTable nccl_ring_tree(double nvlink_gbs, double net_overhead_us, std::array<double, 3> ll_caps) {
  NcclTable t;
  using A = NcclAlgorithm;
  using P = NcclProtocol;
  t.nvlink_bandwidth_bytes_per_second = nvlink_gbs * kGB;
  t.net_overhead_seconds = net_overhead_us * kUs;
  // Ring: baseLat {6.6, 14.0, 8.4}; hwLat NVLink {0.6, 1.9, 3.4}, PCI {1.0,
  // 2.5, 5.7}, NET {2.7, 4.0, 14.0}.
  t.at(A::kRing, P::kLL) = entry(6.6, 0.6, 1.0, 2.7, 0.5, 0, ll_caps);
  t.at(A::kRing, P::kLL128) = entry(14.0, 1.9, 2.5, 4.0, 0.92);
  t.at(A::kRing, P::kSimple) = entry(8.4, 3.4, 5.7, 14.0, 1.0);
  // Tree: baseLat {6.8, 14.0, 8.4}; hwLat NVLink {0.6, 1.25, 4.0}, PCI {1.0,
  // 1.9, 4.0}, NET {5.0, 8.5, 14}. Bandwidth: x0.92, then LL /3.8 (capped),
  // LL128 x7/9 in a node, x120/128 across nodes.
  t.at(A::kTree, P::kLL) = entry(6.8, 0.6, 1.0, 5.0, 0.92 / 3.8, 0, ll_caps);
  t.at(A::kTree, P::kLL128) = entry(14.0, 1.25, 1.9, 8.5, 0.92 * 7.0 / 9.0, 0.92 * 120.0 / 128.0);
  t.at(A::kTree, P::kSimple) = entry(8.4, 4.0, 4.0, 14.0, 0.92);
  // treeCorrectionFactor, by protocol, for sizes 64 B .. 256 MiB (log2(bytes/64)).
  t.tree_correction = {{
      {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
      {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9},
  }};
  // The ring's "plateau" (ncclTopoGetAlgoTime): a multi-node ring Simple
  // AllReduce takes 1.4 x its latency from Ampere on (1.9 before).
  t.ring_plateau_factor = 1.4;
  return t;
}

// ---- devices ---------------------------------------------------------------------

DeviceProfile gpu_base(const std::string& model) {
  DeviceProfile p;
  p.model = model;
  // FP32 and FP64 (no tensor cores for FP32): no kernel-level measurement in
  // the sources below; 0.9 of the data sheet is an assumption, not a
  // measurement (no published row uses them).
  for (int i = 0; i < kNumDTypes; ++i) p.gemm[static_cast<size_t>(i)] = flat(0.9);
  // A collective's launch: nccl-tests times back-to-back launches (each
  // kernel's launch hides behind the one before), and NCCL's tuning table
  // already charges a base latency per call; Megatron-LM issues its NCCL
  // calls ahead on their own streams. So no call overhead of its own.
  p.collective_overhead_seconds = 0;
  return p;
}

// NVIDIA A100-SXM4-80GB (dgx-a100).
DeviceProfile a100_sxm4_80gb(NcclVersion version) {
  DeviceProfile p = gpu_base("NVIDIA A100-SXM4-80GB");
  // 108 SMs (NVIDIA A100 Tensor Core GPU Architecture whitepaper, 2020:
  // "108 SMs" of the full GA100's 128, SXM4 and PCIe alike).
  p.sm_count = 108;
  // GEMMs: Hockney's model (one wave of tiles, 5.8 us) with its ceiling at
  // the rate a large GEMM holds at the A100 SXM's 400 W power cap (freeze 8):
  // cuBLAS through PyTorch, 8192 x 8192 x 8192, random normal operands, 257
  // TFLOP/s (Horace He, "Strangely, Matrix Multiplications on GPUs Run Faster
  // When Given 'Predictable' Data!", thonking.ai, 2024: the same GEMM on
  // zeros ran at 295, the card drawing less power and holding a higher
  // clock, so 257 is the clock the cap leaves random operands). Training
  // runs its GEMMs for seconds on end with operands no more predictable than
  // random, so the power-capped rate is the one a step sees, as the H200's
  // measured curve below always was. Until freeze 7 the ceiling was the
  // Maximum Achievable Matmul FLOPS table's 271.2 (stas00/ml-engineering,
  // mean of 100 iterations after 50 warm-ups, an L2 flush between calls, at
  // the best of a search over shapes): a short run whose later method
  // (mamf-finder.py v4, compute/accelerator/benchmarks/README.md, "How MAMF
  // and MSMF are defined") separates the boost burst (MAMF) from the rate
  // held at the cap (MSMF). On the GH100 that method's H200 MSMF, 755.5
  // TFLOP/s (the mean of 8 GPUs x 5 rounds; MAMF 852), is 0.951 of the
  // older table's 794.5 for the same die; the A100's 271.2 x 0.951 = 257.9
  // agrees with the A100's own 257 (tests/costmodel/
  // a100_kernels_published_test.cpp). FP16 and TF32 tensor GEMMs take the
  // same fraction (the same tensor-core path; TF32 not measured).
  p.gemm_half_seconds = gpu_tile_seconds(312 * kTF, 108);
  for (DType t : {DType::kTF32, DType::kF16, DType::kBF16, DType::kI8})
    set(p, t, flat(257.0 / 312.0));
  // The 16-bit GEMMs by shape (freeze 7): cuBLAS's A100 kernels compute a
  // 256 x 128 output tile an SM, 108 at a time (NVIDIA, "Matrix
  // Multiplication Background User's Guide", DU-09799-001_v001, Feb 2023,
  // Sec. 3.2 "Wave Quantization": "an NVIDIA A100 GPU has 108 SMs; in the
  // particular case of 256x128 thread block tiles, it can execute one thread
  // block per SM, leading to a wave size of 108 tiles"), so a GEMM takes its
  // waves of tiles, each wave as long as a full one (gemm_wave_factor). The
  // ceiling above was measured at 8192^3: 2,048 tiles in 19 waves of 108
  // (2,052 tile slots), so the tile's own rate is 257 / (312 x 2048 / 2052)
  // = 0.825 of the peak (freeze 7 worked MAMF's 271.2 back the same way
  // through its shape's three waves: 0.880). LLMCompass's 14 A100 GEMMs
  // with a grid of at least one wave (tests/data/a100_kernels/
  // llmcompass_a100.txt: M from 512 to 32,768 at N = K = 12,288, and N = K
  // from 512 to 32,768 at M = 8,192), timed by this model with a host
  // intercept, fall within 4% of each other at one rate (0.931, 13% above
  // this one: 50 calls a shape after a second's idle, a burst by the later
  // method's definition, on an A100 80GB whose power limit the artifact does
  // not state); tests/costmodel/a100_kernels_published_test.cpp. Not
  // modelled: a GEMM between memory-bound kernels runs faster than GEMMs
  // back to back, the cap averaging over the lighter work (this project's
  // H200, docs/VALIDATION.md, "GPU: the power cap": up to 8% at 80% of the
  // time in GEMMs).
  p.gemm_tile_rows = 256;
  p.gemm_tile_cols = 128;
  for (DType t : {DType::kF16, DType::kBF16}) set(p, t, flat(257.0 / (312.0 * 2048.0 / 2052.0)));
  // Streaming kernels: BabelStream-class copies reach 85-90% of HBM peak on
  // A100 (Deakin et al., "Tracking performance portability on the yellow
  // brick road to exascale", P3HPC 2020): 0.85. (No A100-80GB measurement
  // of its own: the weakest constant of this preset.)
  p.memory_efficiency = 0.85;
  // The unfused attention core (Megatron-LM's: the scores' batched GEMM,
  // the fused scale-mask-softmax, torch's dropout, the values' batched GEMM,
  // and their backward), measured as a whole on an A100: Dao et al. 2022,
  // "FlashAttention" (arXiv 2205.14135v2), Appendix E.6, Tables 15 and 16,
  // row "Megatron" (forward 0.27, 0.27, 0.56, 1.88, 6.56 ms; backward 0.28,
  // 0.33, 0.92, 2.94, 10.80 ms at s = 128 ... 2048; batch 16, 8 heads of
  // dimension 64, fp16, dropout 0.1, no mask; one A100 40GB, 1,555 GB/s).
  // Against the bytes Brigade's passes move at each length (costmodel/
  // transformer_blocks_layer.cpp: forward b a ((6e + 1) s^2 + 4 e s d),
  // backward b a ((9e + 1) s^2 + 8 e s d), e = 2), the least-squares line
  // t = t0 + bytes / (1555 GB/s x eff) gives eff 0.717 forward and 0.634
  // backward (t0 0.19 ms: the benchmark's per-call host time, not a
  // kernel's); tests/costmodel/attention_published_test.cpp recomputes both
  // from the rows. Taken as fractions of peak bandwidth for the 80GB part
  // (HBM2e, 2,039 GB/s): an assumption, the passes being memory-bound.
  p.attention_forward_efficiency = 0.717;
  p.attention_backward_efficiency = 0.634;
  // A LayerNorm's and the MLP's GeLU's forward passes, measured kernel by
  // kernel on an A100 80GB: LLMCompass's artifact (PrincetonUniversity/
  // LLMCompass at b95c6c95a800, ae/figure5/de/real_hardware/
  // layernorm_A100.csv and ae/figure5/g/real_hardware/gelu_A100.csv; ISCA
  // 2024; tests/data/a100_kernels/llmcompass_a100.txt). The slope of time
  // against bytes (2 B read, 2 B written an element, fp16) through each
  // kernel's four largest calls, which leaves out the call's host time (the
  // intercept, 41 and 38 us): LayerNorm over rows of 4,096, M = 4,096 to
  // 32,768, 0.858 of 2,039 GB/s; tanh GeLU, 2^24 to 2^27 elements, 0.787
  // (tests/costmodel/a100_kernels_published_test.cpp recomputes both). The
  // kernels timed are torch.compile's, not apex's fused LayerNorm or
  // Megatron-LM's jit-fused bias-GeLU (the same passes and the same tanh
  // arithmetic; the bias read is 1/T of the bytes): an assumption, stated.
  // Their backward passes were not measured and keep memory_efficiency.
  p.norm_forward_efficiency = 0.858;
  p.activation_forward_efficiency = 0.787;
  // Kernel launch gap: this project's H200 measurement (scenarios/profiles/
  // h200_measured.yaml, calibrate's per-kernel fixed time measured behind a
  // GEMM, docs/VALIDATION.md run 7): 5.28 us; the same CUDA launch path.
  p.launch_overhead_seconds = 5.278783798217772e-6;
  // NCCL: 12 NVLinks x 20.0 GB/s (SM80_NVLINK_BW) = 240 GB/s; DGX A100's
  // hosts are AMD EPYC 7742 (net overhead 2 us; llMaxBws Ampere-N1 87.7,
  // AMD-N2 22.5, AMD-N4 19.0 GB/s). No NVLS (Ampere's NVSwitch has no SHARP).
  p.nccl = nccl_ring_tree(12 * 20.0, 2.0, {87.7, 22.5, 19.0});
  // Ring and tree channels, from NCCL's search worked by hand for this node
  // as for the Hopper nodes below (src/graph/search.cc ncclTopoCompute and
  // ncclTopoDupChannels, src/graph/connect.cc ncclTopoPostset, src/init.cc;
  // the same at v2.24.3-1 and v2.29.7-1; docs/costmodel.md, "NCCL's
  // channels across nodes"):
  // - One node (no NIC): speedArrayIntra {40, 30, 20, ...} (sm80 takes the
  //   pre-Hopper arrays), each GPU's NVLinks 12 x 20 = 240 GB/s. At 40 GB/s
  //   a ring takes 40 out of and into every GPU: 6 channels, 240 in all,
  //   the optimum. ncclTopoDupChannels doubles them (bwIntra 40 >= 25; its
  //   "ccMin > 80" exception is Hopper's): 12 channels of 20, the tree the
  //   ring's count; ncclTopoPostset doubles again: 24 coll channels.
  // - Several nodes, each GPU with its HDR 200 Gb/s NIC behind a PCIe Gen4
  //   x16 switch (DGX A100): the NIC 200000 Mb/s / 8000 = 25 GB/s
  //   (ncclTopoAddNet), the PCIe link 16 lanes x 120 / 80 = 24 GB/s
  //   (topo.cc, kvDictPciGen "16.0 GT/s PCIe"), so maxBw = 24 and the search
  //   starts at speedArrayInter's 24: one channel a NIC, 8 of 24 (192 GB/s;
  //   the lower speeds it then tries down to 12, half of 24, give no more in
  //   all: 16 x 12 = 192). No duplication (bwIntra 24 < 25); the tree takes
  //   8; ncclTopoPostset doubles them: 16 coll channels (the sm90 rule that
  //   doubles again is Hopper's).
  p.nccl.channels = {24, 16, 16};
  p.nccl.graph_channels = {12, 8, 8};
  // Per-channel caps, Ampere rows {N1, N2, N4} of tuning.cc (the same at
  // both tags), folded as ncclTopoTuneModel applies them, times
  // graph_channels: ring LL128 perChMaxRingLL128Bws 20.0; tree Simple
  // perChMaxTreeBws {24.0, 23.6, 17.8}; tree LL min(perChMaxTreeBws / 3.8,
  // ...) (llMaxBws caps it too); tree LL128 min(perChMaxTreeBws x (7/9 on
  // one node, 120/128 across), perChMaxTreeLL128Bws 20.0) = {18.67, 20.0,
  // 16.69}. On one node none binds (12 x 20 x 0.92 < 12 x 20); across
  // nodes ring LL128 does: 8 x 24 x 0.92 = 176.6 > 8 x 20 = 160 GB/s.
  using A = NcclAlgorithm;
  using P = NcclProtocol;
  p.nccl.at(A::kRing, P::kLL128).channel_max_bandwidth_bytes_per_second = {20.0 * kGB, 20.0 * kGB,
                                                                           20.0 * kGB};
  p.nccl.at(A::kTree, P::kSimple).channel_max_bandwidth_bytes_per_second = {24.0 * kGB, 23.6 * kGB,
                                                                            17.8 * kGB};
  p.nccl.at(A::kTree, P::kLL).channel_max_bandwidth_bytes_per_second = {
      24.0 / 3.8 * kGB, 23.6 / 3.8 * kGB, 17.8 / 3.8 * kGB};
  p.nccl.at(A::kTree, P::kLL128).channel_max_bandwidth_bytes_per_second = {
      24.0 * 7.0 / 9.0 * kGB, 20.0 * kGB, 17.8 * 120.0 / 128.0 * kGB};
  p.nccl.version = version;  // the same constants at both tags
  return p;
}

// NVIDIA A100-PCIE-80GB (pcie-4gpu): the SXM4's GEMM model at the PCIe
// card's own MAMF, 252.9 TFLOP/s = 0.811 (the same GA100 and clocks; the
// older MAMF table above). A short run's rate, not the one the card's 300
// W cap leaves a long run (the SXM4's ceiling moved to that at freeze 8):
// no such measurement of the PCIe card was found, so this preset is
// optimistic for long GEMM-bound runs by about what the SXM4's was (5%).
// No NVLink: NCCL over PCIe takes the route's bandwidth.
DeviceProfile a100_pcie_80gb(NcclVersion version) {
  DeviceProfile p = a100_sxm4_80gb(version);
  p.model = "NVIDIA A100-PCIE-80GB";
  for (DType t : {DType::kTF32, DType::kF16, DType::kBF16, DType::kI8})
    set(p, t, flat(252.9 / 312.0));
  // The wave model as the SXM4's; the PCIe's MAMF shape, 2048 x 5120 x
  // 6144, is also 320 tiles of 256 x 128 in three waves of 108.
  for (DType t : {DType::kF16, DType::kBF16}) set(p, t, flat(252.9 / (312.0 * 320.0 / 324.0)));
  p.nccl.nvlink_bandwidth_bytes_per_second = 0;
  // NCCL's search over PCIe gives other graphs, not worked out here: no
  // channel counts, so no per-channel caps and no enqueue's fewer channels.
  p.nccl.channels = {0, 0, 0};
  p.nccl.graph_channels = {0, 0, 0};
  return p;
}

// The bf16 GEMM curve this project measured on one H200 (the same GH100
// die and tensor cores as the H100 SXM), as efficiencies of the data
// sheet's 989.5 TFLOP/s: calibrate's square GEMMs 256^3 .. 8192^3, random
// operands, at the 700 W power cap (scenarios/profiles/h200_measured.yaml:
// measured peak 759.6 TFLOP/s x its curve; docs/VALIDATION.md, run 7).
// An FP8 GEMM curve from cuBLASLt's square GEMMs m = n = k = 1024, 2048,
// 4096, 8192, 16384, 32768 measured at `tflops` TFLOP/s: each call took
// T = m n (2k - 1) / tflops (the benchmark's FLOP count), back to back, so
// T holds one launch gap, which kernel_seconds adds on its own; the point
// is (2 m^3 FLOP, 2 m^3 / (1979 TFLOP/s x (T - launch))), the dense FP8
// peak of the Hopper data sheet, as `calibrate` takes a kernel's own part
// (realexec/calibrate.cpp, kernel_part). Brigade's time for each square
// GEMM is then the measured T.
std::vector<std::pair<double, double>> fp8_cublaslt_square(const double (&tflops)[6],
                                                           double launch_seconds) {
  std::vector<std::pair<double, double>> pts;
  double m = 1024;
  for (double t : tflops) {
    const double seconds = m * m * (2 * m - 1) / (t * 1e12);
    const double own = std::max(seconds - launch_seconds, 0.05 * seconds);
    pts.emplace_back(2 * m * m * m, 2 * m * m * m / (1979e12 * own));
    m *= 2;
  }
  return pts;
}

std::vector<std::pair<double, double>> gh100_bf16_shape() {
  const double peak = 759635540035424.0 / 989.5e12;
  return {{33554432, 0.010525663367824048 * peak}, {268435456, 0.09220658515969009 * peak},
          {2147483648, 0.6721945342571348 * peak}, {17179869184, 1.0 * peak},
          {137438953472, 0.9359257697257107 * peak}, {1099511627776, 0.9265006676042581 * peak}};
}

NcclTable hopper_nccl(double nvls_bus_gbs, NcclVersion version) {
  // 18 NVLinks x 20.6 GB/s (SM90_NVLINK_BW) = 370.8 GB/s; DGX H100/H200
  // hosts are Intel Xeon 8480C (net overhead 1 us; llMaxBws Hopper-N1 141,
  // Intel-N2 39.0, Intel-N4 20.4 GB/s).
  NcclTable t = nccl_ring_tree(18 * 20.6, 1.0, {141.0, 39.0, 20.4});
  // Ring and tree channels on one node: 24 ("24 coll channels, 16 nvls
  // channels", NCCL's init log of an 8x H100 node, p5.48xlarge, with
  // threadThresholds "8/8/64 | 64/8/64", i.e. tree LL 8 and ring LL 8 x 8
  // ranks: aws-samples/aws-do-eks, Container-Root/eks/deployment/nccl-test/
  // README.md at 701c554a, "Expected results"; the same line appears in
  // other public 8x H100 logs). The H200 (same NVLinks and NVSwitch) takes
  // the H100's count.
  //
  // The graphs behind them, from NCCL's search (src/graph/search.cc,
  // ncclTopoCompute; src/graph/connect.cc, ncclTopoPostset; the same at
  // v2.24.3-1 = 6aae3792, the version of the published tables, and at
  // 5067397c), worked by hand for these nodes (docs/costmodel.md, "NCCL's
  // channels across nodes"):
  // - One node (no NIC): sm90SpeedArrayIntra {60, 50, 40, 30, ...}, each
  //   GPU's NVLinks 18 x 20.6 = 370.8 GB/s (SM90_NVLINK_BW, topo.h). At 60
  //   GB/s a ring takes 60 out of and into every GPU: 6 channels (360 <=
  //   370.8 < 420); slower speeds give no more than 6 x 60 = 360 in all.
  //   ncclTopoDupChannels (bwIntra 60 >= 50) doubles them: 12 channels of
  //   30. The tree graph takes the ring's count (init.cc: min = max =
  //   ringGraph->nChannels). ncclTopoPostset doubles again: 24 coll channels,
  //   as the log prints.
  // - Several nodes, each GPU with its NDR 400 Gb/s NIC behind a PCIe Gen5
  //   x16 switch (DGX H100 / H200): NCCL's NIC is 400000 Mb/s / 8000 = 50
  //   GB/s (topo.cc, ncclTopoAddNet), the PCIe link 16 lanes x 240 / 80 = 48
  //   GB/s (topo.cc, kvDictPciGen "32.0 GT/s PCIe"), so maxBw (GPU to NIC) =
  //   48 and the search starts at sm90SpeedArrayInter[0] = 48. A channel
  //   enters through a NIC and takes 48 of its 50 (ncclTopoSearchRecNet:
  //   net.bw < bw rejects a NIC): one channel a NIC, 8 channels of 48
  //   (8 x 48 = 384 >= totalBw 370.8 ends the search; NVLink carries 7 x 48
  //   = 336 out of each GPU). No duplication (sm90, bwIntra 48 < 50 with 8 >
  //   4 channels); the tree takes 8 too. ncclTopoPostset doubles them to 16;
  //   its sm90 multi-node rule (bwIntra > 45 and nChannels < 16) does not
  //   double again: 16 coll channels (the aws-do-eks README's two-node run
  //   prints 16 too).
  t.channels = {24, 16, 16};
  t.graph_channels = {12, 8, 8};
  // Per-channel caps, Hopper rows {N1, N2, N4} of tuning.cc (5067397c;
  // the same rows at v2.24.3-1), folded as ncclTopoTuneModel applies them,
  // times graph_channels: ring LL128
  // perChMaxRingLL128Bws 36.7; tree Simple perChMaxTreeBws {38.7, 41.4,
  // 36.0}; tree LL min(perChMaxTreeBws / 3.8, ...) = {10.18, 10.89, 9.47}
  // (llMaxBws already caps it); tree LL128 min(perChMaxTreeBws x (7/9 on
  // one node, 120/128 across), perChMaxTreeLL128Bws {36.7, 36.7, 29.0}) =
  // {30.1, 36.7, 29.0}.
  t.at(NcclAlgorithm::kRing, NcclProtocol::kLL128).channel_max_bandwidth_bytes_per_second = {
      36.7 * kGB, 36.7 * kGB, 36.7 * kGB};
  t.at(NcclAlgorithm::kTree, NcclProtocol::kSimple).channel_max_bandwidth_bytes_per_second = {
      38.7 * kGB, 41.4 * kGB, 36.0 * kGB};
  t.at(NcclAlgorithm::kTree, NcclProtocol::kLL).channel_max_bandwidth_bytes_per_second = {
      38.7 / 3.8 * kGB, 41.4 / 3.8 * kGB, 36.0 / 3.8 * kGB};
  t.at(NcclAlgorithm::kTree, NcclProtocol::kLL128).channel_max_bandwidth_bytes_per_second = {
      38.7 * 7.0 / 9.0 * kGB, 36.7 * kGB, 29.0 * kGB};
  // NVLS: baseLat 0, hwLat NVLink 25 us, NET 18 us (tuning.cc); its bus
  // bandwidth measured (the preset's source says which).
  NcclEntry nvls = entry(0.0, 25.0, -1, 18.0, 1.0);
  nvls.bus_bandwidth_bytes_per_second = nvls_bus_gbs * kGB;
  t.at(NcclAlgorithm::kNvls, NcclProtocol::kSimple) = nvls;
  // NVLS-tree (NVLS in each node, a tree between nodes): baseLat 0, hwLat
  // NVLink 25 us, NET 20.9 us; bandwidth NCCL's nvlsEfficiency for Hopper,
  // 0.85, and per channel at most perChMaxNVLSTreeBws Hopper {-, 57.7, 45.5}
  // GB/s for {1, 2, more} nodes (tuning.cc; NCCL disables NVLS-tree on one
  // node). No collective-level measurement of NVLS-tree alone is published
  // for these nodes that we know of: NCCL's own constants.
  NcclEntry tree = entry(0.0, 25.0, -1, 20.9, 0.85);
  tree.channel_max_bandwidth_bytes_per_second = {0, 57.7 * kGB, 45.5 * kGB};
  // NCCL 2.24.3 (src/graph/tuning.cc at v2.24.3-1 = 6aae3792): NVLS-tree's
  // NET hop 14 us (hwLat, line 141), no nvlsEfficiency and no
  // perChMaxNVLSTreeBws (neither exists at that tag): factor 1, no cap. Its
  // bandwidth formula differs too (costmodel/nccl_model.cpp). Every other
  // constant of this table is the same at both tags (docs/costmodel.md,
  // "NCCL's version").
  if (version == NcclVersion::k2_24) {
    tree = entry(0.0, 25.0, -1, 14.0, 1.0);
  }
  t.at(NcclAlgorithm::kNvlsTree, NcclProtocol::kSimple) = tree;
  t.version = version;
  return t;
}

// One head dimension's rates (128) from the paper's three panels at its six
// lengths, 512 .. 16k, TFLOP/s: the causal forward as measured, the causal
// backward as the unmasked backward times the forward's causal / unmasked
// ratio at the same length.
std::vector<FlashAttentionRates> hopper_attention_table(const double (&fwd_causal)[6],
                                                        const double (&fwd_full)[6],
                                                        const double (&bwd_full)[6]) {
  const double seq[] = {512, 1024, 2048, 4096, 8192, 16384};
  FlashAttentionRates r;
  r.head_dim = 128;
  for (size_t i = 0; i < 6; ++i) {
    r.forward.points.emplace_back(seq[i], fwd_causal[i] * kTF);
    r.backward.points.emplace_back(seq[i], bwd_full[i] * fwd_causal[i] / fwd_full[i] * kTF);
  }
  r.forward.fallback = r.forward.points.back().second;
  r.backward.fallback = r.backward.points.back().second;
  return {r};
}

// FlashAttention-2 on an H100 SXM5 80GB, BF16/FP16, head dimension 128,
// sequence lengths 512 .. 16k (total tokens 16k, hidden 2048: 16 heads),
// as the FlashAttention-3 paper measured it for its baseline (Shah, Bikshandi,
// Zhang, Thakkar, Ramani & Dao 2024, arXiv 2407.08608, Figure 5 "Attention
// forward speed, head dim 128 (H100 80GB SXM5)", with and without the
// causal mask, and Figure 6 "Attention backward speed, head dim 128", without
// it), TFLOP/s as the FlashAttention benchmarks count them (causal halved).
// The paper's backward has no causal panel: the causal backward takes the
// non-causal backward times the forward's measured causal / non-causal
// ratio at the same length (0.62 at 512, 0.91 at 16k: the diagonal blocks'
// masking and the shorter rows), an assumption stated plainly, not a
// measurement. Megatron-LM's --use-flash-attn (its own attention, no
// Transformer Engine) runs FlashAttention-2 (head dimensions up to 128,
// Megatron-LM README), hence FA2's figures, not FA3's; Transformer Engine
// runs cuDNN's kernel on Hopper (hopper_fused_attention, below).
std::vector<FlashAttentionRates> hopper_flash_attention() {
  const double fwd_causal[] = {191, 260, 298, 319, 333, 335};  // Figure 5, causal
  const double fwd_full[] = {309, 350, 362, 368, 370, 370};    // Figure 5, no mask
  const double bwd_full[] = {214, 260, 291, 310, 318, 322};    // Figure 6, no mask
  return hopper_attention_table(fwd_causal, fwd_full, bwd_full);
}

// cuDNN's fused attention (Transformer Engine's FusedAttention, sub-backend
// 1, "F16_arbitrary_seqlen") on the same H100 SXM5 80GB, in the same two
// figures of the same paper as hopper_flash_attention's FlashAttention-2
// (Shah et al. 2024, arXiv 2407.08608, Figure 5, head dim 128, causal and
// unmasked forward; Figure 6, head dim 128, the unmasked backward: the
// "cuDNN" bars beside the "FlashAttention-2" ones), TFLOP/s counted alike.
// The causal backward is derived from the unmasked one as FA2's is (the
// forward's measured causal / unmasked ratio at the same length: 0.63 at
// 512, 0.91 at 16k), the same stated assumption. Transformer Engine runs
// this kernel, not FlashAttention-2, on Hopper: where both backends can take
// a shape it disables FlashAttention "to give FusedAttention preference on
// Hopper+ for performance reasons" (NVIDIA/TransformerEngine,
// transformer_engine/pytorch/attention/dot_product_attention/utils.py,
// get_attention_backend, at v2.9; attention.py at v1.7 and v1.8, "Select
// FusedAttention on sm90"), and Megatron-Core's default
// --attention-backend auto leaves the choice to TE (docs/costmodel.md,
// "Which attention kernel runs"). Freeze 9.
std::vector<FlashAttentionRates> hopper_fused_attention() {
  const double fwd_causal[] = {315, 410, 484, 518, 529, 539};  // Figure 5, causal
  const double fwd_full[] = {497, 574, 617, 609, 600, 595};    // Figure 5, no mask
  const double bwd_full[] = {305, 408, 465, 499, 518, 516};    // Figure 6, no mask
  return hopper_attention_table(fwd_causal, fwd_full, bwd_full);
}

// NVIDIA H100-SXM5-80GB (dgx-h100).
DeviceProfile h100_sxm5_80gb(NcclVersion version) {
  DeviceProfile p = gpu_base("NVIDIA H100-SXM5-80GB");
  // 132 SMs (NVIDIA H100 Tensor Core GPU Architecture whitepaper, 2022:
  // "132 SMs" on the SXM5 board of the full GH100's 144).
  p.sm_count = 132;
  // GEMMs: the GH100 curve measured on the H200 (above) as it was measured,
  // back to back at the 700 W cap the H100 SXM shares (freeze 8): top 759.6
  // TFLOP/s = 0.768 of 989.5. The H200's MSMF, the rate a GEMM holds at
  // that cap (stas00/ml-engineering, compute/accelerator/benchmarks/
  // README.md, "What was measured": 755.5, the mean of 8 GPUs x 5
  // rounds), is within 0.6% of it. Until freeze 7 the curve was scaled to
  // the older MAMF table's 794.5 for an H100 SXM ("H200 is the same"), a
  // short run's rate above what the same die holds at the cap.
  std::vector<std::pair<double, double>> pts = gh100_bf16_shape();
  for (DType t : {DType::kTF32, DType::kF16, DType::kBF16}) set(p, t, curve(pts));
  p.gemm_half_seconds = 2.238092483072259e-06;  // the H200 measurement's (calibrate)
  // Streaming: a device-to-device copy measured on 8x H100 80GB HBM3 SXM5
  // nodes, 2,903 of 3,350 GB/s = 0.867 (ZiyanIshani/vpbenchmarking, README,
  // "Memory Bandwidth - Single Node (8x H100)", GPU D2D (HBM3)).
  p.memory_efficiency = 2903.0 / 3350.0;
  // SwiGLU (a gated activation, KernelClass::kGated*) as Megatron-LM runs
  // it: megatron.core's bias_swiglu_impl (fused_bias_swiglu.py, its
  // @jit_fuser functions `swiglu` and `swiglu_back`), the kernel NeMo's
  // Llama MLPs call, timed on an "NVIDIA H100 80GB HBM3" by Liger-Kernel's
  // benchmark (linkedin/Liger-Kernel, benchmark/data/all_benchmark_data.csv
  // rows "megatron_swiglu,megatron", added in 2120862b, 2026-08-10;
  // benchmark/scripts/benchmark_megatron_swiglu.py: bf16 input [2048, 4,
  // 2 ffn], triton.testing.do_bench's median, L2 flushed; the torch and
  // megatron-core releases not recorded;
  // tests/data/h100_kernels/liger_h100_swiglu.txt). Against the bytes
  // Brigade charges (forward 3 T ffn e: gate and up read, the product
  // written; backward 5 T ffn e: dy, gate and up read, both gradients
  // written), the slope through the four largest calls (ffn 4,096 ...
  // 32,768): forward 1,892 GB/s = 0.565 of 3,350 (intercept 7 us);
  // backward, the benchmark's forward-and-backward row less its forward
  // row, as its script says to read it (its output's sum stands in for the
  // read of dy, which the benchmark's sum makes a broadcast scalar: the
  // same bytes), 638 GB/s = 0.190 (intercept 17 us). The same GPU runs
  // Liger's own SwiGLU at 3,096 GB/s forward (0.924): the kernel, not the
  // memory, sets these rates (tests/costmodel/h100_kernels_published_test.cpp
  // recomputes all three). GeLU (bias_gelu_impl), LayerNorm and RMSNorm
  // (Transformer Engine's in NeMo) were not measured here: their classes
  // keep memory_efficiency.
  p.gated_activation_forward_efficiency = 0.565;
  p.gated_activation_backward_efficiency = 0.190;
  p.launch_overhead_seconds = 5.278783798217772e-6;  // the H200 measurement's
  // FP8 (and INT8, the same tensor-core rate): cuBLASLt's E4M3 GEMMs as
  // measured on an "NVIDIA H100 80GB HBM3" (Azure/AI-benchmarking-guide,
  // "Azure Results/ND_H100_v5_results.md" at f350e7e6, "GEMM CuBLASLt":
  // random inputs, 10,000 warm-up iterations; CUDA 12.6, driver 560.35.03),
  // square m = n = k = 1024 ... 32768 (fp8_cublaslt_square, above). The MAMF
  // table's best FP8 shape (1402.6 TFLOP/s, which freeze 1 put on the bf16
  // curve's shape) agrees with its plateau (1377-1382); the measured curve
  // rises later than bf16's: 0.61 of peak at 4096^3, 0.65 at 8192^3.
  const double h100_fp8[] = {274.1, 1011.3, 1216.9, 1290.1, 1377.3, 1382.2};
  set(p, DType::kFP8, curve(fp8_cublaslt_square(h100_fp8, p.launch_overhead_seconds)));
  set(p, DType::kI8, curve(fp8_cublaslt_square(h100_fp8, p.launch_overhead_seconds)));
  // NVLS: peak AllReduce bus bandwidth on 8 H100s "~480GB/s" (S. Jeaugey,
  // NCCL maintainer, NVIDIA/nccl-tests issue 212, 2024-05-06), with
  // 479.72 GB/s measured at 8 GiB on 8x H100 SXM5 (ZiyanIshani/vpbenchmarking,
  // "NCCL Communication - Single Node").
  p.nccl = hopper_nccl(480.0, version);
  p.flash_attention = hopper_flash_attention();
  p.fused_attention = hopper_fused_attention();
  return p;
}

// NVIDIA H200 (dgx-h200, h200x1): this project's own measurement
// (scenarios/profiles/h200_measured.yaml, `brigade calibrate --backend cuda`
// on one H200 SXM, 2026-11-30, docs/VALIDATION.md run 7), peaks and curves
// as measured; FP8 and INT8 (not measured there) from cuBLASLt's FP8 GEMMs
// measured on an H200 (Azure's benchmarks, below; freeze 2).
DeviceProfile h200_sxm(NcclVersion version) {
  DeviceProfile p = gpu_base("NVIDIA H200");
  p.sm_count = 132;  // the H100 SXM5's GH100 configuration (132 SMs)
  p.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kF64))] = 63068104842216.33;
  p.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kF32))] = 51094885319150.74;
  p.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kTF32))] = 367950028168680.94;
  p.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kF16))] = 733742980929557.4;
  p.peak_flops_per_second[static_cast<size_t>(dtype_index(DType::kBF16))] = 759635540035424;
  p.memory_bandwidth_bytes_per_second = 3995035922286.1772;
  p.memory_efficiency = 0.99360999042229;
  p.gemm_half_seconds = 2.238092483072259e-06;
  p.launch_overhead_seconds = 5.278783798217772e-06;
  set(p, DType::kF64, curve({{33554432, 0.10039425235374726}, {2147483648, 0.8676117320378105},
                             {137438953472, 1}}));
  set(p, DType::kF32, curve({{33554432, 0.07088562497567688}, {268435456, 0.4106012186622085},
                             {2147483648, 0.760931679997994}, {17179869184, 0.9823385862022973},
                             {137438953472, 0.9961423409845482}, {1099511627776, 1}}));
  set(p, DType::kTF32, curve({{33554432, 0.021849434997056803}, {268435456, 0.11414207832284108},
                              {2147483648, 0.4797032307763934}, {17179869184, 0.9328739276765253},
                              {137438953472, 0.9647070989130974}, {1099511627776, 1}}));
  set(p, DType::kF16, curve({{33554432, 0.011483103329832158}, {268435456, 0.09355435794624363},
                             {2147483648, 0.6744139814167296}, {17179869184, 1},
                             {137438953472, 0.8968742571452889}, {1099511627776, 0.8882326475567183}}));
  set(p, DType::kBF16, curve({{33554432, 0.010525663367824048}, {268435456, 0.09220658515969009},
                              {2147483648, 0.6721945342571348}, {17179869184, 1},
                              {137438953472, 0.9359257697257107}, {1099511627776, 0.9265006676042581}}));
  // FP8 / INT8 against the data sheet's 1979 (no measured peak for them):
  // cuBLASLt's E4M3 GEMMs as measured on an "NVIDIA H200 141GB"
  // (Azure/AI-benchmarking-guide, "Azure_Results/ND_H200_v5_results.md" at
  // 7f20e5fa, "GEMM CuBLASLt", the H100's benchmark and setup; CUDA 12.6,
  // driver 560.28.03), square m = n = k = 1024 ... 32768.
  const double h200_fp8[] = {290.8, 1013.4, 1249.1, 1300.6, 1366.3, 1349.5};
  set(p, DType::kFP8, curve(fp8_cublaslt_square(h200_fp8, p.launch_overhead_seconds)));
  set(p, DType::kI8, curve(fp8_cublaslt_square(h200_fp8, p.launch_overhead_seconds)));
  // NVLS: 475 GB/s peak AllReduce bus bandwidth measured on 8x H200 over
  // NVLink4 (NVIDIA/nccl-tests issue 272, 2024-11-27, NCCL 2.20.3).
  p.nccl = hopper_nccl(475.0, version);
  // FlashAttention-2: the H100's table (above). No published FA2 kernel
  // measurement on an H200 was found; the two share the GH100 die, SMs and
  // clocks, and FA2 at these lengths is bound by its tensor-core and softmax
  // pipeline (about 37% of the bf16 peak on the H100), not by HBM (its
  // traffic grows as s, its work as s^2), so the H200's faster HBM is not
  // expected to move it. The H200's own measured GEMM peak (759.6 TFLOP/s
  // at 700 W, below) does not scale the table either: FA2 is far below it.
  // cuDNN's fused attention likewise (at most 55% of the bf16 peak).
  p.flash_attention = hopper_flash_attention();
  p.fused_attention = hopper_fused_attention();
  return p;
}

}  // namespace

std::vector<DeviceProfile> preset_gpu_profiles(NcclVersion version) {
  return {a100_sxm4_80gb(version), a100_pcie_80gb(version), h100_sxm5_80gb(version),
          h200_sxm(version)};
}

DeviceProfile preset_fallback_gpu_profile() {
  // Any other GPU: the A100's GEMMs and streams, without an NCCL table (its
  // NVLink and NCCL constants are unknown): the alpha-beta model.
  DeviceProfile p = a100_sxm4_80gb(kDefaultNcclVersion);
  p.model = "*";
  p.nccl = NcclTable{};
  return p;
}

}  // namespace brigade
