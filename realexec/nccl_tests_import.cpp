#include "realexec/nccl_tests_import.hpp"

#include <fmt/format.h>

#include "core/profile.hpp"

namespace brigade::realexec {

Result<NcclTestsFit> fit_nccl_tests(const std::string& preset, int ranks, CollectiveKind kind,
                                    NcclVersion version,
                                    const std::vector<NcclSizePoint>& points) {
  auto topo = make_preset(preset, 1);
  if (!topo.is_ok()) return topo.status();
  const Topology& t = *topo;
  int gpus = 0;
  for (int d = 0; d < t.num_devices(); ++d)
    if (t.device(d).kind == DeviceKind::kGpu) ++gpus;
  NcclTestsFit out;
  out.profile = HardwareProfile::defaults(version);
  const DeviceProfile& base = out.profile.for_device(t.device(0));
  if (gpus == 0 || !base.nccl.present())
    return Status::error(fmt::format(
        "found preset '{}', whose devices have no NCCL table; expected a GPU preset "
        "(dgx-a100, dgx-h100, dgx-h200, pcie-4gpu, h200x1)",
        preset));
  if (gpus < 2)
    return Status::error(fmt::format(
        "found preset '{}', one GPU a node; expected a node of two GPUs or more (an nccl-tests "
        "table is measured between GPUs)",
        preset));
  if (ranks < 2 || ranks > gpus)
    return Status::error(fmt::format(
        "found {} ranks; expected 2 to {}, the GPUs of one {} node the table was measured on",
        ranks, gpus, preset));
  out.device_model = t.device(0).model;
  std::vector<int> group;
  for (int d = 0; d < ranks; ++d) group.push_back(d);
  out.group = cost::nccl_group_shape(t, out.profile, base.nccl, group);
  auto fit = fit_nccl_protocols(base.nccl, out.group, kind, points,
                                out.group.launch_overhead_seconds);
  if (!fit.is_ok()) return fit.status();
  if (const std::string why = nccl_fit_refusal(*fit, points); !why.empty())
    return Status::error("found times NCCL's protocols do not explain: " + why +
                         "; expected a table the fit-sanity rules accept (docs/costmodel.md, "
                         "\"Per-protocol figures from measurements\")");
  out.fit = std::move(fit).value();
  bool written = false;
  for (DeviceProfile& dp : out.profile.devices)
    if (dp.model == out.device_model) {
      dp.nccl = out.fit.table;
      written = true;
    }
  if (!written) {  // the preset's device came from the built-in fallback
    DeviceProfile dp = base;
    dp.model = out.device_model;
    dp.nccl = out.fit.table;
    out.profile.devices.push_back(std::move(dp));
  }
  return out;
}

}  // namespace brigade::realexec
