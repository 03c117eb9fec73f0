// Traces at scale (docs/PERFORMANCE.md, "Traces at scale", has the figures
// and the commands): the bundled 13B and GPT-3 175B scenarios simulated with
// a trace, the trace written as Chrome JSON and as gzip, and read back.
//
//   build/default/bench/trace_bench
//   build/default/bench/trace_bench --benchmark_filter=llm_13b
#include <fstream>
#include <memory>
#include <sstream>
#include <streambuf>
#include <string>

#include <benchmark/benchmark.h>

#include "bench/bench_util.hpp"

#include "core/scenario.hpp"
#include "core/trace.hpp"
#include "planner/lower.hpp"
#include "sim/scenario_options.hpp"
#include "sim/simulator.hpp"

namespace brigade {
namespace {

using bench::peak_rss_bytes;

// Counts what is written and keeps nothing.
class CountingBuf final : public std::streambuf {
 public:
  std::size_t bytes = 0;

 protected:
  int_type overflow(int_type ch) override {
    if (!traits_type::eq_int_type(ch, traits_type::eof())) ++bytes;
    return traits_type::not_eof(ch);
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    bytes += static_cast<std::size_t>(n);
    return n;
  }
};

struct Case {
  const char* file;
};
const Case kCases[] = {{"scenarios/llm_13b_128gpu.yaml"}, {"scenarios/gpt3_175b_1024.yaml"}};

// Lowered once per process, by case.
const planner::Plan& plan_of(int c, const Scenario*& scenario) {
  static std::unique_ptr<Scenario> scenarios[2];
  static std::unique_ptr<planner::Plan> plans[2];
  if (!plans[c]) {
    auto s = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/" + kCases[c].file);
    if (!s.is_ok()) std::abort();
    scenarios[c] = std::make_unique<Scenario>(std::move(s).value());
    auto p = planner::lower(*scenarios[c]);
    if (!p.is_ok()) std::abort();
    plans[c] = std::make_unique<planner::Plan>(std::move(p).value());
  }
  scenario = scenarios[c].get();
  return *plans[c];
}

// `steps`: SimOptions::trace_steps (a transfer per message); else the CLI's
// default (back-to-back messages merged).
Trace simulate_traced(int c, bool steps, benchmark::State& state) {
  const Scenario* s = nullptr;
  const planner::Plan& plan = plan_of(c, s);
  sim::SimOptions o = sim::options_for(*s);
  o.record_trace = true;
  o.trace_steps = steps;
  o.record_task_times = false;
  auto r = sim::simulate(plan.program, s->topology, s->profile, o);
  if (!r.is_ok()) {
    state.SkipWithError(r.message().c_str());
    return {};
  }
  return std::move(r->trace);
}

// The simulation with its trace recorded (shortcuts on).
void BM_SimulateTraced(benchmark::State& state) {
  const int c = static_cast<int>(state.range(0));
  Trace t;
  for (auto _ : state) {
    t = simulate_traced(c, state.range(1) != 0, state);
    benchmark::DoNotOptimize(t.spans.data());
  }
  state.counters["spans"] = static_cast<double>(t.spans.size());
  state.counters["transfers"] = static_cast<double>(t.transfers.size());
  state.counters["trace_MB"] = static_cast<double>(t.spans.capacity() * sizeof(TraceSpan) +
                                                   t.transfers.capacity() * sizeof(TraceTransfer) +
                                                   t.memory.capacity() * sizeof(MemorySample)) /
                               1e6;
  state.counters["peak_RSS_MB"] = peak_rss_bytes() / 1e6;
}

// The Chrome JSON writer alone (plain or gzip), into a stream that keeps nothing.
void BM_WriteChromeTrace(benchmark::State& state) {
  const int c = static_cast<int>(state.range(0));
  const bool gzip = state.range(1) != 0;
  const Trace t = simulate_traced(c, state.range(2) != 0, state);
  std::size_t bytes = 0;
  for (auto _ : state) {
    CountingBuf sink;
    std::ostream out(&sink);
    const Status st = gzip ? write_chrome_trace_gzip(t, out) : write_chrome_trace(t, out);
    if (!st.is_ok()) state.SkipWithError(st.message().c_str());
    bytes = sink.bytes;
  }
  state.counters["file_MB"] = static_cast<double>(bytes) / 1e6;
  state.counters["peak_RSS_MB"] = peak_rss_bytes() / 1e6;
}

// Reading the gzip file back (from memory).
void BM_ReadChromeTrace(benchmark::State& state) {
  const int c = static_cast<int>(state.range(0));
  std::string gz;
  {
    const Trace t = simulate_traced(c, false, state);
    std::ostringstream os;
    if (!write_chrome_trace_gzip(t, os).is_ok()) state.SkipWithError("write failed");
    gz = os.str();
  }
  std::size_t spans = 0;
  for (auto _ : state) {
    std::istringstream in(gz);
    auto back = read_chrome_trace(in, "bench.json.gz");
    if (!back.is_ok())
      state.SkipWithError(back.message().c_str());
    else
      spans = back->spans.size();
  }
  state.counters["spans"] = static_cast<double>(spans);
  state.counters["peak_RSS_MB"] = peak_rss_bytes() / 1e6;
}

}  // namespace

#define BRIGADE_TRACE_BENCH(fn, name, ...) \
  BENCHMARK(fn)                            \
      ->Name(name)                         \
      ->Args({__VA_ARGS__})                \
      ->Iterations(1)                      \
      ->Unit(benchmark::kSecond)           \
      ->UseRealTime()
// Simulate (case, steps); write (case, gzip, steps); read (case).
BRIGADE_TRACE_BENCH(BM_SimulateTraced, "SimulateTraced/llm_13b", 0, 0);
BRIGADE_TRACE_BENCH(BM_WriteChromeTrace, "WriteJson/llm_13b", 0, 0, 0);
BRIGADE_TRACE_BENCH(BM_WriteChromeTrace, "WriteGzip/llm_13b", 0, 1, 0);
BRIGADE_TRACE_BENCH(BM_ReadChromeTrace, "ReadGzip/llm_13b", 0);
BRIGADE_TRACE_BENCH(BM_SimulateTraced, "SimulateTraced/llm_13b_steps", 0, 1);
BRIGADE_TRACE_BENCH(BM_WriteChromeTrace, "WriteGzip/llm_13b_steps", 0, 1, 1);
BRIGADE_TRACE_BENCH(BM_SimulateTraced, "SimulateTraced/gpt3_175b", 1, 0);
BRIGADE_TRACE_BENCH(BM_WriteChromeTrace, "WriteGzip/gpt3_175b", 1, 1, 0);

}  // namespace brigade

BENCHMARK_MAIN();
