#include "planner/sweep.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "costmodel/plan.hpp"

#include "tests/planner/scenario_fixtures.hpp"

namespace brigade::planner {
namespace {

// A judge whose step time follows Amdahl's law with p = 0.9 in the data
// degree: T(N) = 0.1 + 0.9/N seconds (T(1) = 1 s).
Result<SweepJudgement> amdahl_judge(const Scenario& s) {
  const double n = s.strategy.data;
  SweepJudgement j;
  j.step_seconds = 0.1 + 0.9 / n;
  return j;
}

// A judge of step time alone.
Result<SweepJudgement> step(double seconds) {
  SweepJudgement j;
  j.step_seconds = seconds;
  return j;
}

TEST(Sweep, DevicesScaleTheDataDegree) {
  Scenario base = testing::small_gpt(2, 1, 1, 16, 1);
  auto v = sweep_variant(base, "devices", "8");
  ASSERT_TRUE(v.is_ok()) << v.message();
  EXPECT_EQ(v->strategy.data, 4);
  EXPECT_EQ(v->strategy.tensor, 2);
  // 64 devices need 8 DGX nodes: the topology grows by whole nodes.
  auto big = sweep_variant(base, "devices", "64");
  ASSERT_TRUE(big.is_ok()) << big.message();
  EXPECT_EQ(big->topology.num_devices(), 64);
  EXPECT_EQ(big->topology.device(63).node, 7);
  auto bad = sweep_variant(base, "devices", "3");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.message(), "--devices: 3 devices are not a multiple of tensor x pipeline = 2");
}

TEST(Sweep, SetKeysAndTheirErrors) {
  Scenario base = testing::small_gpt(1, 2, 1, 8, 1);
  auto g = sweep_variant(base, "strategy.schedule", "gpipe");
  ASSERT_TRUE(g.is_ok());
  EXPECT_EQ(g->strategy.schedule, PipelineSchedule::kGpipe);
  auto z = sweep_variant(base, "zero", "4");
  ASSERT_FALSE(z.is_ok());
  EXPECT_EQ(z.message(), "--set zero: found '4'; expected 0, 1, 2 or 3");
  auto t = sweep_variant(base, "tensor", "two");
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.message(), "--set tensor: found 'two'; expected a positive integer");
  // simulation.host_op_time (the host lane): a duration, not a strategy key.
  auto h = sweep_variant(base, "host_op_time", "25us");
  ASSERT_TRUE(h.is_ok()) << h.message();
  ASSERT_TRUE(h->simulation.host_op_seconds.has_value());
  EXPECT_DOUBLE_EQ(*h->simulation.host_op_seconds, 25e-6);
  EXPECT_EQ(h->strategy.data, base.strategy.data);
  auto h2 = sweep_variant(base, "simulation.host_op_time", "0.001");
  ASSERT_TRUE(h2.is_ok()) << h2.message();
  EXPECT_DOUBLE_EQ(*h2->simulation.host_op_seconds, 1e-3);
  for (const char* bad : {"-3us", "fast", "25GB"}) {
    auto e = sweep_variant(base, "host_op_time", bad);
    ASSERT_FALSE(e.is_ok()) << bad;
    EXPECT_EQ(e.message(), std::string("--set host_op_time: found '") + bad +
                               "'; expected a duration >= 0 such as 25us");
  }
  // simulation.devices_per_host: a positive integer.
  auto n = sweep_variant(base, "devices_per_host", "8");
  ASSERT_TRUE(n.is_ok()) << n.message();
  EXPECT_EQ(n->simulation.devices_per_host, 8);
  auto n0 = sweep_variant(base, "simulation.devices_per_host", "0");
  ASSERT_FALSE(n0.is_ok());
  EXPECT_EQ(n0.message(),
            "--set simulation.devices_per_host: found '0'; expected a positive integer");
  auto k = sweep_variant(base, "tensr", "2");
  ASSERT_FALSE(k.is_ok());
  EXPECT_EQ(k.message().rfind("--set: found key 'tensr'; expected one of data, tensor,", 0), 0u);
  EXPECT_NE(k.message().find("(did you mean 'tensor'?)"), std::string::npos);
  auto b = sweep_variant(base, "bucket_bytes", "50MB");
  ASSERT_TRUE(b.is_ok());
  EXPECT_DOUBLE_EQ(b->strategy.bucket_bytes, 50e6);
}

TEST(Sweep, SpeedupEfficiencyAndWhereItStopsPaying) {
  Scenario base = testing::small_gpt(1, 1, 1, 64, 1);
  SweepSpec spec;
  spec.values = {"1", "2", "4", "8"};
  int calls = 0;
  auto r = run_sweep(base, spec, "fake", amdahl_judge, [&](int done, int total, const SweepPoint&) {
    ++calls;
    EXPECT_EQ(total, 4);
    EXPECT_EQ(done, calls);
  });
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_EQ(r->points.size(), 4u);
  // S(4) = 1 / (0.1 + 0.9/4) = 1/0.325 = 3.0769...; efficiency S/4.
  EXPECT_NEAR(r->points[2].speedup, 1 / 0.325, 1e-12);
  EXPECT_NEAR(r->points[2].efficiency, 1 / 0.325 / 4, 1e-12);
  EXPECT_FALSE(r->stops_paying_after.has_value());  // always faster under Amdahl
  EXPECT_EQ(calls, 4);
  // The points lie on Amdahl's law with p = 0.9, so the fit finds it.
  ASSERT_TRUE(r->amdahl_p.has_value());
  EXPECT_NEAR(*r->amdahl_p, 0.9, 1e-9);
  EXPECT_NEAR(*r->r_squared, 1.0, 1e-9);
  // Doubling gains under 10% past N > p(1-g)/(2g(1-p)) = 0.9*0.9/(0.2*0.1) = 40.5.
  ASSERT_TRUE(r->doubling_limit.has_value());
  EXPECT_NEAR(*r->doubling_limit, 40.5, 1e-9);
  // A judge that gets slower past 4 devices (communication grows with N).
  auto slow = run_sweep(base, spec, "fake", [](const Scenario& s) -> Result<SweepJudgement> {
    const double n = s.strategy.data;
    return step(0.1 + 0.9 / n + 0.05 * n);
  });
  ASSERT_TRUE(slow.is_ok());
  // T: 1.05, 0.65, 0.525, 0.6125: 8 devices are slower than 4.
  ASSERT_TRUE(slow->stops_paying_after.has_value());
  EXPECT_EQ(*slow->stops_paying_after, 4);
}

TEST(Sweep, APointThatCannotBeJudgedKeepsItsError) {
  Scenario base = testing::small_gpt(1, 1, 1, 64, 1);
  SweepSpec spec;
  spec.values = {"1", "2"};
  auto r = run_sweep(base, spec, "fake", [](const Scenario& s) -> Result<SweepJudgement> {
    if (s.strategy.data == 2) return Status::error("no room");
    SweepJudgement j;
    j.step_seconds = 1.0;
    j.peak_memory_bytes = 3e9;
    j.capacity_bytes = 80e9;
    return j;
  });
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r->points[1].error, "no room");
  // One judged point: no device count to set an efficiency against.
  EXPECT_EQ(sweep_csv(*r),
            "value,devices,step_seconds,speedup,efficiency,peak_memory_bytes,fits,error\n"
            "1,1,1,1,,3000000000,true,\n"
            "2,2,0,0,0,0,true,\"no room\"\n");
  const nlohmann::json j = sweep_json(*r);
  EXPECT_EQ(j["points"][1]["error"], "no room");
  EXPECT_EQ(j["points"][0]["speedup"], 1.0);
}

TEST(Sweep, BadValuesAreRejectedBeforeJudging) {
  Scenario base = testing::small_gpt(1, 1, 1, 64, 1);
  SweepSpec spec;
  spec.values = {"1", "x"};
  int calls = 0;
  auto r = run_sweep(base, spec, "fake", [&](const Scenario&) -> Result<SweepJudgement> {
    ++calls;
    return step(1.0);
  });
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), "--devices: found 'x'; expected a positive integer");
  EXPECT_EQ(calls, 0);
}

// Issue 16, item 4: a grid of two keys at the topology's device count, data
// filled in; every table has a memory column; no efficiency at a fixed
// device count, the step relative to the first point instead.
TEST(Sweep, GridAtFixedDevicesFillsInDataAndGivesMemory) {
  Scenario base = testing::small_gpt(1, 1, 8, 64, 1);  // 8 devices
  SweepSpec spec;
  spec.key = "tensor";
  spec.values = {"1", "2", "4", "8"};
  spec.more = {{"pipeline", {"1", "2", "4"}}};
  spec.fixed_devices = true;
  std::vector<std::pair<int, int>> seen;
  auto r = run_sweep(base, spec, "fake", [&](const Scenario& s) -> Result<SweepJudgement> {
    EXPECT_EQ(s.topology.num_devices(), 8);
    EXPECT_EQ(s.strategy.tensor * s.strategy.pipeline * s.strategy.data, 8);
    seen.push_back({s.strategy.tensor, s.strategy.pipeline});
    SweepJudgement j;
    j.step_seconds = 1.0 + s.strategy.pipeline;
    j.peak_memory_bytes = 10e9 * s.strategy.data;
    j.capacity_bytes = 40e9;
    j.fits = j.peak_memory_bytes <= j.capacity_bytes;
    return j;
  });
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_EQ(r->points.size(), 12u);
  // tensor 8 x pipeline 2 or 4 does not divide 8 devices: those points keep an error.
  EXPECT_EQ(r->points[10].values, (std::vector<std::string>{"8", "2"}));
  EXPECT_EQ(r->points[10].error, "8 devices are not a multiple of tensor x pipeline = 16");
  EXPECT_EQ(seen.size(), 9u);
  EXPECT_EQ(r->points[0].data, 8);
  EXPECT_DOUBLE_EQ(r->points[1].relative_step, 3.0 / 2.0);  // pipeline 2: 3 s against 2 s
  EXPECT_EQ(r->points[1].efficiency, 0.0);
  EXPECT_FALSE(r->points[0].fits);  // data 8: 80 GB of 40
  const std::string text = sweep_text(*r);
  EXPECT_EQ(text.find("efficiency"), std::string::npos);
  EXPECT_NE(text.find("vs first"), std::string::npos);
  EXPECT_NE(text.find("74.5 GiB (over 37.3 GiB)"), std::string::npos) << text;  // 80e9 B of 40e9
  EXPECT_NE(text.find("Fastest that fits: tensor,pipeline = 2,1 (data 4), 2.00 s."), std::string::npos) << text;
  EXPECT_EQ(sweep_csv(*r).substr(0, sweep_csv(*r).find('\n')),
            "tensor,pipeline,data,devices,step_seconds,relative_step,peak_memory_bytes,fits,error");
  const nlohmann::json j = sweep_json(*r);
  EXPECT_EQ(j["keys"], nlohmann::json({"tensor", "pipeline"}));
  EXPECT_TRUE(j["fixed_devices"].get<bool>());
  EXPECT_FALSE(j["points"][0].contains("efficiency"));
  // --fixed-devices with the data key or --devices is refused before judging.
  SweepSpec bad = spec;
  bad.more = {{"data", {"1", "2"}}};
  auto rb = run_sweep(base, bad, "fake", amdahl_judge);
  ASSERT_FALSE(rb.is_ok());
  EXPECT_EQ(rb.message(),
            "--set data: found with --fixed-devices; expected keys other than devices and data (the device "
            "count is the topology's, data fills it in)");
}

// Points are made and judged one at a time: every variant shares the base's
// routes, and no variant outlives its judgement.
TEST(Sweep, VariantsShareTheBaseTopologysRoutes) {
  Scenario base = testing::small_gpt(1, 1, 8, 64, 1);
  SweepSpec spec;
  spec.key = "zero";
  spec.values = {"0", "1", "2", "3"};
  int shared = 0;
  auto r = run_sweep(base, spec, "fake", [&](const Scenario& s) -> Result<SweepJudgement> {
    shared += s.topology.shares_routes_with(base.topology);
    return step(1.0);
  });
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(shared, 4);
}

}  // namespace
}  // namespace brigade::planner

namespace brigade::planner {
namespace {

// Issue 18 item 12: at a fixed device count (a sweep over micro_batch, say)
// "efficiency" read 104.9-108.3%: efficiency only means something against a
// device count. At a fixed count the sweep gives each point's step relative
// to the first instead, and no efficiency.
TEST(Sweep, AtAFixedDeviceCountThereIsNoEfficiency) {
  Scenario base = testing::small_gpt(1, 1, 8, 64, 1);
  SweepSpec spec;
  spec.key = "micro_batch";
  spec.values = {"1", "2", "4"};
  auto r = run_sweep(base, spec, "fake", [](const Scenario& s) -> Result<SweepJudgement> {
    return step(1.0 / (1.0 + 0.05 * static_cast<double>(s.training.micro_batch)));  // faster with bigger
  });
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_FALSE(r->devices_vary);
  // T(1) = 1/1.05, T(4) = 1/1.2: relative step T(4)/T(1) = 1.05/1.2 = 0.875.
  EXPECT_NEAR(r->points[2].relative_step, 1.05 / 1.2, 1e-12);
  const std::string text = sweep_text(*r);
  EXPECT_EQ(text.find("efficiency"), std::string::npos) << text;
  EXPECT_EQ(text.find('%'), std::string::npos) << text;
  EXPECT_NE(text.find("vs first"), std::string::npos) << text;
  EXPECT_NE(text.find("0.875"), std::string::npos) << text;
  const nlohmann::json j = sweep_json(*r);
  EXPECT_TRUE(j["points"][2]["efficiency"].is_null());
  EXPECT_NEAR(j["points"][2]["relative_step"].get<double>(), 0.875, 1e-12);
  EXPECT_EQ(sweep_csv(*r).find("104"), std::string::npos);
  // Over devices the efficiency stays.
  SweepSpec devices;
  devices.values = {"1", "2"};
  auto d = run_sweep(testing::small_gpt(1, 1, 1, 64, 1), devices, "fake", amdahl_judge);
  ASSERT_TRUE(d.is_ok());
  EXPECT_TRUE(d->devices_vary);
  EXPECT_NE(sweep_text(*d).find("efficiency"), std::string::npos);
}

// Issue 18 item 7: a sweep over a lone collective fitted p = -1.0038 with
// R^2 = 1.0000 and said nothing: a collective has no work that divides over
// devices (each rank moves M bytes whatever N; the ring's time grows as
// (N-1)/N), so Amdahl's law does not apply and the sweep says so.
TEST(Sweep, ALoneCollectiveHasNoAmdahlFit) {
  Scenario base;
  base.name = "allreduce";
  base.topology = testing::dgx_devices(8);
  base.model_kind = ModelKind::kCollective;
  base.collective.bytes = 1073741824.0;
  SweepSpec spec;
  spec.values = {"2", "4", "8"};
  auto r = run_sweep(base, spec, "fake", [](const Scenario& s) -> Result<SweepJudgement> {
    const double n = static_cast<double>(s.collective.group.size());
    return step((n - 1) / n);  // the ring's bandwidth term
  });
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_FALSE(r->amdahl_p.has_value());
  EXPECT_NE(r->amdahl_note.find("no work that divides over the devices"), std::string::npos)
      << r->amdahl_note;
  EXPECT_NE(sweep_text(*r).find(r->amdahl_note), std::string::npos);
  // A plan that only gets slower with devices fits p < 0: outside Amdahl's law, said so.
  Scenario gpt = testing::small_gpt(1, 1, 1, 64, 1);
  auto slower = run_sweep(gpt, spec, "fake", [](const Scenario& s) -> Result<SweepJudgement> {
    return step(1.0 + 0.1 * s.strategy.data);
  });
  ASSERT_TRUE(slower.is_ok());
  ASSERT_TRUE(slower->amdahl_p.has_value());
  EXPECT_LT(*slower->amdahl_p, 0);
  EXPECT_NE(slower->amdahl_note.find("not a parallel fraction"), std::string::npos)
      << slower->amdahl_note;
}

// Issue 18 item 7: `cost`'s "Amdahl through this plan" said 4.00x at 4
// devices where `sweep` measured 3.19x: it extrapolated p from the compute
// share. It is now the sweep itself: the closed form at the data degrees 1,
// 2, 4, ... up to twice the plan's, and p fitted to those speedups.
TEST(Sweep, AmdahlThroughThePlanIsTheSweep) {
  auto sc = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/scenarios/pmap_linear.yaml");
  ASSERT_TRUE(sc.is_ok()) << sc.message();
  const SweepJudge judge = [](const Scenario& s) -> Result<SweepJudgement> {
    auto e = cost::estimate_plan(s);
    if (!e.is_ok()) return e.status();
    return step(e->step_seconds);
  };
  auto through = amdahl_through_plan(*sc, judge);
  ASSERT_TRUE(through.is_ok()) << through.message();
  SweepSpec spec;
  spec.values = {"1", "2", "4", "8"};
  auto swept = run_sweep(*sc, spec, "cost", judge);
  ASSERT_TRUE(swept.is_ok());
  ASSERT_EQ(through->points.size(), swept->points.size());
  for (size_t i = 0; i < swept->points.size(); ++i) {
    EXPECT_EQ(through->points[i].devices, swept->points[i].devices);
    EXPECT_DOUBLE_EQ(through->points[i].speedup, swept->points[i].speedup);
  }
  ASSERT_TRUE(through->amdahl_p.has_value());
  EXPECT_DOUBLE_EQ(*through->amdahl_p, *swept->amdahl_p);
  // 8 rows of 16 floats: launch-bound, far from 4x at 4 devices.
  EXPECT_LT(through->points[2].speedup, 2.0);
}

}  // namespace
}  // namespace brigade::planner
