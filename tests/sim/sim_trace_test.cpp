// Traces from the simulator: complete, deterministic to the byte, and a
// Chrome trace Perfetto can open (valid JSON, events sorted, flows paired).
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/trace.hpp"
#include "sim/simulator.hpp"
#include "tests/sim/sim_test_util.hpp"

namespace brigade::sim {
namespace {

using testing::build;
using testing::plain_profile;
using testing::run;
using testing::star;

// Compute, a transfer feeding another device, a collective, memory.
Program small_step() {
  ProgramBuilder b("small", 4);
  std::vector<StreamId> c, x;
  for (int d = 0; d < 4; ++d) {
    c.push_back(b.stream(d, "compute"));
    x.push_back(b.stream(d, "xfer"));
  }
  const BufferId w = b.add_buffer("w0", 0, 4e6, MemoryCategory::kParams, true);
  (void)w;
  const BufferId act = b.add_buffer("act0", 0, 8e6, MemoryCategory::kActivations);
  const TaskId f = b.add_gemm(c[0], 1024, 1024, 1024, DType::kBF16, "fwd \"q\"");
  b.alloc(f, act);
  const TaskId s = b.add_transfer(x[0], 1, 4e6, "send");
  b.depend(s, f);
  const TaskId g = b.add_gemm(c[1], 1024, 1024, 1024, DType::kBF16, "fwd1");
  b.depend(g, s);
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {0, 1, 2, 3}, 16e6, c, "grad-ar");
  const TaskId o = b.add_memory_bound(c[0], 1e8, DType::kF32, "adam", Phase::kOptimizer);
  b.free(o, act);
  return build(std::move(b));
}

std::string chrome(const Trace& t) {
  std::ostringstream os;
  EXPECT_TRUE(write_chrome_trace(t, os).is_ok());
  return os.str();
}

TEST(SimTrace, RecordsEverySpanFlowAndMemoryChange) {
  const Topology t = star(4, 100e9, 2e-6);
  const Program p = small_step();
  const SimResult r = run(p, t, plain_profile(), NetworkModel::kFlow, false, /*trace=*/true);
  EXPECT_EQ(r.trace.source, "sim:flow");
  EXPECT_EQ(r.trace.spans.size(), static_cast<size_t>(p.num_tasks()));
  // One transfer record per flow: the send, and 2(N-1) x N ring steps.
  EXPECT_EQ(r.trace.transfers.size(), 1u + 2 * 3 * 4);
  EXPECT_EQ(static_cast<std::int64_t>(r.trace.transfers.size()), r.flows);
  EXPECT_EQ(r.trace.lanes[static_cast<size_t>(r.trace.transfers[0].lane)], "gpu0->sw");
  EXPECT_DOUBLE_EQ(r.trace.step_seconds(), r.step_seconds);
  // Memory: 4 devices x 6 categories at t = 0 (act0's allocation at 0
  // replaces its category's first sample: one value per instant), then act0's
  // free.
  EXPECT_EQ(r.trace.memory.size(), 4u * kNumMemoryCategories + 1);
}

TEST(SimTrace, SameProgramTwiceGivesByteIdenticalChromeTraces) {
  const Topology t = star(4, 100e9, 2e-6);
  const Program p = small_step();
  for (auto net : {NetworkModel::kIdeal, NetworkModel::kFlow}) {
    const std::string a = chrome(run(p, t, plain_profile(), net, false, true).trace);
    const std::string b = chrome(run(p, t, plain_profile(), net, false, true).trace);
    EXPECT_EQ(a, b);
    EXPECT_GT(a.size(), 1000u);
  }
}

TEST(SimTrace, ChromeTraceIsValidSortedAndFlowsArePaired) {
  const Topology t = star(4, 100e9, 2e-6);
  const Program p = small_step();
  const SimResult r = run(p, t, plain_profile(), NetworkModel::kFlow, false, true);
  const auto j = nlohmann::json::parse(chrome(r.trace));
  ASSERT_TRUE(j.contains("traceEvents"));
  double last = -1;
  bool past_metadata = false;
  std::map<std::int64_t, int> s_ids, f_ids;
  std::set<std::int64_t> async_ids;
  int x_events = 0, counters = 0, begins = 0, ends = 0;
  for (const auto& e : j["traceEvents"]) {
    const std::string ph = e["ph"];
    if (ph == "M") {
      EXPECT_FALSE(past_metadata) << "metadata after timed events";
      continue;
    }
    past_metadata = true;
    const double ts = e["ts"];
    EXPECT_GE(ts, last);
    last = ts;
    if (ph == "X") ++x_events;
    if (ph == "C") ++counters;
    if (ph == "b") {
      ++begins;
      EXPECT_TRUE(async_ids.insert(e["id"].get<std::int64_t>()).second);
    }
    if (ph == "e") ++ends;
    if (ph == "s") ++s_ids[e["id"].get<std::int64_t>()];
    if (ph == "f") {
      ++f_ids[e["id"].get<std::int64_t>()];
      EXPECT_EQ(e["bp"], "e");
    }
  }
  EXPECT_EQ(x_events, p.num_tasks());
  EXPECT_EQ(begins, static_cast<int>(r.trace.transfers.size()));
  EXPECT_EQ(ends, begins);
  EXPECT_EQ(counters, static_cast<int>(r.trace.memory.size()));
  // Arrows: the p2p send's (it lands on fwd1), and one per (sender,
  // receiver) pair of the ring (its 24 steps join 4 pairs of rank spans);
  // each id once as "s" and once as "f".
  EXPECT_EQ(s_ids.size(), 1u + 4u);
  EXPECT_EQ(s_ids.size(), f_ids.size());
  for (const auto& [id, n] : s_ids) {
    EXPECT_EQ(n, 1);
    EXPECT_EQ(f_ids[id], 1);
    EXPECT_EQ(async_ids.count(id), 0u) << "flow ids are distinct from transfer ids";
  }
}

TEST(SimTrace, RoundTripsThroughChromeJson) {
  const Topology t = star(4, 100e9, 2e-6);
  const SimResult r = run(small_step(), t, plain_profile(), NetworkModel::kFlow, false, true);
  std::istringstream in(chrome(r.trace));
  auto back = read_chrome_trace(in, "mem.json");
  ASSERT_TRUE(back.is_ok()) << back.message();
  // Writing what was read gives the same bytes: nothing was lost.
  EXPECT_EQ(chrome(*back), chrome(r.trace));
  ASSERT_EQ(back->spans.size(), r.trace.spans.size());
  for (size_t i = 0; i < r.trace.spans.size(); ++i) {
    EXPECT_EQ(back->spans[i].start_seconds, r.trace.spans[i].start_seconds);
    EXPECT_EQ(back->spans[i].end_seconds, r.trace.spans[i].end_seconds);
    EXPECT_EQ(back->spans[i].task, r.trace.spans[i].task);
  }
}

TEST(SimExecutor, RunsBehindTheExecutorInterface) {
  const Topology t = star(4, 100e9, 2e-6);
  const Program p = small_step();
  SimOptions o;
  o.network = NetworkModel::kIdeal;
  auto ex = make_sim_executor(o);
  EXPECT_EQ(ex->name(), "sim:ideal");
  RunOptions ro;
  auto tr = ex->run(p, t, plain_profile(), ro);
  ASSERT_TRUE(tr.is_ok()) << tr.message();
  EXPECT_EQ(tr->spans.size(), static_cast<size_t>(p.num_tasks()));
  const SimResult r = run(p, t, plain_profile(), NetworkModel::kIdeal);
  EXPECT_DOUBLE_EQ(tr->step_seconds(), r.step_seconds);
}

}  // namespace
}  // namespace brigade::sim
