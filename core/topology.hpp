// The cluster: devices (chefs), switches, and full-duplex links (runners).
//
// Vertices: devices are vertices 0..D-1 (vertex id == device id), switches
// follow. Each link is full duplex: its two directions are separate
// "channels" (2*link for a->b, 2*link+1 for b->a), each with the link's full
// bandwidth. Routes are the shortest paths in hops, ties broken by the widest
// bottleneck, then the lowest latency, then the lowest vertex ids, so they
// are deterministic.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/dtype.hpp"
#include "core/status.hpp"

namespace brigade {

enum class DeviceKind : std::uint8_t { kGpu, kCpu, kTpu };
std::string_view device_kind_name(DeviceKind k);

// What kind of wire a link is: selects the HardwareProfile's per-class alpha
// and bandwidth efficiency.
enum class LinkClass : std::uint8_t { kNvlink, kPcie, kInfiniband, kEthernet, kSharedMemory };
inline constexpr int kNumLinkClasses = 5;
std::string_view link_class_name(LinkClass c);
std::optional<LinkClass> parse_link_class(std::string_view s);

struct Device {
  int id = 0;
  std::string name;       // "gpu3", "node2/gpu5", "cpu0"
  std::string model;      // "NVIDIA A100-SXM4-80GB": selects a HardwareProfile entry
  DeviceKind kind = DeviceKind::kGpu;
  int node = 0;           // machine index
  int local_index = 0;    // index within its node
  double memory_bytes = 0;
  PerDType peak_flops_per_second{};  // dense peak by dtype; 0 = unsupported
  double memory_bandwidth_bytes_per_second = 0;
};

struct Switch {
  std::string name;  // "nvswitch", "node3/pcie", "ib-fabric"
  int node = -1;     // -1: spans nodes (a fabric)
};

struct Link {
  int a = 0, b = 0;                      // vertex ids
  double latency_seconds = 0;            // per message, one way
  double bandwidth_bytes_per_second = 0; // per direction
  LinkClass link_class = LinkClass::kNvlink;
  std::string name;
};

using ChannelId = std::int32_t;  // 2*link + direction
inline constexpr ChannelId channel_of(int link, bool reverse) { return 2 * link + (reverse ? 1 : 0); }
inline constexpr int link_of(ChannelId c) { return c / 2; }

// A path from one device to another.
struct Route {
  std::vector<ChannelId> channels;         // in order; empty for src == dst
  double latency_seconds = 0;              // sum over links
  double bandwidth_bytes_per_second = 0;   // bottleneck (infinite for src == dst)
  LinkClass slowest_class = LinkClass::kNvlink;  // class of the bottleneck link
};

class Topology {
 public:
  Topology();
  Topology(const Topology& other);
  Topology& operator=(const Topology& other);
  Topology(Topology&&) noexcept;
  Topology& operator=(Topology&&) noexcept;
  ~Topology();

  // Building. Devices must all be added before switches.
  int add_device(Device d);  // assigns d.id; returns it
  int add_switch(Switch s);  // returns its vertex id
  int add_link(Link l);      // returns the link index

  const std::vector<Device>& devices() const { return devices_; }
  const std::vector<Switch>& switches() const { return switches_; }
  const std::vector<Link>& links() const { return links_; }
  int num_devices() const { return static_cast<int>(devices_.size()); }
  int num_nodes() const;
  int num_vertices() const { return num_devices() + static_cast<int>(switches_.size()); }
  int num_channels() const { return 2 * static_cast<int>(links_.size()); }
  std::string vertex_name(int v) const;
  const Device& device(int id) const { return devices_[static_cast<size_t>(id)]; }
  // The smallest and the largest device memory (0 without devices): equal
  // when every device has the same capacity.
  double min_device_memory_bytes() const { return min_memory_bytes_; }
  double max_device_memory_bytes() const { return max_memory_bytes_; }

  // The preset this came from ("dgx-a100", "cluster(16, dgx-a100, ...)", "custom").
  std::string preset;

  // Checks links' endpoints, positive bandwidths, non-negative latencies,
  // unique names and that every device can reach every other device.
  Status validate() const;

  // The route between two devices (computed on first use per source and
  // cached; the cache is internally synchronised, so concurrent readers are
  // safe). Requires validate() to have passed.
  //
  // Copies share the cache: routes depend on the devices, switches and links
  // alone, so a copy (a search candidate's or a sweep variant's Scenario)
  // reuses every route its original has computed, and computes each new one
  // once for all of them. Adding a device, switch or link detaches the
  // topology from the shared cache (it starts a fresh one of its own).
  const Route& route(int src_device, int dst_device) const;

  // True when this topology and `other` share one route cache (tests).
  bool shares_routes_with(const Topology& other) const { return routes_ == other.routes_; }

  // Source endpoint vertex and destination endpoint vertex of a channel.
  int channel_from(ChannelId c) const;
  int channel_to(ChannelId c) const;

 private:
  void invalidate_routes();
  std::vector<Device> devices_;
  double min_memory_bytes_ = 0, max_memory_bytes_ = 0;
  std::vector<Switch> switches_;
  std::vector<Link> links_;
  struct RouteCache;
  std::shared_ptr<RouteCache> routes_;  // shared by copies; never null except when moved from
};

// ---- presets (core/presets.cpp; every number cites its data sheet) -------------

// Parameters of a multi-node fabric: one NIC per device into a non-blocking
// fabric (rail-optimised fat tree, abstracted as one switch).
struct FabricSpec {
  double bandwidth_bytes_per_second = 0;  // per NIC, per direction
  double latency_seconds = 0;             // device to device through the fabric
  LinkClass link_class = LinkClass::kInfiniband;
};

// Names accepted by make_preset.
std::vector<std::string> preset_names();

// "dgx-a100", "dgx-h100", "h200x1", "pcie-4gpu", "cpu-host" (with `devices`
// host threads; devices <= 0 means 4). For `nodes` > 1 the node preset is
// replicated and joined through `fabric` (default: the node preset's own
// NICs). Errors name the preset and the choices.
Result<Topology> make_preset(const std::string& name, int nodes = 1, int devices = 0,
                             const FabricSpec* fabric = nullptr);

}  // namespace brigade
