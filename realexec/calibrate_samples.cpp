// The samples and R² that calibrate stores in the profile it writes
// (CalibrationSamples, core/profile.hpp; docs/scenario-format.md,
// "calibration").
#include <string>

#include "realexec/calibrate.hpp"

namespace brigade::realexec {

void record_samples(Calibration& c) {
  CalibrationSamples& s = c.profile.calibration;
  s = CalibrationSamples{};
  for (const GemmPoint& g : c.gemm) s.gemm.push_back({g.dtype, g.flops, g.seconds, g.efficiency});
  for (const SizePoint& m : c.memory.points) s.memory.push_back({m.bytes, m.seconds});
  for (const SizePoint& m : c.norm_points) s.norm.push_back({m.bytes, m.seconds});
  for (const SizePoint& m : c.activation_points) s.activation.push_back({m.bytes, m.seconds});
  for (const SizePoint& m : c.gated_points) s.gated.push_back({m.bytes, m.seconds});
  if (c.memory.fit.points > 0) s.r_squared.emplace_back("memory", c.memory.fit.r_squared);
  for (const LinkCalibration& l : c.links) {
    for (const SizePoint& p : l.transfer.points)
      s.links.push_back({l.link_class, p.bytes, p.seconds});
    if (l.transfer.fit.points > 0)
      s.r_squared.emplace_back("link." + std::string(link_class_name(l.link_class)),
                               l.transfer.fit.r_squared);
  }
  for (const CollectiveCalibration& cc : c.collectives) {
    for (const CollectivePoint& p : cc.points)
      s.collectives.push_back({cc.kind, cc.ranks, p.bytes, p.seconds, p.model_seconds});
    const std::string kind(collective_kind_name(cc.kind));
    if (cc.fit.points > 0) s.r_squared.emplace_back("collective." + kind, cc.fit.r_squared);
    if (cc.steps_fit.points > 0) s.r_squared.emplace_back("steps." + kind, cc.steps_fit.r_squared);
  }
  if (!c.collectives.empty() && c.collective_step.fit.points > 0)
    s.r_squared.emplace_back("collective_step", c.collective_step.fit.r_squared);
}

}  // namespace brigade::realexec
