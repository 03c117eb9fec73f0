// What the tests that hold a preset to published kernel and collective
// timings share (attention_published_test.cpp, a100_kernels_published_test.cpp,
// hopper_fp8_published_test.cpp, nccl_published_test.cpp): a data table's
// rows, a preset's first device with its default profile, and the
// least-squares line through time against bytes (the slope a kernel's rate,
// the intercept a call's host time).
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/profile.hpp"
#include "core/topology.hpp"

namespace brigade::cost::testing {

// The rows of a table under tests/data/ (`path` relative to it), each as a
// stream to read its columns from: empty lines and '#' comments skipped.
inline std::vector<std::istringstream> data_rows(const std::string& path) {
  std::ifstream in(std::string(BRIGADE_SOURCE_DIR) + "/tests/data/" + path);
  EXPECT_TRUE(in.good()) << path;
  std::vector<std::istringstream> rows;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty() && line[0] != '#') rows.emplace_back(line);
  return rows;
}

struct PresetGpu {
  Device device;
  DeviceProfile profile;
};

inline PresetGpu preset_gpu(const char* preset) {
  const Topology t = make_preset(preset).value();
  const Device d = t.device(0);
  return {d, HardwareProfile::defaults().for_device(d)};
}

struct Line {
  double slope = 0, intercept = 0;
};

inline Line least_squares(const std::vector<double>& x, const std::vector<double>& y) {
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
  mx /= static_cast<double>(x.size());
  my /= static_cast<double>(y.size());
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < x.size(); ++i)
    sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx);
  return {sxy / sxx, my - sxy / sxx * mx};
}

}  // namespace brigade::cost::testing
