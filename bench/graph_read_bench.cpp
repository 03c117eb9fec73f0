// Reading and checking large explicit graphs (issue 20, item 3: reading was
// quadratic in the ops; goal: a 1M-op graph read and checked in <= 5 s).
// docs/PERFORMANCE.md has the figures and the commands.
//
//   build/default/bench/graph_read_bench                          all of them
//   build/default/bench/graph_read_bench --benchmark_filter=Json/1000000
//
// A graph is a chain of relu ops (op i reads t_i and writes t_{i+1}) or a
// "wide" one (every op reads t_0: a million ops ready at once), placed
// round-robin on 4 devices, written as JSON (what a generator writes) or
// YAML, held in memory: what is timed is parse_scenario + check_plan,
// not the disk.
#include <fstream>
#include <string>

#include <benchmark/benchmark.h>

#include "core/plan_check.hpp"
#include "core/scenario.hpp"

namespace brigade {
namespace {

enum Shape { kChain, kWide };

std::string graph_json(int ops, Shape shape) {
  std::string s =
      "{\"topology\": {\"preset\": \"pcie-4gpu\"},\n \"model\": {\"graph\": {\"tensors\": "
      "{\"t0\": [8, 64, \"f32\"]}, \"ops\": [\n";
  for (int i = 0; i < ops; ++i) {
    const int in = shape == kChain ? i : 0;
    s += (i ? ",\n" : "") + std::string("  {\"name\": \"op") + std::to_string(i) +
         "\", \"op\": \"relu\", \"in\": \"t" + std::to_string(in) + "\", \"out\": \"t" +
         std::to_string(i + 1) + "\"}";
  }
  s += "]}},\n \"placement\": {";
  for (int i = 0; i < ops; ++i)
    s += (i ? ", " : "") + std::string("\"op") + std::to_string(i) + "\": " + std::to_string(i % 4);
  return s + "}}\n";
}

std::string graph_yaml(int ops) {
  std::string s =
      "topology: {preset: pcie-4gpu}\nmodel:\n  graph:\n    tensors: {t0: [8, 64, f32]}\n    ops:\n";
  for (int i = 0; i < ops; ++i)
    s += "      - {name: op" + std::to_string(i) + ", op: relu, in: t" + std::to_string(i) +
         ", out: t" + std::to_string(i + 1) + "}\n";
  s += "placement:\n";
  for (int i = 0; i < ops; ++i) s += "  op" + std::to_string(i) + ": " + std::to_string(i % 4) + "\n";
  return s;
}

void read_and_check(benchmark::State& state, const std::string& text, const char* file) {
  for (auto _ : state) {
    Result<Scenario> s = parse_scenario(text, file);
    if (!s.is_ok()) {
      state.SkipWithError(s.message().c_str());
      return;
    }
    const Status st = check_plan(*s);
    if (!st.is_ok()) {
      state.SkipWithError(st.message().c_str());
      return;
    }
    benchmark::DoNotOptimize(s->graph.ops.size());
  }
  state.counters["ops"] = static_cast<double>(state.range(0));
  state.counters["MB"] = static_cast<double>(text.size()) / 1e6;
}

void BM_Json(benchmark::State& state) {
  read_and_check(state, graph_json(static_cast<int>(state.range(0)), kChain), "g.json");
}
// The same graph read from a path longer than a short string holds
// inline (15 characters in libstdc++), as a user's path usually is: every
// op's and tensor's position names the file.
void BM_JsonLongPath(benchmark::State& state) {
  read_and_check(state, graph_json(static_cast<int>(state.range(0)), kChain),
                 "scenarios/generated/graph.json");
}
void BM_JsonWide(benchmark::State& state) {
  read_and_check(state, graph_json(static_cast<int>(state.range(0)), kWide), "g.json");
}
void BM_Yaml(benchmark::State& state) {
  read_and_check(state, graph_yaml(static_cast<int>(state.range(0))), "g.yaml");
}

BENCHMARK(BM_Json)->Arg(2000)->Arg(16000)->Arg(100000)->Arg(1000000)->Iterations(1)
    ->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_JsonLongPath)->Arg(1000000)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_JsonWide)->Arg(1000000)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();
BENCHMARK(BM_Yaml)->Arg(2000)->Arg(16000)->Arg(100000)->Iterations(1)->Unit(benchmark::kSecond)
    ->UseRealTime();

}  // namespace
}  // namespace brigade

BENCHMARK_MAIN();
