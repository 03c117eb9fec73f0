// The calibration view's data: a HardwareProfile drawn as nccl-tests and
// roofline plots do. Four plots, each with the measured samples a
// calibrated profile carries (HardwareProfile::calibration, optional) and
// the line the judges draw from the profile's fits:
//   - GEMM efficiency against FLOP per kernel, per dtype: what a square GEMM
//     of F FLOP achieves under kernel_seconds (the curve, and Hockney's
//     half-performance time where the curve has no points);
//   - streaming bandwidth (bytes / kernel time, launch included) against
//     bytes per kernel;
//   - transfer bandwidth against bytes, per link class;
//   - each collective's bus bandwidth against its size M (nccl-tests'
//     busBw), per kind, from cost::collective_cost on the group the
//     profile was measured on (a star of its ranks around one switch, as
//     brigade calibrate builds it) or, for a scenario, on its own topology.
// Every line is computed by the judges' own functions, so that it is the
// model the simulator uses. No Qt.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/profile.hpp"
#include "core/topology.hpp"
#include "gui/model/chart_units.hpp"

namespace brigade::gui {

struct PlotSeries {
  std::string name;       // legend: "f32", "allreduce · 2 ranks"
  int group = 0;          // the colour: one per dtype, link class or collective kind
  bool measured = false;  // samples (points) or the model (a line)
  bool dashed = false;    // a second group of the same colour (a scenario's inter-node ranks;
                          // the plot's notes say which is which)
  XY xy;
};

struct CalibrationPlot {
  std::string title;
  std::string x_title;  // "FLOP per GEMM", "bytes per kernel", ...
  std::string y_title;
  bool y_is_bandwidth = false;  // B/s (log scale), else an efficiency in (0, 1]
  std::vector<PlotSeries> series;
  std::vector<std::string> notes;  // what is not drawn and why
  bool has_samples() const;
  bool empty() const { return series.empty(); }
};

struct FitQuality {
  std::string name;  // "memory", "collective.allreduce", "gemm.f32"
  std::string what;  // "streaming kernels: T = α + bytes / B"
  double r_squared = 0;
};

struct CalibrationPlots {
  std::string model;  // the device model drawn
  bool has_samples = false;
  CalibrationPlot gemm, memory, transfers, collectives;
  std::vector<FitQuality> fits;
};

// The device models worth a plot: with a topology, the profile entries its
// devices use (their models, in order of first use); without, every entry
// of the profile.
std::vector<std::string> calibration_models(const HardwareProfile& profile,
                                            const Topology* topology);

// The plots of `model` (an entry of calibration_models). `topology`: the
// scenario's, or null for a profile opened alone.
CalibrationPlots calibration_plots(const HardwareProfile& profile, const Topology* topology,
                                   const std::string& model);

// The note every plot of a profile without samples starts with, in the
// current language: "no samples in this profile: the fits alone".
std::string no_samples_note();

// Coefficient of determination of a model f against points (x, y):
// 1 - sum (y - f(x))^2 / sum (y - mean y)^2 (1 when every y is equal and
// matched). Needs two points or more; else 0.
template <class F>
double r_squared_of(const XY& points, F f) {
  if (points.size() < 2) return 0;
  double mean = 0;
  for (const auto& p : points) mean += p.second;
  mean /= static_cast<double>(points.size());
  double res = 0, tot = 0;
  for (const auto& [x, y] : points) {
    res += (y - f(x)) * (y - f(x));
    tot += (y - mean) * (y - mean);
  }
  if (tot == 0) return res == 0 ? 1 : 0;
  return 1 - res / tot;
}

}  // namespace brigade::gui
