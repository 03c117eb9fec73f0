// The calibration view's plots (gui/model/calibration_plots.hpp): samples
// against the judges' lines, for a calibrated profile, a profile without
// samples and a scenario's data-sheet profile.
#include "gui/model/calibration_plots.hpp"

#include <gtest/gtest.h>

#include "core/scenario.hpp"
#include "core/topology.hpp"
#include "costmodel/collectives.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

HardwareProfile profile(const std::string& path) {
  auto p = load_profile(kSrc + "/" + path);
  EXPECT_TRUE(p.is_ok()) << p.message();
  return std::move(p).value();
}

const PlotSeries* find(const CalibrationPlot& plot, const std::string& name) {
  for (const PlotSeries& s : plot.series)
    if (s.name.rfind(name, 0) == 0) return &s;
  return nullptr;
}

// The model's y at x (the lines hold the samples' x exactly).
double at(const PlotSeries& s, double x) {
  for (const auto& [px, py] : s.xy)
    if (px == x) return py;
  ADD_FAILURE() << s.name << " has no point at " << x;
  return 0;
}

TEST(RSquaredOf, OneForAPerfectModelZeroForTheMean) {
  const XY pts = {{1, 2}, {2, 4}, {3, 6}};
  EXPECT_DOUBLE_EQ(r_squared_of(pts, [](double x) { return 2 * x; }), 1);
  // The mean (4) as the model: residuals equal the total: R² 0.
  EXPECT_DOUBLE_EQ(r_squared_of(pts, [](double) { return 4.0; }), 0);
  // Off by 1 everywhere: 1 - 3 / 8 = 0.625 (total: 4 + 0 + 4 = 8).
  EXPECT_DOUBLE_EQ(r_squared_of(pts, [](double x) { return 2 * x + 1; }), 0.625);
  EXPECT_DOUBLE_EQ(r_squared_of({{1, 1}}, [](double) { return 1.0; }), 0);
}

TEST(CalibrationPlots, ACalibratedProfileDrawsItsSamplesAgainstItsFits) {
  const HardwareProfile p = profile("tests/data/profile_cpu_quick.yaml");
  ASSERT_EQ(calibration_models(p, nullptr), (std::vector<std::string>{"host-thread"}));
  const CalibrationPlots c = calibration_plots(p, nullptr, "host-thread");
  EXPECT_TRUE(c.has_samples);
  // GEMM: f32's curve is tf32's, f16's and bf16's too (the CPU computes
  // them in f32): one line; f64 its own.
  const PlotSeries* f32 = find(c.gemm, "f32 = tf32 = f16 = bf16");
  ASSERT_NE(f32, nullptr);
  EXPECT_NE(find(c.gemm, "f64"), nullptr);
  const PlotSeries* f32m = find(c.gemm, "f32 measured");
  ASSERT_NE(f32m, nullptr);
  ASSERT_EQ(f32m->xy.size(), 4u);
  // The curve has points: the line passes through every sample (no
  // half-performance term), R² 1.
  for (const auto& [flops, eff] : f32m->xy) EXPECT_NEAR(at(*f32, flops), eff, 1e-12) << flops;
  bool gemm_fit = false;
  for (const FitQuality& f : c.fits)
    if (f.name == "gemm.f32") {
      gemm_fit = true;
      EXPECT_NEAR(f.r_squared, 1, 1e-9);
    }
  EXPECT_TRUE(gemm_fit);
  // Memory: bytes / (launch + bytes / (41.87 GB/s x 0.9215)) at 1 MiB.
  const PlotSeries* mem = find(c.memory, "model: ");
  ASSERT_NE(mem, nullptr);
  const double b = 1048576;
  EXPECT_NEAR(at(*mem, b),
              b / (3.3835000067483635e-07 + b / (41872694152.2362 * 0.9214842867448425)),
              1e-6 * at(*mem, b));
  EXPECT_EQ(find(c.memory, "measured")->xy.size(), 3u);
  // Transfers over shm: α + bytes / B of the profile's shm entry.
  const PlotSeries* shm = find(c.transfers, "shm: ");
  ASSERT_NE(shm, nullptr);
  EXPECT_NEAR(at(*shm, 65536), 65536 / (9.663014080083478e-08 + 65536 / 29854782004.57004),
              1e-6 * at(*shm, 65536));
  EXPECT_EQ(find(c.transfers, "shm measured")->xy.size(), 3u);
  // R² of calibrate's own fits, by name.
  ASSERT_FALSE(c.fits.empty());
  bool memory_fit = false;
  for (const FitQuality& f : c.fits) memory_fit |= f.name == "memory" && f.r_squared > 0.99;
  EXPECT_TRUE(memory_fit);
}

// The collectives' line is the judges' prediction: at each measured size it
// is the model_seconds calibrate stored, as bus bandwidth (nccl-tests:
// busBw = M / T x 2(n-1)/n for AllReduce, ...).
TEST(CalibrationPlots, TheCollectivesLineIsWhatCalibrateSaidTheJudgesPredict) {
  const HardwareProfile p = profile("tests/data/profile_cpu_quick.yaml");
  const CalibrationPlots c = calibration_plots(p, nullptr, "host-thread");
  int checked = 0;
  for (const auto& s : p.calibration.collectives) {
    if (!(s.model_seconds > 0)) continue;
    const std::string kind(collective_kind_name(s.kind));
    const PlotSeries* line = nullptr;
    for (const PlotSeries& x : c.collectives.series)
      if (!x.measured && x.name == kind) line = &x;
    ASSERT_NE(line, nullptr) << kind;
    const double bus = s.bytes / s.model_seconds * cost::bus_bandwidth_factor(s.kind, s.ranks);
    EXPECT_NEAR(at(*line, s.bytes), bus, 1e-9 * bus) << kind << " " << s.bytes;
    ++checked;
  }
  EXPECT_EQ(checked, 12);
}

TEST(CalibrationPlots, AProfileWithoutSamplesShowsItsFitsAndSaysSo) {
  const HardwareProfile p = profile("scenarios/profiles/h200_measured.yaml");
  const CalibrationPlots c = calibration_plots(p, nullptr, "NVIDIA H200");
  EXPECT_FALSE(c.has_samples);
  ASSERT_FALSE(c.gemm.notes.empty());
  EXPECT_EQ(c.gemm.notes.front(), "no samples in this profile: the fits alone");
  EXPECT_FALSE(c.gemm.has_samples());
  // Five measured curves, each its own line.
  int lines = 0;
  for (const PlotSeries& s : c.gemm.series) lines += s.measured ? 0 : 1;
  EXPECT_EQ(lines, 5);
  EXPECT_NE(find(c.gemm, "bf16"), nullptr);
  ASSERT_EQ(c.gemm.notes.size(), 2u);
  EXPECT_NE(c.gemm.notes[1].find(", bf16 760 TFLOP/s"), std::string::npos) << c.gemm.notes[1];
  EXPECT_FALSE(c.memory.empty());
  // One GPU: no link measured.
  EXPECT_TRUE(c.transfers.empty());
  bool said = false;
  for (const std::string& n : c.transfers.notes) said |= n.rfind("no link measured", 0) == 0;
  EXPECT_TRUE(said);
}

// The norms' and activations' own rates, a line each beside the plain
// stream's: the A100 preset's measured LayerNorm (0.858) and GeLU (0.787)
// forward kernels; their backward, unmeasured, no line. At 1 GiB: bytes /
// (launch + bytes / (2039 GB/s x efficiency)). A calibrated CPU profile
// (calibrate sets forward and backward alike) draws the forward lines only.
TEST(CalibrationPlots, NormsAndActivationsDrawTheirOwnRates) {
  const HardwareProfile h = HardwareProfile::defaults();
  auto topo = make_preset("dgx-a100");
  ASSERT_TRUE(topo.is_ok()) << topo.message();
  const CalibrationPlots c = calibration_plots(h, &*topo, "NVIDIA A100-SXM4-80GB");
  const PlotSeries* norm = find(c.memory, "norm model x ");
  const PlotSeries* act = find(c.memory, "activation model x ");
  ASSERT_NE(norm, nullptr);
  ASSERT_NE(act, nullptr);
  EXPECT_NE(norm->name.find("x 0.858"), std::string::npos) << norm->name;
  // Each its own colour, apart from the plain stream's (group 0).
  EXPECT_NE(norm->group, 0);
  EXPECT_NE(act->group, 0);
  EXPECT_NE(norm->group, act->group);
  EXPECT_EQ(find(c.memory, "norm backward model x "), nullptr);
  EXPECT_EQ(find(c.memory, "activation backward model x "), nullptr);
  const double launch = 5.278783798217772e-6;
  for (const auto& [b, rate] : act->xy)
    EXPECT_NEAR(rate, b / (launch + b / (2039e9 * 0.787)), 1e-9 * rate) << b;
  for (const auto& [b, rate] : norm->xy)
    EXPECT_NEAR(rate, b / (launch + b / (2039e9 * 0.858)), 1e-9 * rate) << b;
  // Calibrate's samples of them, as points in their lines' colours.
  HardwareProfile cal = h;
  cal.calibration.memory = {{1048576, 1e-5}};
  cal.calibration.norm = {{1048576, 2e-5}, {4194304, 8e-5}};
  cal.calibration.activation = {{1048576, 4e-5}};
  const CalibrationPlots e = calibration_plots(cal, &*topo, "NVIDIA A100-SXM4-80GB");
  const PlotSeries* nm = find(e.memory, "norm measured");
  const PlotSeries* am = find(e.memory, "activation measured");
  ASSERT_NE(nm, nullptr);
  ASSERT_NE(am, nullptr);
  EXPECT_TRUE(nm->measured);
  EXPECT_EQ(nm->group, find(e.memory, "norm model x ")->group);
  EXPECT_EQ(am->group, find(e.memory, "activation model x ")->group);
  ASSERT_EQ(nm->xy.size(), 2u);
  EXPECT_DOUBLE_EQ(nm->xy[1].second, 4194304 / 8e-5);
  EXPECT_DOUBLE_EQ(am->xy[0].second, 1048576 / 4e-5);
  // The A100's SwiGLU takes its GeLU's rate: no gated line of its own.
  EXPECT_EQ(find(c.memory, "gated activation model x "), nullptr);
  // The H100 has no measurement of either; its SwiGLU's forward and
  // backward (Megatron-LM's, 0.565 and 0.190) each a line of a colour of
  // its own, at 3,350 GB/s.
  auto h100 = make_preset("dgx-h100");
  ASSERT_TRUE(h100.is_ok());
  const CalibrationPlots d = calibration_plots(h, &*h100, h100->device(0).model);
  EXPECT_EQ(find(d.memory, "norm model x "), nullptr);
  EXPECT_EQ(find(d.memory, "activation model x "), nullptr);
  const PlotSeries* gf = find(d.memory, "gated activation model x ");
  const PlotSeries* gb = find(d.memory, "gated activation backward model x ");
  ASSERT_NE(gf, nullptr);
  ASSERT_NE(gb, nullptr);
  EXPECT_NE(gf->name.find("x 0.565"), std::string::npos) << gf->name;
  EXPECT_NE(gf->group, gb->group);
  for (const PlotSeries* g : {gf, gb}) {
    EXPECT_NE(g->group, 0);
    EXPECT_NE(g->group, norm->group);
    EXPECT_NE(g->group, act->group);
  }
  for (const auto& [b, rate] : gb->xy)
    EXPECT_NEAR(rate, b / (launch + b / (3350e9 * 0.190)), 1e-9 * rate) << b;
  // Calibrate's SwiGLU samples, as points in its forward line's colour.
  HardwareProfile hc = h;
  hc.calibration.memory = {{1048576, 1e-5}};
  hc.calibration.gated = {{1048576, 5e-5}};
  const CalibrationPlots f = calibration_plots(hc, &*h100, h100->device(0).model);
  const PlotSeries* gm = find(f.memory, "gated activation measured");
  ASSERT_NE(gm, nullptr);
  EXPECT_TRUE(gm->measured);
  EXPECT_EQ(gm->group, find(f.memory, "gated activation model x ")->group);
  ASSERT_EQ(gm->xy.size(), 1u);
  EXPECT_DOUBLE_EQ(gm->xy[0].second, 1048576 / 5e-5);
}

TEST(CalibrationPlots, AScenarioDrawsItsProfileOnItsOwnTopology) {
  auto s = load_scenario(kSrc + "/scenarios/gpt3_175b_1024.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  const std::vector<std::string> models = calibration_models(s->profile, &s->topology);
  ASSERT_EQ(models, (std::vector<std::string>{"NVIDIA A100-SXM4-80GB"}));
  const CalibrationPlots c = calibration_plots(s->profile, &s->topology, models[0]);
  EXPECT_FALSE(c.has_samples);
  // Transfers: NVLink inside node 0, InfiniBand to node 1.
  ASSERT_EQ(c.transfers.series.size(), 2u);
  EXPECT_EQ(c.transfers.series[0].group, static_cast<int>(LinkClass::kNvlink));
  EXPECT_EQ(c.transfers.series[1].group, static_cast<int>(LinkClass::kInfiniband));
  // Collectives: 6 kinds on node 0's 8 GPUs, 6 on 8 nodes (dashed).
  ASSERT_EQ(c.collectives.series.size(), 12u);
  EXPECT_FALSE(c.collectives.series[0].dashed);
  EXPECT_TRUE(c.collectives.series[6].dashed);
  // A large ring AllReduce's bus bandwidth approaches the ring's link
  // bandwidth (nccl-tests doc/PERFORMANCE.md: busBw is comparable to the
  // hardware's peak): within 10% of it at 1 GiB inside the node.
  const PlotSeries& ar = c.collectives.series[0];
  EXPECT_EQ(ar.name, "allreduce");
  bool said = false;
  for (const std::string& n : c.collectives.notes)
    said |= n == "ring algorithm; solid: 8 ranks in node 0; dashed: 8 nodes, one rank each";
  EXPECT_TRUE(said);
  const double link =
      route_bandwidth_bytes_per_second(s->topology.route(0, 1), s->topology, s->profile);
  EXPECT_GT(ar.xy.back().second, 0.9 * link);
  EXPECT_LE(ar.xy.back().second, link * (1 + 1e-9));
}

}  // namespace
}  // namespace brigade::gui
