#include "costmodel/plan_figures.hpp"

#include <map>

namespace brigade::cost {

RunFigures figures_of_estimate(const PlanEstimate& e, const Topology& topology,
                               const std::string& label) {
  RunFigures f;
  f.label = label;
  f.source = "cost";
  f.program = e.name;
  f.step_seconds = e.step_seconds;
  f.basis = KindBasis::kBusiestDevice;
  for (const DeviceMemoryEstimate& m : e.memory) {
    DeviceFigures d;
    d.device = m.device;
    d.name = m.device >= 0 && m.device < topology.num_devices() ? topology.device(m.device).name
                                                                 : "device " + std::to_string(m.device);
    d.peak_memory_bytes = m.peak_bytes;
    f.devices.push_back(std::move(d));
  }
  std::map<std::string, KindFigures> kinds;
  kinds["compute"] = KindFigures{"compute", 0, e.compute_seconds, 0};
  if (e.optimizer_seconds > 0) kinds["compute opt"] = KindFigures{"compute opt", 0, e.optimizer_seconds, 0};
  for (const CommunicationEstimate& c : e.communication) {
    const std::string key = c.kind + " (" + c.purpose + ")";
    KindFigures& k = kinds[key];
    k.kind = key;
    k.count += static_cast<int>(c.count);
    k.seconds += c.seconds;
    k.bytes += c.bytes;
  }
  for (auto& [key, k] : kinds) f.kinds.push_back(std::move(k));
  return f;
}

}  // namespace brigade::cost
