// The host's time per operation (DeviceProfile::host_op_seconds): a
// profile's devices[].host_op_time and a scenario's simulation.host_op_time
// (docs/scenario-format.md), read, written back and refused with position.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "core/profile.hpp"
#include "core/scenario.hpp"

namespace brigade {
namespace {

const std::string kHead =
    "topology: {preset: pcie-4gpu}\n"
    "model:\n"
    "  mlp: {batch: 8, widths: [16, 16]}\n"
    "strategy: {data: 4}\n";

TEST(HostOpTime, ScenarioKeyOverridesEveryDevice) {
  auto r = parse_scenario(kHead + "simulation: {host_op_time: 25us}\n", "t.yaml");
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_TRUE(r->simulation.host_op_seconds.has_value());
  EXPECT_DOUBLE_EQ(*r->simulation.host_op_seconds, 25e-6);
  EXPECT_DOUBLE_EQ(host_op_seconds(r->profile, r->topology.device(3), r->simulation.host_op_seconds), 25e-6);
  // Absent: the profile's (the presets set none: 0).
  auto plain = parse_scenario(kHead, "t.yaml");
  ASSERT_TRUE(plain.is_ok()) << plain.message();
  EXPECT_FALSE(plain->simulation.host_op_seconds.has_value());
  EXPECT_EQ(host_op_seconds(plain->profile, plain->topology.device(0), std::nullopt), 0);
  // 0 is allowed and means no host lane.
  auto zero = parse_scenario(kHead + "simulation: {host_op_time: 0s}\n", "t.yaml");
  ASSERT_TRUE(zero.is_ok()) << zero.message();
  EXPECT_EQ(*zero->simulation.host_op_seconds, 0);
}

TEST(HostOpTime, ScenarioRefusesWhatIsNotADuration) {
  auto neg = parse_scenario(kHead + "simulation: {host_op_time: -3us}\n", "t.yaml");
  ASSERT_FALSE(neg.is_ok());
  EXPECT_NE(neg.message().find("t.yaml:5:"), std::string::npos) << neg.message();
  EXPECT_NE(neg.message().find("found '-3us'; expected a non-negative duration"), std::string::npos)
      << neg.message();
  auto unit = parse_scenario(kHead + "simulation: {host_op_time: 25GB}\n", "t.yaml");
  ASSERT_FALSE(unit.is_ok());
  EXPECT_NE(unit.message().find("t.yaml:5:"), std::string::npos) << unit.message();
  auto typo = parse_scenario(kHead + "simulation: {host_op: 25us}\n", "t.yaml");
  ASSERT_FALSE(typo.is_ok());
  EXPECT_NE(typo.message().find("host_op_time"), std::string::npos) << typo.message();
}

// simulation.devices_per_host: devices one host drives (1 unless said),
// an integer from 1 to the topology's devices (pcie-4gpu: 4).
TEST(HostOpTime, DevicesPerHostIsAnIntegerUpToTheDevices) {
  auto four =
      parse_scenario(kHead + "simulation: {host_op_time: 25us, devices_per_host: 4}\n", "t.yaml");
  ASSERT_TRUE(four.is_ok()) << four.message();
  EXPECT_EQ(four->simulation.devices_per_host, 4);
  auto plain = parse_scenario(kHead, "t.yaml");
  ASSERT_TRUE(plain.is_ok()) << plain.message();
  EXPECT_EQ(plain->simulation.devices_per_host, 1);
  for (const char* bad : {"0", "5", "2.5", "two"}) {
    auto r = parse_scenario(kHead + "simulation: {devices_per_host: " + bad + "}\n", "t.yaml");
    ASSERT_FALSE(r.is_ok()) << bad;
    EXPECT_NE(r.message().find("t.yaml:5:"), std::string::npos) << r.message();
    EXPECT_NE(r.message().find(std::string("found '") + bad + "'"), std::string::npos)
        << r.message();
    EXPECT_NE(r.message().find("4"), std::string::npos) << r.message();  // the bound it names
  }
}

TEST(HostOpTime, ProfileReadsAndWritesIt) {
  const std::string text =
      "name: p\n"
      "devices:\n"
      "  - model: \"*\"\n"
      "    launch_overhead: 5us\n"
      "    host_op_time: 30us\n";
  auto p = parse_profile(text, "p.yaml");
  ASSERT_TRUE(p.is_ok()) << p.message();
  ASSERT_EQ(p->devices.size(), 1u);
  EXPECT_DOUBLE_EQ(p->devices[0].host_op_seconds, 30e-6);
  // The profile as save_profile writes it.
  auto saved = [](const HardwareProfile& profile) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("brigade_host_op_" + std::to_string(::getpid()) + ".yaml"))
                                 .string();
    EXPECT_TRUE(save_profile(profile, path).is_ok());
    std::ifstream in(path);
    std::stringstream written;
    written << in.rdbuf();
    std::filesystem::remove(path);
    return written.str();
  };
  const std::string written = saved(*p);
  EXPECT_NE(written.find("host_op_time"), std::string::npos) << written;
  auto back = parse_profile(written, "back.yaml");
  ASSERT_TRUE(back.is_ok()) << back.message();
  EXPECT_DOUBLE_EQ(back->devices[0].host_op_seconds, 30e-6);
  // Not written when 0 (a profile without it reads as before).
  HardwareProfile none = *p;
  none.devices[0].host_op_seconds = 0;
  EXPECT_EQ(saved(none).find("host_op_time"), std::string::npos);

  auto bad = parse_profile("devices:\n  - model: \"*\"\n    host_op_time: -1us\n", "bad.yaml");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("bad.yaml:3:"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace brigade
