// Simulator speed (docs/PERFORMANCE.md has the figures and the commands).
//
//   build/default/bench/sim_bench --benchmark_filter=Dag
//   build/default/bench/sim_bench --benchmark_filter=Ring1024
//   build/default/bench/sim_bench --benchmark_filter='Scenario/gpt3_175b$'
//   build/default/bench/sim_bench --benchmark_filter=Scenario
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/scenario.hpp"
#include "core/topology.hpp"
#include "planner/lower.hpp"
#include "sim/scenario_options.hpp"
#include "sim/simulator.hpp"

namespace brigade::sim {
namespace {

// Resident and peak resident memory of this process, bytes (Linux).
double proc_status_bytes(const char* key) {
  std::ifstream f("/proc/self/status");
  std::string line;
  const std::string k = std::string(key) + ":";
  while (std::getline(f, line))
    if (line.rfind(k, 0) == 0) return std::stod(line.substr(k.size())) * 1024.0;
  return 0;
}

// Synthetic DAGs of compute kernels over `devices` devices x 2 streams;
// kernels of 64 sizes, so that almost every event has its own time.
//   layered (planner-like): in each step every stream issues one kernel that
//     waits on up to two kernels of other streams from the step before;
//   random (adversarial layout): each task goes to a random stream and waits
//     on up to two recent tasks, so consecutive TaskIds share nothing.
Program synthetic_dag(int tasks, int devices, bool layered, std::uint32_t seed) {
  std::mt19937 rng(seed);
  ProgramBuilder b(layered ? "dag-layered" : "dag-random", devices);
  std::vector<StreamId> streams;
  for (int d = 0; d < devices; ++d) {
    streams.push_back(b.stream(d, "compute"));
    streams.push_back(b.stream(d, "side"));
  }
  const int ns = static_cast<int>(streams.size());
  std::uniform_int_distribution<int> pick_stream(0, ns - 1);
  // 64 kernel sizes, as a model's layers repeat a few shapes.
  std::uniform_int_distribution<int> size(1, 64);
  auto flops = [&](std::mt19937& g) { return 2e9 * size(g); };
  std::uniform_int_distribution<int> ndeps(0, 2);
  const int window = 4 * ns;
  for (int t = 0; t < tasks; ++t) {
    const int stream = layered ? t % ns : pick_stream(rng);
    const TaskId id = b.add_fixed(streams[static_cast<size_t>(stream)], flops(rng), 1e6, DType::kBF16, "k");
    const int k = t >= window ? ndeps(rng) : 0;
    for (int i = 0; i < k; ++i) {
      if (layered) {
        // A task of another stream in the previous step.
        std::uniform_int_distribution<int> other(1, ns - 1);
        b.depend(id, id - ns + (stream + other(rng)) % ns - stream);
      } else {
        std::uniform_int_distribution<int> back(1, window);
        b.depend(id, id - back(rng));
      }
    }
  }
  auto p = std::move(b).build();
  if (!p.is_ok()) std::abort();
  return std::move(p).value();
}

const Program& cached_dag(int tasks, bool layered) {
  static std::map<std::pair<int, bool>, Program> cache;
  auto it = cache.find({tasks, layered});
  if (it == cache.end()) it = cache.emplace(std::make_pair(tasks, layered), synthetic_dag(tasks, 64, layered, 42)).first;
  return it->second;
}

void BM_Dag(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const bool layered = state.range(1) == 1;
  static auto topo = make_preset("dgx-a100", 8);
  const HardwareProfile h = HardwareProfile::defaults();
  const Program& p = cached_dag(n, layered);
  SimOptions o;
  o.record_task_times = false;
  std::int64_t events = 0;
  double run_s = 0, setup_s = 0;
  for (auto _ : state) {
    auto r = simulate(p, *topo, h, o);
    if (!r.is_ok()) state.SkipWithError(r.message().c_str());
    events = r->events;
    run_s += r->run_cpu_seconds;
    setup_s += r->setup_cpu_seconds;
    benchmark::DoNotOptimize(r->step_seconds);
  }
  state.counters["setup_cpu_ms"] = 1e3 * setup_s / static_cast<double>(state.iterations());
  state.counters["loop_cpu_ms"] = 1e3 * run_s / static_cast<double>(state.iterations());
  state.counters["loop_events_per_cpu_s"] = static_cast<double>(events) * static_cast<double>(state.iterations()) / run_s;
  state.counters["tasks"] = n;
  state.counters["events"] = static_cast<double>(events);
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
  state.SetLabel(layered ? "layered" : "random");
}
BENCHMARK(BM_Dag)
    ->MeasureProcessCPUTime()
    ->Args({1 << 20, 1})
    ->Args({1 << 22, 1})
    ->Args({1 << 20, 0})
    ->Args({1 << 22, 0})
    ->Unit(benchmark::kMillisecond);

// One 1 MiB ring AllReduce over 1024 GPUs (128 DGX A100 nodes), fully
// expanded: 2046 steps of 1024 flows.
void BM_Ring1024(benchmark::State& state) {
  const auto net = state.range(0) == 0 ? NetworkModel::kIdeal : NetworkModel::kFlow;
  auto topo = make_preset("dgx-a100", 128);
  const HardwareProfile h = HardwareProfile::defaults();
  ProgramBuilder b("ring1024", 1024);
  std::vector<std::int32_t> group;
  std::vector<StreamId> streams;
  for (int d = 0; d < 1024; ++d) {
    group.push_back(d);
    streams.push_back(b.stream(d, "comm"));
  }
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, group, 1048576.0, streams, "ar");
  auto p = std::move(b).build();
  SimOptions o;
  o.network = net;
  o.exact = true;
  // Routes are computed by the topology on first use and cached there; warm
  // them outside the timing (they are the topology's, not the simulator's).
  for (int d = 0; d < 1024; ++d) (void)topo->route(d, (d + 1) % 1024);
  std::int64_t flows = 0, events = 0;
  double step = 0;
  for (auto _ : state) {
    auto r = simulate(*p, *topo, h, o);
    if (!r.is_ok()) state.SkipWithError(r.message().c_str());
    flows = r->flows;
    events = r->events;
    step = r->step_seconds;
  }
  state.counters["flows"] = static_cast<double>(flows);
  state.counters["events"] = static_cast<double>(events);
  state.counters["sim_step_us"] = step * 1e6;
  state.SetLabel(std::string(network_model_name(net)));
}
BENCHMARK(BM_Ring1024)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// Real scenarios, as `brigade simulate SCENARIO` runs them: load, lower
// (planner::lower), simulate, free. Counters split the work: lowering and
// simulation wall time, the process's user and system CPU time for each
// (system time is page faults, mostly: expensive on the development VM), the
// simulator's own setup and loop CPU time (all its runs: SimResult::runs),
// tasks, events, flows, and the
// process's peak RSS during the iteration (VmHWM, reset before it).
struct ScenarioCase {
  const char* file;
  bool exact;
  planner::Granularity granularity;
  int ring_max_steps = 0;  // SimOptions::ring_max_steps (0: every step, as brigade simulate)
  double host_op_seconds = -1;  // >= 0: SimOptions::host_op_seconds (the host lane); < 0: the scenario's
};
const ScenarioCase kScenarioCases[] = {
    {"scenarios/gpt3_175b_1024.yaml", false, planner::Granularity::kAuto},
    {"scenarios/gpt3_175b_1024.yaml", true, planner::Granularity::kAuto},
    {"scenarios/gpt3_175b_1024.yaml", false, planner::Granularity::kRegion},
    {"scenarios/llm_13b_128gpu.yaml", false, planner::Granularity::kAuto},
    {"scenarios/llm_13b_128gpu.yaml", true, planner::Granularity::kAuto},
    {"scenarios/llama3_70b_64gpu.yaml", false, planner::Granularity::kAuto},
    {"scenarios/deepseek_v3_shaped_2048gpu.yaml", false, planner::Granularity::kAuto},
    {"scenarios/mixtral_8x7b_16gpu.yaml", false, planner::Granularity::kAuto},
    // Issue 21's speed goal: <= 10 s and <= 8 GiB at the default granularity.
    {"scenarios/llama3_405b_16384gpu.yaml", false, planner::Granularity::kAuto},
    // The same with the data-parallel rings (128 ranks over 128 nodes) run as
    // 16 super-steps each (search --judge sim's coarse rings).
    {"scenarios/llama3_405b_16384gpu.yaml", false, planner::Granularity::kAuto, 16},
    // The first case with a 20 us host per operation (docs/simulator.md, "The host lane").
    {"scenarios/gpt3_175b_1024.yaml", false, planner::Granularity::kAuto, 0, 20e-6},
};

struct CpuTimes {
  double user = 0, sys = 0;
};
CpuTimes process_cpu() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  auto sec = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return {sec(u.ru_utime), sec(u.ru_stime)};
}

// Resets VmHWM to the current RSS (Linux >= 4.0; ignored elsewhere).
void reset_peak_rss() {
  std::ofstream f("/proc/self/clear_refs");
  f << "5";
}

void BM_Scenario(benchmark::State& state) {
  const ScenarioCase& c = kScenarioCases[state.range(0)];
  auto scenario = load_scenario(std::string(BRIGADE_SOURCE_DIR) + "/" + c.file);
  if (!scenario.is_ok()) {
    state.SkipWithError(scenario.message().c_str());
    return;
  }
  planner::LowerOptions lo;
  lo.granularity = c.granularity;
  SimOptions o = options_for(*scenario);  // as brigade simulate runs it
  if (c.host_op_seconds >= 0) o.host_op_seconds = c.host_op_seconds;
  o.exact = c.exact;
  o.ring_max_steps = c.ring_max_steps;
  using Clock = std::chrono::steady_clock;
  auto secs = [](Clock::duration d) { return std::chrono::duration<double>(d).count(); };
  double lower_s = 0, sim_s = 0, free_s = 0, lower_user = 0, lower_sys = 0, sim_user = 0, sim_sys = 0,
         setup_cpu = 0, loop_cpu = 0, peak = 0;
  std::int64_t tasks = 0, events = 0, flows = 0, shortcut = 0, runs = 0;
  double step = 0;
  for (auto _ : state) {
    reset_peak_rss();
    const auto t0 = Clock::now();
    const CpuTimes c0 = process_cpu();
    auto plan = planner::lower(*scenario, lo);
    const auto t1 = Clock::now();
    const CpuTimes c1 = process_cpu();
    if (!plan.is_ok()) {
      state.SkipWithError(plan.message().c_str());
      return;
    }
    auto r = simulate(plan->program, scenario->topology, scenario->profile, o);
    const auto t2 = Clock::now();
    const CpuTimes c2 = process_cpu();
    if (!r.is_ok()) {
      state.SkipWithError(r.message().c_str());
      return;
    }
    tasks = plan->program.num_tasks();
    events = r->events;
    flows = r->flows;
    shortcut = r->collectives_shortcut;
    runs = r->runs;
    step = r->step_seconds;
    setup_cpu += r->setup_cpu_seconds;
    loop_cpu += r->run_cpu_seconds;
    peak = std::max(peak, proc_status_bytes("VmHWM"));
    plan = Status::error("freed");
    r = Status::error("freed");
    const auto t3 = Clock::now();
    lower_s += secs(t1 - t0);
    sim_s += secs(t2 - t1);
    free_s += secs(t3 - t2);
    lower_user += c1.user - c0.user;
    lower_sys += c1.sys - c0.sys;
    sim_user += c2.user - c1.user;
    sim_sys += c2.sys - c1.sys;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["lower_s"] = lower_s / n;
  state.counters["lower_user_s"] = lower_user / n;
  state.counters["lower_sys_s"] = lower_sys / n;
  state.counters["sim_s"] = sim_s / n;
  state.counters["sim_user_s"] = sim_user / n;
  state.counters["sim_sys_s"] = sim_sys / n;
  state.counters["setup_cpu_s"] = setup_cpu / n;
  state.counters["loop_cpu_s"] = loop_cpu / n;
  state.counters["free_s"] = free_s / n;
  state.counters["tasks"] = static_cast<double>(tasks);
  state.counters["events"] = static_cast<double>(events);
  state.counters["flows"] = static_cast<double>(flows);
  state.counters["shortcut"] = static_cast<double>(shortcut);
  state.counters["runs"] = static_cast<double>(runs);  // SimResult::runs (the checked shortcut)
  state.counters["sim_step_s"] = step;
  state.counters["peak_rss_GiB"] = peak / 1073741824.0;
  std::string label = std::string(c.file).substr(10);
  label = label.substr(0, label.size() - 5);
  label += c.exact ? " exact" : " shortcuts";
  if (c.granularity != planner::Granularity::kAuto)
    label += " " + std::string(planner::granularity_name(c.granularity));
  state.SetLabel(label);
}
BENCHMARK(BM_Scenario)->Name("Scenario/gpt3_175b")->Arg(0)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Scenario)->Name("Scenario/gpt3_175b_exact")->Arg(1)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Scenario)->Name("Scenario/gpt3_175b_region")->Arg(2)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Scenario)->Name("Scenario/llm_13b")->Arg(3)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Scenario)->Name("Scenario/llm_13b_exact")->Arg(4)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Scenario)->Name("Scenario/llama3_70b")->Arg(5)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Scenario)->Name("Scenario/deepseek_v3_shaped_2048")->Arg(6)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Scenario)->Name("Scenario/mixtral_8x7b")->Arg(7)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Scenario)->Name("Scenario/llama3_405b_16384")->Arg(8)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Scenario)->Name("Scenario/llama3_405b_16384_coarse16")->Arg(9)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Scenario)->Name("Scenario/gpt3_175b_host20us")->Arg(10)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
}  // namespace brigade::sim

BENCHMARK_MAIN();
