#include "realexec/calibrate_machine.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include "realexec/executor.hpp"
#include "realexec/fit.hpp"

namespace brigade::realexec::calibrate_detail {

std::string host_name() {
  char buf[256] = {0};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

int reps_for(double budget_seconds, double estimate_seconds, int lo, int hi) {
  const double r = std::ceil(budget_seconds / std::max(estimate_seconds, 1e-7));
  return static_cast<int>(std::clamp(r, static_cast<double>(lo), static_cast<double>(hi)));
}

Result<AlphaBetaFit> fit_alpha_beta(std::vector<SizePoint> points) {
  std::vector<double> x, y;
  for (SizePoint& p : points) {
    p.bytes_per_second = p.seconds > 0 ? p.bytes / p.seconds : 0;
    x.push_back(p.bytes);
    y.push_back(p.seconds);
  }
  BRIGADE_ASSIGN_OR_RETURN(LinearFit f, fit_line(x, y));
  AlphaBetaFit a;
  a.fit = f;
  a.alpha_seconds = f.intercept;
  a.bandwidth_bytes_per_second = f.slope > 0 ? 1.0 / f.slope : 0;
  a.points = std::move(points);
  return a;
}

Result<Machine> cpu_machine(int devices) {
  BRIGADE_ASSIGN_OR_RETURN(Topology t, make_preset("cpu-host", 1, devices));
  Machine m;
  m.device = t.device(0);
  m.topology = std::move(t);
  return m;
}

Result<Machine> cuda_machine(int devices) {
  BRIGADE_ASSIGN_OR_RETURN(std::string name, cuda_device_name(0));
  Machine m;
  m.known = false;
  for (const std::string& preset : preset_names()) {
    auto t = make_preset(preset);
    if (t.is_ok() && t->device(0).model == name) {
      m.device = t->device(0);
      m.known = true;
      break;
    }
  }
  if (!m.known) {
    // Peaks unknown: efficiencies come out relative to the best rate measured
    // (filled in later), under the "*" model that matches any device.
    m.device.model = "*";
    m.device.memory_bytes = 0;
  }
  const bool pcie =
      name.find("PCIE") != std::string::npos || name.find("PCIe") != std::string::npos;
  for (int d = 0; d < devices; ++d) {
    Device dev = m.device;
    dev.name = "gpu" + std::to_string(d);
    dev.local_index = d;
    m.topology.add_device(dev);
  }
  if (devices > 1) {
    // The presets' figures: NVLink through NVSwitch 450 GB/s (H100/H200 SXM),
    // PCIe Gen4 x16 31.5 GB/s (core/presets.cpp).
    const int sw = m.topology.add_switch(Switch{pcie ? "pcie-switch" : "nvswitch", 0});
    for (int d = 0; d < devices; ++d)
      m.topology.add_link(Link{d, sw, pcie ? 2.5e-6 : 1e-6, pcie ? 31.5e9 : 450e9,
                               pcie ? LinkClass::kPcie : LinkClass::kNvlink,
                               "gpu" + std::to_string(d) + "<->switch"});
  }
  m.topology.preset = "calibration(" + std::to_string(devices) + " x " + name + ")";
  BRIGADE_RETURN_IF_ERROR(m.topology.validate());
  return m;
}

}  // namespace brigade::realexec::calibrate_detail
