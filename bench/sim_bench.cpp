// Simulator speed (docs/PERFORMANCE.md has the figures and the commands).
//
//   build/default/bench/sim_bench --benchmark_filter=Dag
//   build/default/bench/sim_bench --benchmark_filter=Ring1024
//   /usr/bin/time -v build/default/bench/sim_bench --benchmark_filter=Gpt3Standin/shortcuts
//   /usr/bin/time -v build/default/bench/sim_bench --benchmark_filter=Gpt3Standin/exact
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <random>
#include <string>

#include <benchmark/benchmark.h>

#include "bench/gpt3_standin.hpp"
#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/topology.hpp"
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

// GPT-3 175B stand-in on 1024 GPUs (TP8 PP16 DP8, 1F1B, micro-batch 1,
// global batch 1536): built once per process, simulated with shortcuts
// (arg 0) or in exact mode (arg 1).
void BM_Gpt3Standin(benchmark::State& state) {
  const bool exact = state.range(0) == 1;
  auto topo = make_preset("dgx-a100", 128);
  const HardwareProfile h = HardwareProfile::defaults();
  const double rss0 = proc_status_bytes("VmRSS");
  const auto t0 = std::chrono::steady_clock::now();
  Gpt3Shape shape;
  // For profiling at a smaller scale: BRIGADE_GPT3_DP=1 simulates one replica.
  if (const char* dp = std::getenv("BRIGADE_GPT3_DP")) shape.dp = std::atoi(dp);
  const Program p = build_gpt3_standin(shape);
  const auto t1 = std::chrono::steady_clock::now();
  const double rss_program = proc_status_bytes("VmRSS") - rss0;
  SimOptions o;
  o.exact = exact;
  o.record_task_times = false;
  SimResult last;
  for (auto _ : state) {
    auto r = simulate(p, *topo, h, o);
    if (!r.is_ok()) {
      state.SkipWithError(r.message().c_str());
      break;
    }
    last = std::move(r).value();
  }
  state.counters["tasks"] = p.num_tasks();
  state.counters["collectives"] = static_cast<double>(p.collectives().size());
  state.counters["build_s"] = std::chrono::duration<double>(t1 - t0).count();
  state.counters["program_rss_GiB"] = rss_program / 1073741824.0;
  state.counters["peak_rss_GiB"] = proc_status_bytes("VmHWM") / 1073741824.0;
  state.counters["events"] = static_cast<double>(last.events);
  state.counters["flows"] = static_cast<double>(last.flows);
  state.counters["shortcut"] = static_cast<double>(last.collectives_shortcut);
  state.counters["sim_step_s"] = last.step_seconds;
  state.counters["setup_cpu_s"] = last.setup_cpu_seconds;
  state.counters["loop_cpu_s"] = last.run_cpu_seconds;
  state.SetLabel(exact ? "exact" : "shortcuts");
}
BENCHMARK(BM_Gpt3Standin)->Arg(0)->Name("Gpt3Standin/shortcuts")->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Gpt3Standin)->Arg(1)->Name("Gpt3Standin/exact")->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
}  // namespace brigade::sim

BENCHMARK_MAIN();
