// Reading a profiler's record (docs/PERFORMANCE.md, "A profiler's record",
// has the figures and the command): a synthetic PyTorch profiler trace of
// N kernel events among as many CPU ops, as Kineto writes one for a
// training step of a large model (a 175B layer-sliced step launches tens of
// thousands of kernels a GPU; a capture of a few steps, hundreds of
// thousands), read by read_kineto_kernels, plain and gzip-compressed.
//
//   build/default/bench/kernel_summary_bench
#include <fstream>
#include <sstream>
#include <string>

#include <benchmark/benchmark.h>

#include <fmt/format.h>
#include "bench/bench_util.hpp"

#include "core/gzip_stream.hpp"
#include "core/kernel_summary.hpp"

namespace brigade {
namespace {

using bench::peak_rss_bytes;

// Kineto's layout: one object, "traceEvents", each event on its line; the
// kernels' names among 40 real-looking ones, a CPU op before each kernel.
std::string kineto_text(int kernels) {
  std::string s = "{\n  \"schemaVersion\": 1,\n  \"traceEvents\": [\n";
  s += "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": "
       "77, \"tid\": 77, \"ts\": 0, \"dur\": 1}";
  for (int i = 0; i < kernels; ++i) {
    s += fmt::format(
        ",\n  {{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 77, \"tid\": "
        "77, \"ts\": {}, \"dur\": 12.5, \"args\": {{\"External id\": {}, \"Input Dims\": "
        "[[8192, 4096], [4096, 16384]]}}}}",
        i * 10, i);
    s += fmt::format(
        ",\n  {{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
        "\"sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x128x128_variant{}\", \"pid\": 0, "
        "\"tid\": 7, \"ts\": {}, \"dur\": {}.25, \"args\": {{\"device\": 0, \"stream\": 7, "
        "\"correlation\": {}, \"grid\": [132, 1, 1], \"block\": [384, 1, 1]}}}}",
        i % 40, i * 10 + 5, 100 + i % 17, i);
  }
  s += "\n  ]\n}\n";
  return s;
}

// A string's bytes as a streambuf, not copied (std::istringstream would copy
// 178 MB inside the timed loop).
class ViewBuf final : public std::streambuf {
 public:
  explicit ViewBuf(std::string& s) { setg(s.data(), s.data(), s.data() + s.size()); }
};

void BM_ReadKineto(benchmark::State& state) {
  const int kernels = static_cast<int>(state.range(0));
  const bool gzip = state.range(1) != 0;
  std::string text = kineto_text(kernels);
  const double json_bytes = static_cast<double>(text.size());
  if (gzip) {
    std::ostringstream os;
    GzipWriteBuf gz(os, 1);
    std::ostream out(&gz);
    out << text;
    out.flush();
    if (!gz.finish().is_ok()) state.SkipWithError("gzip failed");
    text = os.str();
  }
  std::size_t names = 0;
  for (auto _ : state) {
    ViewBuf view(text);
    std::istream in(&view);
    auto m = read_kineto_kernels(in, "bench.json");
    if (!m.is_ok())
      state.SkipWithError(m.message().c_str());
    else
      names = m->kernels.size();
  }
  state.counters["JSON_MB"] = json_bytes / 1e6;
  state.counters["JSON_MB_per_s"] =
      benchmark::Counter(json_bytes / 1e6, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["names"] = static_cast<double>(names);
  state.counters["peak_RSS_MB"] = peak_rss_bytes() / 1e6;
}

BENCHMARK(BM_ReadKineto)
    ->Name("ReadKineto")
    ->Args({100000, 0})
    ->Args({400000, 0})
    ->Args({400000, 1})
    ->Iterations(1)
    ->Unit(benchmark::kSecond)
    ->UseRealTime();

}  // namespace
}  // namespace brigade

BENCHMARK_MAIN();
