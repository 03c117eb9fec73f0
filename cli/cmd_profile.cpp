// brigade profile [--model TEXT] [--nccl-version 2.24|2.29] [--out PROFILE.yaml]
//
// The presets' hardware profile (HardwareProfile::defaults: each GPU
// model's peaks, GEMM curves, streaming efficiencies, attention rates and
// NCCL tables, the links' efficiencies, every constant with its source in
// core/presets_profiles.cpp) written as a profile file, so that a what-if
// starts from the presets rather than from nothing: edit one key, then pass
// the file with --profile (or a scenario's `profile:` key). It reads back
// exactly (tests/core/profile_io_test.cpp, DefaultsRoundTripExactly), so an
// unedited file judges every plan as the presets do. On stdout without
// --out; --model keeps the device models whose name contains the text.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/cli_util.hpp"
#include "cli/verbs.hpp"
#include "core/profile.hpp"

namespace brigade::cli {
namespace {

struct ProfileArgs {
  std::string model, nccl_version, out;
};

void run_profile(const ProfileArgs& a) {
  const NcclVersion version = a.nccl_version.empty()
                                  ? kDefaultNcclVersion
                                  : parse_nccl_version_flag("--nccl-version", a.nccl_version);
  HardwareProfile p = HardwareProfile::defaults(version);
  p.name = "presets";
  p.source = fmt::format(
      "brigade profile: the presets' built-in profile (core/presets_profiles.cpp; NCCL {}'s "
      "tuning), to edit for a what-if",
      nccl_version_name(version));
  if (!a.model.empty()) {
    std::string models;
    std::erase_if(p.devices, [&](const DeviceProfile& d) {
      if (!models.empty()) models += ", ";
      models += "'" + d.model + "'";
      return d.model.find(a.model) == std::string::npos;
    });
    if (p.devices.empty())
      throw_flag_error("--model", a.model,
                       "a part of a preset device model's name (" + models + ")");
  }
  if (a.out.empty()) {
    auto text = profile_yaml(p, "<stdout>");
    if (!text.is_ok()) throw RuntimeFailure{"brigade: error: profile: " + text.message()};
    std::cout << *text;
    return;
  }
  const Status st = save_profile(p, a.out);
  if (!st.is_ok()) throw RuntimeFailure{"brigade: error: --out: " + st.message()};
  std::cout << fmt::format(
      "Profile of {} device model{} written to {} (--profile FILE, or a "
      "scenario's profile: key)\n",
      p.devices.size(), p.devices.size() == 1 ? "" : "s", a.out);
}

const RegisterVerb kRegister("profile", 62, [](CLI::App& app) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "profile",
      "Write the presets' hardware profile (each GPU's measured curves, efficiencies, attention\n"
      "rates and NCCL tables) as a profile file to edit for a what-if (--profile FILE).");
  cmd->add_option("--model", args->model,
                  "keep the device models whose name contains this text (H100, A100-SXM4, ...)");
  cmd->add_option("--nccl-version", args->nccl_version,
                  "the NCCL release whose tuning model the NCCL tables follow, 2.24 or 2.29 "
                  "(default 2.29)");
  cmd->add_option("--out", args->out, "write the profile here (YAML) instead of stdout")
      ->check(output_path_check());
  cmd->callback([args] { run_profile(*args); });
});

}  // namespace
}  // namespace brigade::cli
