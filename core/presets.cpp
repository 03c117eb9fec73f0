// Topology presets. Every number states its source next to it.
// Latencies are one-way, per message, device to device; a route through a
// switch splits it over its two links.
#include <cstdio>
#include <functional>
#include <map>

#include "core/topology.hpp"

namespace brigade {
namespace {

constexpr double kGB = 1e9;
constexpr double kGiB = 1073741824.0;
constexpr double kMiB = 1048576.0;
constexpr double kTF = 1e12;
constexpr double kUs = 1e-6;

PerDType flops(double f64, double f32, double tf32, double f16, double bf16, double fp8,
               double i8) {
  PerDType p{};
  p[dtype_index(DType::kF64)] = f64;
  p[dtype_index(DType::kF32)] = f32;
  p[dtype_index(DType::kTF32)] = tf32;
  p[dtype_index(DType::kF16)] = f16;
  p[dtype_index(DType::kBF16)] = bf16;
  p[dtype_index(DType::kFP8)] = fp8;
  p[dtype_index(DType::kI8)] = i8;
  p[dtype_index(DType::kI32)] = f32;  // integer ALU throughput ~ FP32 (CUDA arithmetic tables)
  return p;
}

// NVIDIA A100 Tensor Core GPU data sheet (2021), SXM4 80GB column: FP64 Tensor
// 19.5 TF, FP32 19.5 TF, TF32 156 TF, BF16/FP16 312 TF, INT8 624 TOPS (dense,
// no sparsity); HBM2e 2,039 GB/s; 80 GB.
Device a100_sxm4_80gb() {
  Device d;
  d.model = "NVIDIA A100-SXM4-80GB";
  d.memory_bytes = 80 * kGiB;
  d.peak_flops_per_second = flops(19.5 * kTF, 19.5 * kTF, 156 * kTF, 312 * kTF, 312 * kTF, 0,
                                  624 * kTF);
  d.memory_bandwidth_bytes_per_second = 2039 * kGB;
  return d;
}

// Same data sheet, PCIe 80GB column: compute as SXM4; HBM2e 1,935 GB/s.
Device a100_pcie_80gb() {
  Device d = a100_sxm4_80gb();
  d.model = "NVIDIA A100-PCIE-80GB";
  d.memory_bandwidth_bytes_per_second = 1935 * kGB;
  return d;
}

// NVIDIA H100 Tensor Core GPU data sheet (2023), H100 SXM column, dense
// (the sheet's figures halved where quoted "with sparsity"): FP64 Tensor 67 TF,
// FP32 67 TF, TF32 494.5 TF, BF16/FP16 989.5 TF, FP8 1,979 TF, INT8 1,979 TOPS;
// HBM3 3.35 TB/s; 80 GB.
Device h100_sxm5_80gb() {
  Device d;
  d.model = "NVIDIA H100-SXM5-80GB";
  d.memory_bytes = 80 * kGiB;
  d.peak_flops_per_second = flops(67 * kTF, 67 * kTF, 494.5 * kTF, 989.5 * kTF, 989.5 * kTF,
                                  1979 * kTF, 1979 * kTF);
  d.memory_bandwidth_bytes_per_second = 3350 * kGB;
  return d;
}

// NVIDIA H200 Tensor Core GPU data sheet (2024), H200 SXM column: compute as
// H100 SXM (dense: BF16 989.5 TF, FP8 1,979 TF, TF32 494.5 TF, FP64 Tensor 67 TF);
// HBM3e "141 GB" at 4.8 TB/s. The capacity is what the card reports, not the
// sheet's round figure: nvidia-smi's memory.total on the H200 lent to this
// project (driver 580.159.04, 2026-11-30, docs/VALIDATION.md) read 143,771
// MiB, 140.4 GiB (the sheet's "141 GB" is neither 141e9 bytes nor 141 GiB).
Device h200_sxm_141gb() {
  Device d = h100_sxm5_80gb();
  d.model = "NVIDIA H200";
  d.memory_bytes = 143771 * kMiB;
  d.memory_bandwidth_bytes_per_second = 4800 * kGB;
  return d;
}

// A host thread as a device. Peak: one x86-64 core with AVX2, two FMA units x
// 8 FP32 lanes x 2 FLOP = 32 FP32 FLOP/cycle (Intel 64 and IA-32 Optimization
// Reference Manual, Haswell+), at a nominal 2.5 GHz: 80 GFLOP/s FP32, 40 FP64.
// Memory: single-core STREAM copy bandwidth on current servers is ~10 GB/s
// (McCalpin, STREAM results). Capacity: a nominal 4 GiB slice of host memory.
// These are placeholders by design: `brigade calibrate --backend cpu` measures them.
Device host_thread() {
  Device d;
  d.model = "host-thread";
  d.kind = DeviceKind::kCpu;
  d.memory_bytes = 4 * kGiB;
  d.peak_flops_per_second = flops(40e9, 80e9, 80e9, 0, 0, 0, 0);
  d.memory_bandwidth_bytes_per_second = 10 * kGB;
  return d;
}

struct NodePreset {
  std::function<Device()> device;
  int devices_per_node;
  std::string switch_name;
  LinkClass link_class;
  double link_bandwidth;   // per device link, per direction
  double link_latency;     // device to device through the switch
  FabricSpec fabric;       // default between nodes
  const char* description;
};

const std::map<std::string, NodePreset>& node_presets() {
  static const std::map<std::string, NodePreset> kPresets = {
      // NVIDIA DGX A100 User Guide / data sheet: 8x A100 SXM4 80GB, 6 NVSwitch;
      // third-generation NVLink, 12 links x 25 GB/s = 300 GB/s per direction per
      // GPU (600 GB/s bidirectional); 8x ConnectX-6 HDR 200 Gb/s (25 GB/s) compute
      // NICs, one per GPU. Latency: CUDA sample p2pBandwidthLatencyTest reports
      // ~2 us GPU-to-GPU over NVLink; NCCL's tuning model (src/graph/tuning.cc,
      // hwLat NVLink ring LL128) uses 1.9 us per step.
      {"dgx-a100",
       {a100_sxm4_80gb, 8, "nvswitch", LinkClass::kNvlink, 300 * kGB, 2.0 * kUs,
        {25 * kGB, 5.0 * kUs, LinkClass::kInfiniband},
        "DGX A100: 8x A100-SXM4-80GB, NVSwitch 300 GB/s per direction, 8x HDR 200 Gb/s"}},
      // NVIDIA DGX H100 data sheet: 8x H100 SXM5 80GB, 4 NVSwitch; fourth-generation
      // NVLink, 18 links x 25 GB/s = 450 GB/s per direction (900 GB/s bidirectional);
      // 8x ConnectX-7 NDR 400 Gb/s (50 GB/s) compute NICs.
      {"dgx-h100",
       {h100_sxm5_80gb, 8, "nvswitch", LinkClass::kNvlink, 450 * kGB, 2.0 * kUs,
        {50 * kGB, 5.0 * kUs, LinkClass::kInfiniband},
        "DGX H100: 8x H100-SXM5-80GB, NVSwitch 450 GB/s per direction, 8x NDR 400 Gb/s"}},
      // NVIDIA DGX H200 data sheet (2024): 8x H200 SXM 141GB, 4 NVSwitch,
      // fourth-generation NVLink 900 GB/s bidirectional per GPU (18 links x 25
      // GB/s = 450 GB/s per direction, as DGX H100); 8x ConnectX-7 NDR 400 Gb/s
      // (50 GB/s) compute NICs, one per GPU.
      {"dgx-h200",
       {h200_sxm_141gb, 8, "nvswitch", LinkClass::kNvlink, 450 * kGB, 2.0 * kUs,
        {50 * kGB, 5.0 * kUs, LinkClass::kInfiniband},
        "DGX H200: 8x H200 SXM, NVSwitch 450 GB/s per direction, 8x NDR 400 Gb/s"}},
      // One H200 SXM (data sheet above). Its host link (PCIe Gen5 x16, 64 GB/s per
      // direction) is not modelled: the preset has no host device. Multi-node
      // clusters of it join through NDR 400 Gb/s NICs (50 GB/s).
      {"h200x1",
       {h200_sxm_141gb, 1, "", LinkClass::kNvlink, 450 * kGB, 2.0 * kUs,
        {50 * kGB, 5.0 * kUs, LinkClass::kInfiniband}, "1x H200 SXM 141GB"}},
      // A workstation: 4x A100 PCIe 80GB under one PCIe Gen4 x16 switch. PCIe 4.0
      // x16: 16 GT/s x 16 lanes x 128/130 = 31.5 GB/s per direction (PCI-SIG); the
      // A100 PCIe data sheet quotes 64 GB/s bidirectional. P2P latency through a
      // PCIe switch: ~5 us (p2pBandwidthLatencyTest, P2P enabled). Between nodes:
      // 100 Gb/s Ethernet (12.5 GB/s), ~10 us with RoCE.
      {"pcie-4gpu",
       {a100_pcie_80gb, 4, "pcie-switch", LinkClass::kPcie, 31.5 * kGB, 5.0 * kUs,
        {12.5 * kGB, 10.0 * kUs, LinkClass::kEthernet},
        "4x A100-PCIE-80GB under one PCIe Gen4 x16 switch"}},
      // N host threads as devices, exchanging data through shared memory:
      // single-thread memcpy ~10 GB/s (STREAM copy, one core); ~1 us to hand a
      // buffer to another thread (a futex wake-up, Linux). Between nodes: 10 Gb/s
      // Ethernet, ~20 us (TCP round trip / 2 on a LAN). Calibrate to replace them.
      {"cpu-host",
       {host_thread, 4, "host-memory", LinkClass::kSharedMemory, 10 * kGB, 1.0 * kUs,
        {1.25 * kGB, 20.0 * kUs, LinkClass::kEthernet},
        "N host threads as devices, shared memory"}},
  };
  return kPresets;
}

}  // namespace

std::vector<std::string> preset_names() {
  std::vector<std::string> names;
  for (const auto& [name, p] : node_presets()) names.push_back(name);
  return names;
}

Result<Topology> make_preset(const std::string& name, int nodes, int devices,
                             const FabricSpec* fabric) {
  const auto& presets = node_presets();
  auto it = presets.find(name);
  if (it == presets.end()) {
    std::string choices;
    for (const auto& [n, p] : presets) choices += (choices.empty() ? "" : ", ") + n;
    std::string msg = "found preset '" + name + "'; expected one of " + choices;
    if (auto m = closest_match_in(name, preset_names())) msg += " (did you mean '" + *m + "'?)";
    return Status::error(msg);
  }
  const NodePreset& p = it->second;
  if (nodes < 1)
    return Status::error("found nodes " + std::to_string(nodes) + "; expected nodes >= 1");
  int per_node = p.devices_per_node;
  if (devices > 0) {
    if (name != "cpu-host" && devices != p.devices_per_node)
      return Status::error("found devices " + std::to_string(devices) + " for preset '" + name +
                           "'; expected " + std::to_string(p.devices_per_node) +
                           " (the preset's devices per node) or use nodes");
    per_node = devices;
  }
  if (devices < 0)
    return Status::error("found devices " + std::to_string(devices) + "; expected devices >= 1");

  Topology t;
  t.preset = name;
  if (nodes > 1) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "cluster(%d, %s)", nodes, name.c_str());
    t.preset = buf;
  }
  for (int n = 0; n < nodes; ++n) {
    for (int i = 0; i < per_node; ++i) {
      Device d = p.device();
      d.node = n;
      d.local_index = i;
      const std::string local = std::string(device_kind_name(d.kind)) + std::to_string(i);
      d.name = nodes > 1 ? "node" + std::to_string(n) + "/" + local : local;
      t.add_device(std::move(d));
    }
  }
  if (per_node > 1) {
    for (int n = 0; n < nodes; ++n) {
      const std::string sw = nodes > 1 ? "node" + std::to_string(n) + "/" + p.switch_name
                                       : p.switch_name;
      const int sv = t.add_switch(Switch{sw, n});
      for (int i = 0; i < per_node; ++i) {
        const int dev = n * per_node + i;
        t.add_link(Link{dev, sv, p.link_latency / 2, p.link_bandwidth, p.link_class,
                        t.device(dev).name + "<->" + sw});
      }
    }
  }
  if (nodes > 1) {
    const FabricSpec f = fabric ? *fabric : p.fabric;
    const int fv = t.add_switch(Switch{"fabric", -1});
    for (int d = 0; d < t.num_devices(); ++d)
      t.add_link(Link{d, fv, f.latency_seconds / 2, f.bandwidth_bytes_per_second, f.link_class,
                      t.device(d).name + "<->fabric"});
  }
  return t;
}

}  // namespace brigade
