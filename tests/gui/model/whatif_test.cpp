// The what-if panel's logic (gui/model/whatif.hpp): edits applied to a
// scenario, the judges' one-line reasons, deltas against the starting plan,
// and the simulator's request queue (the latest wins, earlier ones cancelled).
#include "gui/model/whatif.hpp"

#include <unistd.h>
#include <chrono>

#include <cmath>
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "core/plan_check.hpp"
#include "costmodel/plan.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

Scenario scenario(const std::string& name) {
  auto s = load_scenario(kSrc + "/scenarios/" + name + ".yaml");
  EXPECT_TRUE(s.is_ok()) << s.message();
  return std::move(s).value();
}

Scenario edited(const Scenario& base, const WhatIfEdits& e) {
  auto s = apply_edits(base, e);
  EXPECT_TRUE(s.is_ok()) << s.message();
  return s.is_ok() ? std::move(s).value() : base;
}

TEST(WhatIfEdits, StartingEditsGiveTheStartingPlanBack) {
  for (const char* name : {"pmap_train_step", "llm_13b_128gpu", "ring_allreduce_8"}) {
    const Scenario base = scenario(name);
    const Scenario same = edited(base, starting_edits(base));
    auto a = judge_closed_form(base);
    auto b = judge_closed_form(same);
    ASSERT_TRUE(a.is_ok() && b.is_ok()) << name;
    EXPECT_EQ(a->step_seconds, b->step_seconds) << name;
    const WhatIfDelta d = compare_judgements(*a, *b);
    ASSERT_FALSE(d.rows.empty());
    for (const DeviceDeltaRow& r : d.rows) {
      EXPECT_EQ(r.peak_before_bytes, r.peak_after_bytes) << name;
      EXPECT_EQ(r.exposed_before_seconds, r.exposed_after_seconds) << name;
    }
  }
}

TEST(WhatIfEdits, ALinkClassAlphaMovesARingAllReduceByItsAlphaTerms) {
  // ring_allreduce_8: one ring AllReduce over the 8 GPUs of a DGX A100, all
  // behind NVSwitch, so NVLink is the one class. The ring's closed form is
  // 2(N-1)α + (N-1)/N·M(β_r + β) (Patarasuk & Yuan 2009) plus the call's
  // overhead: raising α by 10 us with the bandwidth kept adds
  // 2 x (8 - 1) x 10 us = 140 us to the step, and nothing else. The DGX
  // A100's profile times it with NCCL's model (core/nccl_table.hpp), whose
  // ring latency is baseLat + 2(N-1) x hwLat per NVLink step: the edit adds
  // its 10 us to hwLat, so the same 140 us (and NCCL keeps its choice).
  const Scenario base = scenario("ring_allreduce_8");
  const std::vector<LinkClassKnob> knobs = link_class_knobs(base);
  ASSERT_EQ(knobs.size(), 1u);
  EXPECT_EQ(knobs[0].link_class, LinkClass::kNvlink);
  WhatIfEdits e = starting_edits(base);
  LinkClassKnob k = knobs[0];
  k.alpha_seconds += 10e-6;
  e.links[k.link_class] = k;
  auto before = judge_closed_form(base);
  auto after = judge_closed_form(edited(base, e));
  ASSERT_TRUE(before.is_ok() && after.is_ok());
  EXPECT_NEAR(after->step_seconds - before->step_seconds, 140e-6, 1e-12);

  // Doubling the bandwidth instead halves the bandwidth term
  // (N-1)/N·M(β_r + β), which is most of a 1 GiB AllReduce: the step falls
  // to (α terms + half the β terms) < 0.6 of it, and the α terms stay.
  WhatIfEdits e2 = starting_edits(base);
  LinkClassKnob k2 = knobs[0];
  k2.bandwidth_bytes_per_second *= 2;
  e2.links[k2.link_class] = k2;
  auto faster = judge_closed_form(edited(base, e2));
  ASSERT_TRUE(faster.is_ok());
  EXPECT_LT(faster->step_seconds, before->step_seconds * 0.6);
  EXPECT_GT(faster->step_seconds, before->step_seconds * 0.5);
}

TEST(WhatIfEdits, AStragglerSlowsTheClosedFormAndTheSimulator) {
  const Scenario base = scenario("llm_13b_128gpu");
  WhatIfEdits e = starting_edits(base);
  e.speed[5] = 0.5;
  const Scenario slow = edited(base, e);
  EXPECT_EQ(slow.simulation.speed.at(5), 0.5);
  auto before = judge_closed_form(base);
  auto after = judge_closed_form(slow);
  ASSERT_TRUE(before.is_ok() && after.is_ok());
  // Every replica waits for the slowest at the gradient AllReduce: the step
  // grows by about the busiest device's compute (its kernels take twice as
  // long), checked against the closed form's own compute figure. Not all
  // of it: of that figure, what the collectives' NCCL kernels take from the
  // kernels beside them (docs/costmodel.md, "NCCL's kernels take SMs": here
  // 1.6% of it) is set by the collectives' time, which does not double.
  auto est = cost::estimate_plan(base);
  ASSERT_TRUE(est.is_ok());
  EXPECT_GE(after->step_seconds, before->step_seconds + est->compute_seconds * 0.97);
  EXPECT_LT(after->step_seconds, before->step_seconds + est->compute_seconds * 1.05);
}

// The host's time per operation (simulation.host_op_time), on pmap_train_step
// (an MLP's data-parallel step, the op-graph judge): a 1 ns host stays ahead
// of every kernel (the step moves by the first issue at most), a 10 ms one
// sets the pace: the step grows by more than one operation's host time.
TEST(WhatIfEdits, AHostTimePerOperationSlowsAPlanOnlyOnceItSetsThePace) {
  const Scenario base = scenario("pmap_train_step");
  auto before = judge_closed_form(base);
  ASSERT_TRUE(before.is_ok()) << before.message();
  WhatIfEdits quick = starting_edits(base);
  quick.host_op_seconds = 1e-9;
  const Scenario q = edited(base, quick);
  ASSERT_TRUE(q.simulation.host_op_seconds.has_value());
  auto ahead = judge_closed_form(q);
  ASSERT_TRUE(ahead.is_ok()) << ahead.message();
  EXPECT_NEAR(ahead->step_seconds, before->step_seconds, 1e-6 * before->step_seconds + 1e-8);
  WhatIfEdits slow = starting_edits(base);
  slow.host_op_seconds = 0.01;
  auto behind = judge_closed_form(edited(base, slow));
  ASSERT_TRUE(behind.is_ok()) << behind.message();
  // Every one of its operations takes the host 10 ms: far more than the step was.
  EXPECT_GT(behind->step_seconds, before->step_seconds + 0.01);
  // starting_edits keeps the scenario's own value.
  EXPECT_EQ(starting_edits(q).host_op_seconds, q.simulation.host_op_seconds);
}

struct BadEdit {
  const char* what;
  std::function<void(WhatIfEdits&)> edit;
  const char* message;
};

class WhatIfBadEdits : public ::testing::TestWithParam<BadEdit> {};

TEST_P(WhatIfBadEdits, OneLineSayingWhatWasFoundAndWhatWouldDo) {
  const Scenario base = scenario("llm_13b_128gpu");
  WhatIfEdits e = starting_edits(base);
  GetParam().edit(e);
  auto s = apply_edits(base, e);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.message(), GetParam().message);
  EXPECT_EQ(s.status().kind(), ErrorKind::kBadInput);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, WhatIfBadEdits,
    ::testing::Values(
        BadEdit{"data", [](WhatIfEdits& e) { e.strategy.data = 0; },
                "strategy.data: found 0; expected a whole number >= 1"},
        BadEdit{"speed", [](WhatIfEdits& e) { e.speed[3] = 0; },
                "speed of device 3: found 0; expected a factor from 1e-06 to 1e+06"},
        BadEdit{"device", [](WhatIfEdits& e) { e.speed[128] = 0.5; },
                "speed of device 128: found device 128; expected a device from 0 to 127"},
        BadEdit{"alpha",
                [](WhatIfEdits& e) {
                  e.links[LinkClass::kNvlink] = {LinkClass::kNvlink, -1e-6, 300e9};
                },
                "nvlink alpha: found -1e-06 s; expected a duration from 0 to 1e6 s"},
        BadEdit{"bucket", [](WhatIfEdits& e) { e.strategy.bucket_bytes = 0; },
                "strategy.bucket: found 0 B; expected a size from 1 B to 1 EiB"},
        BadEdit{"host", [](WhatIfEdits& e) { e.host_op_seconds = -1.0; },
                "host time per operation: found -1 s; expected a duration from 0 to 1 s"},
        BadEdit{"devices_per_host", [](WhatIfEdits& e) { e.devices_per_host = 0; },
                "devices per host: found 0; expected a whole number from 1 to 128"}),
    [](const auto& row) { return std::string(row.param.what); });

TEST(WhatIfReasons, AnImpossiblePlanGetsTheCliReasonWithoutItsPosition) {
  // 16 x 8 x 1 = 128 devices; data 15 leaves 8 of them out. check_plan's
  // message (what `brigade cost` prints after FILE:LINE:COL: error:).
  const Scenario base = scenario("llm_13b_128gpu");
  WhatIfEdits e = starting_edits(base);
  e.strategy.data = 15;
  const Scenario s = edited(base, e);
  auto j = judge_closed_form(s);
  ASSERT_FALSE(j.is_ok());
  const Status cli = check_plan(s);
  ASSERT_FALSE(cli.is_ok());
  EXPECT_EQ(reason_of(j.status()), reason_of(cli));
  EXPECT_EQ(cli.message().rfind(kSrc + "/scenarios/llm_13b_128gpu.yaml:", 0), 0u) << cli.message();
  EXPECT_EQ(reason_of(cli).find("error"), std::string::npos) << reason_of(cli);
  EXPECT_EQ(reason_of(Status::error("x.yaml: error: found a; expected b")), "found a; expected b");
  EXPECT_EQ(reason_of(Status::error("no position")), "no position");
}

TEST(WhatIfDeltas, EqualDevicesShareARowLargestChangeFirst) {
  // Before: devices 0-1 peak 10 B, exposed 1 s; devices 2-3 peak 20 B,
  // exposed 2 s. After: all four 10 B and 1 s. Devices 2-3 change by half
  // (|20 - 10| / 20), 0-1 not at all: 2-3 first.
  Judgement before, after;
  before.step_seconds = 4;
  after.step_seconds = 3;
  for (int d = 0; d < 4; ++d) {
    const double big = d >= 2 ? 2 : 1;
    before.devices.push_back({d, 10 * big, 80, big});
    after.devices.push_back({d, 10, 80, 1});
  }
  const WhatIfDelta delta = compare_judgements(before, after);
  EXPECT_EQ(delta.step_before_seconds, 4);
  EXPECT_EQ(delta.step_after_seconds, 3);
  EXPECT_EQ(delta.peak_before_bytes, 20);
  EXPECT_EQ(delta.peak_after_bytes, 10);
  EXPECT_EQ(delta.exposed_before_seconds, 2);
  EXPECT_EQ(delta.exposed_after_seconds, 1);
  ASSERT_EQ(delta.rows.size(), 2u);
  EXPECT_EQ(delta.rows[0].devices, (std::vector<int>{2, 3}));
  EXPECT_EQ(delta.rows[0].peak_before_bytes, 20);
  EXPECT_EQ(delta.rows[0].peak_after_bytes, 10);
  EXPECT_EQ(delta.rows[0].capacity_bytes, 80);
  EXPECT_EQ(delta.rows[1].devices, (std::vector<int>{0, 1}));
  // A device only one plan uses: zeros on the other side.
  after.devices.push_back({4, 5, 80, 0.5});
  const WhatIfDelta more = compare_judgements(before, after);
  ASSERT_EQ(more.rows.size(), 3u);
  EXPECT_EQ(more.rows[0].devices, (std::vector<int>{4}));  // 0 -> 5 B: the whole of it
  EXPECT_EQ(more.rows[0].peak_before_bytes, 0);
}

TEST(WhatIfDeltas, RelativeChangeAndDeviceRanges) {
  EXPECT_DOUBLE_EQ(relative_change(2, 3), 0.5);    // 3 / 2 - 1
  EXPECT_DOUBLE_EQ(relative_change(4, 1), -0.75);  // 1 / 4 - 1
  EXPECT_EQ(relative_change(0, 0), 0);
  EXPECT_TRUE(std::isinf(relative_change(0, 1)));
  EXPECT_EQ(device_ranges_text({8, 0, 1, 2, 3, 10, 11}), "0-3, 8, 10-11");
  EXPECT_EQ(device_ranges_text({5}), "5");
  EXPECT_EQ(device_ranges_text({}), "");
}

TEST(WhatIfJudges, TheSimulatorJudgesTheEditedPlanAndStopsWhenCancelled) {
  const Scenario base = scenario("pmap_train_step");
  auto start = judge_simulated(base, nullptr);
  ASSERT_TRUE(start.is_ok()) << start.message();
  ASSERT_EQ(start->devices.size(), 4u);
  WhatIfEdits e = starting_edits(base);
  e.speed[2] = 0.25;
  auto slow = judge_simulated(edited(base, e), nullptr);
  ASSERT_TRUE(slow.is_ok()) << slow.message();
  EXPECT_GT(slow->step_seconds, start->step_seconds);
  std::atomic<bool> cancel{true};
  auto stopped = judge_simulated(base, &cancel);
  ASSERT_FALSE(stopped.is_ok());
  EXPECT_EQ(stopped.status().kind(), ErrorKind::kCancelled);
  // An impossible plan: the CLI's reason (data 3 on 4 devices).
  e = starting_edits(base);
  e.strategy.data = 3;
  auto bad = judge_simulated(edited(base, e), nullptr);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(reason_of(bad.status()), reason_of(check_plan(edited(base, e))));
}

// ---- the request queue ---------------------------------------------------------

// A request named "block" runs until it is cancelled; any other returns its
// name as the step time at once.
Result<Judgement> fake_work(const Scenario& s, const std::atomic<bool>* cancel) {
  if (s.name == "block") {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (!cancel->load() && std::chrono::steady_clock::now() < until)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return cancelled_status();
  }
  Judgement j;
  j.step_seconds = std::stod(s.name);
  return j;
}

Scenario named(const std::string& name) {
  Scenario s;
  s.name = name;
  return s;
}

bool wait_for(const std::function<bool()>& condition) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (!condition() && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return condition();
}

struct Delivered {
  std::mutex mutex;
  std::vector<std::pair<std::uint64_t, double>> results;
  void add(std::uint64_t id, const Result<Judgement>& r) {
    std::lock_guard<std::mutex> lock(mutex);
    results.emplace_back(id, r.is_ok() ? r->step_seconds : -1);
  }
};

TEST(LatestRequestRunner, TheLatestRequestWinsAndTheRunningOneIsCancelled) {
  Delivered got;
  LatestRequestRunner runner(fake_work,
                             [&](std::uint64_t id, Result<Judgement> r) { got.add(id, r); });
  const std::uint64_t first = runner.submit(named("block"));
  ASSERT_TRUE(wait_for([&] { return runner.started() == 1; }));
  runner.submit(named("block"));  // waits, then is replaced before it starts or cancelled
  const std::uint64_t last = runner.submit(named("7"));
  EXPECT_EQ(first, 1u);
  EXPECT_EQ(last, 3u);
  EXPECT_EQ(runner.latest(), 3u);
  ASSERT_TRUE(wait_for([&] { return runner.idle(); }));
  std::lock_guard<std::mutex> lock(got.mutex);
  ASSERT_EQ(got.results.size(), 1u);
  EXPECT_EQ(got.results[0], (std::pair<std::uint64_t, double>{3, 7.0}));
  EXPECT_GE(runner.cancelled(), 1);  // the first; the second if it had started
  EXPECT_EQ(runner.cancelled(), runner.started() - 1);
}

TEST(LatestRequestRunner, CancelDeliversNothingUntilTheNextRequest) {
  Delivered got;
  LatestRequestRunner runner(fake_work,
                             [&](std::uint64_t id, Result<Judgement> r) { got.add(id, r); });
  runner.submit(named("block"));
  ASSERT_TRUE(wait_for([&] { return runner.started() == 1; }));
  runner.cancel();
  ASSERT_TRUE(wait_for([&] { return runner.idle(); }));
  EXPECT_EQ(runner.cancelled(), 1);
  {
    std::lock_guard<std::mutex> lock(got.mutex);
    EXPECT_TRUE(got.results.empty());
  }
  runner.submit(named("2.5"));
  ASSERT_TRUE(wait_for([&] { return runner.idle(); }));
  std::lock_guard<std::mutex> lock(got.mutex);
  ASSERT_EQ(got.results.size(), 1u);
  EXPECT_EQ(got.results[0], (std::pair<std::uint64_t, double>{2, 2.5}));
}

TEST(LatestRequestRunner, DestroyingItCancelsTheRunningRequest) {
  std::atomic<int> delivered{0};
  auto runner = std::make_unique<LatestRequestRunner>(
      fake_work, [&](std::uint64_t, Result<Judgement>) { ++delivered; });
  runner->submit(named("block"));
  ASSERT_TRUE(wait_for([&] { return runner->started() == 1; }));
  runner.reset();  // returns: the blocked request saw its flag
  EXPECT_EQ(delivered.load(), 0);
}

}  // namespace
}  // namespace brigade::gui

namespace brigade::gui {
namespace {

// Saved, the edited plan reads back as the plan the panel judged: the
// closed form of the file equals the closed form of the edit, links and
// straggler included (the link edit travels in a profile beside it).
TEST(WhatIfSave, TheSavedScenarioJudgesAsTheEditedPlan) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("brigade_whatif_save_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const Scenario base = scenario("llm_13b_128gpu");
  WhatIfEdits e = starting_edits(base);
  e.strategy.data = 8;
  e.strategy.pipeline = 2;
  e.strategy.zero = 2;
  e.micro_batch = 2;
  e.speed[3] = 0.75;
  LinkClassKnob ib = link_class_knobs(base).back();
  ASSERT_EQ(ib.link_class, LinkClass::kInfiniband);
  ib.bandwidth_bytes_per_second /= 2;
  ib.alpha_seconds *= 3;
  e.links[ib.link_class] = ib;
  const Scenario s = edited(base, e);
  auto want = judge_closed_form(s);
  ASSERT_TRUE(want.is_ok()) << want.message();

  const std::string path = (dir / "what-if.yaml").string();
  ASSERT_TRUE(save_whatif_scenario(s, true, path).is_ok());
  EXPECT_TRUE(fs::is_regular_file(dir / "what-if.profile.yaml"));
  auto back = load_scenario(path);
  ASSERT_TRUE(back.is_ok()) << back.message();
  EXPECT_EQ(back->name, "what-if");
  auto got = judge_closed_form(*back);
  ASSERT_TRUE(got.is_ok()) << got.message();
  EXPECT_DOUBLE_EQ(got->step_seconds, want->step_seconds);
  EXPECT_DOUBLE_EQ(got->max_peak_memory_bytes(), want->max_peak_memory_bytes());
  // A second save without link edits names the first file's profile from
  // a sub-folder, relative to it.
  fs::create_directories(dir / "sub");
  const std::string again = (dir / "sub" / "again.yaml").string();
  ASSERT_TRUE(save_whatif_scenario(*back, false, again).is_ok());
  EXPECT_FALSE(fs::exists(dir / "sub" / "again.profile.yaml"));
  auto back2 = load_scenario(again);
  ASSERT_TRUE(back2.is_ok()) << back2.message();
  auto got2 = judge_closed_form(*back2);
  ASSERT_TRUE(got2.is_ok());
  EXPECT_DOUBLE_EQ(got2->step_seconds, want->step_seconds);
  // A folder cannot take it: file_io's message, nothing written.
  const Status st = save_whatif_scenario(s, true, (dir / "sub").string());
  ASSERT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(), (dir / "sub").string() + ": error: found a folder; expected a file path");
  fs::remove_all(dir);
}

// The same for a plan whose attention runs FlashAttention on H100s: the
// saved profile keeps the preset's measured FlashAttention-2 rates (and an
// A100's attention efficiencies), so the file judges as the edit did (it
// once fell back to the roofline, a different step).
TEST(WhatIfSave, ASavedProfileKeepsTheMeasuredAttentionRates) {
  namespace fs = std::filesystem;
  const fs::path dir =
      fs::path(::testing::TempDir()) / ("brigade_whatif_flash_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const Scenario base = scenario("llama3_70b_64gpu");
  WhatIfEdits e = starting_edits(base);
  LinkClassKnob ib = link_class_knobs(base).back();
  ib.bandwidth_bytes_per_second /= 2;
  e.links[ib.link_class] = ib;
  const Scenario s = edited(base, e);
  auto want = judge_closed_form(s);
  ASSERT_TRUE(want.is_ok()) << want.message();
  const std::string path = (dir / "flash.yaml").string();
  ASSERT_TRUE(save_whatif_scenario(s, true, path).is_ok());
  auto back = load_scenario(path);
  ASSERT_TRUE(back.is_ok()) << back.message();
  auto got = judge_closed_form(*back);
  ASSERT_TRUE(got.is_ok()) << got.message();
  EXPECT_DOUBLE_EQ(got->step_seconds, want->step_seconds);
  fs::remove_all(dir);
}

// The what-if panel's simulator runs a scenario as `brigade simulate` does,
// runtime: included (gui/model/loader.hpp, scenario_sim_options): a data
// loader of 1 ms per step holds back everything of the step, which is that
// much longer (it ignored runtime: before, as the scaling view's sweep did).
TEST(WhatIfEdits, TheSimulatorHonoursTheScenariosRuntime) {
  Scenario s = scenario("pmap_train_step");
  auto before = judge_simulated(s, nullptr);
  s.runtime.input_seconds = 1e-3;
  auto after = judge_simulated(s, nullptr);
  ASSERT_TRUE(before.is_ok() && after.is_ok());
  EXPECT_NEAR(after->step_seconds, before->step_seconds + 1e-3, 1e-9);
}

}  // namespace
}  // namespace brigade::gui
