// The timeline's speed at 1 M and 10 M spans, offscreen (docs/PERFORMANCE.md,
// "The app's timeline"): building the level-of-detail index (once per
// trace), one frame's level-of-detail pass (the queries of every visible
// track), and a full repaint of the timeline canvas (1600 x 900) after a
// pan or a zoom. Goals (issue 15): a pan or zoom frame <= 16 ms at 1 M
// spans, <= 50 ms at 10 M.
//
//   build/default/bench/gui_timeline_bench
//   build/default/bench/gui_timeline_bench --benchmark_filter=Repaint
#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <utility>

#include <benchmark/benchmark.h>
#include <QApplication>
#include <QImage>
#include <QPainter>

#include "gui/model/loader.hpp"
#include "gui/model/time_axis.hpp"
#include "gui/model/trace_index.hpp"
#include "gui/views/timeline_canvas.hpp"

namespace brigade::gui {
namespace {

// `spans` kernels on 64 (1 M) or 256 (10 M) devices x 2 streams (compute,
// comm), back to back with small gaps, of 1 to 200 us drawn from a fixed
// seed, phases cycling as a training step's; every 50th comm span is an
// AllReduce with a transfer to the next device. `host`: a host lane too, a
// slice for each compute span ending where it starts (the host issuing it
// just in time, as on a host-bound step: one slice per kernel, back to
// back where the kernels are).
Trace synthetic(std::int64_t spans, bool host = false) {
  const int devices = spans >= 5'000'000 ? 256 : 64;
  Trace t;
  t.source = "bench";
  t.program = "synthetic";
  for (int d = 0; d < devices; ++d) {
    t.device_names.push_back("node" + std::to_string(d / 8) + "/gpu" + std::to_string(d % 8));
    t.streams.push_back({d, "compute"});
    t.streams.push_back({d, "comm"});
  }
  for (int k = 0; k < 64; ++k) t.names.push_back("kernel_" + std::to_string(k));
  t.names.push_back("allreduce");
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> dur(1e-6, 200e-6), gap(0, 5e-6);
  const std::int64_t per_stream = spans / (2 * devices);
  t.spans.reserve(static_cast<size_t>(per_stream * 2 * devices));
  for (int s = 0; s < 2 * devices; ++s) {
    double now = 0;
    for (std::int64_t i = 0; i < per_stream; ++i) {
      TraceSpan x;
      x.stream = s;
      x.device = s / 2;
      x.start_seconds = now;
      x.end_seconds = now + dur(rng);
      now = x.end_seconds + gap(rng);
      x.task = static_cast<TaskId>(t.spans.size());
      if (s % 2 == 1 && i % 50 == 0) {
        x.kind = TaskKind::kCollective;
        x.name = 64;
        TraceTransfer tr;
        tr.task = x.task;
        tr.src = x.device;
        tr.dst = (x.device + 1) % devices;
        tr.bytes = 1 << 20;
        tr.start_seconds = x.start_seconds;
        tr.end_seconds = x.end_seconds;
        t.transfers.push_back(tr);
      } else {
        x.name = static_cast<NameId>(i % 64);
        x.phase = static_cast<Phase>(i / 1000 % 4);
      }
      if (host && s % 2 == 0) {
        const double issue = std::max(0.0, x.start_seconds - dur(rng) / 4);
        t.host.push_back(HostSpan{x.task, x.device, issue, x.start_seconds, x.name});
      }
      t.spans.push_back(x);
    }
  }
  return t;
}

// One trace and its document per size (and host lane or not), built once.
DocumentPtr document(std::int64_t spans, bool host = false) {
  static std::map<std::pair<std::int64_t, bool>, DocumentPtr> docs;
  auto& d = docs[{spans, host}];
  if (!d) d = document_from_trace(synthetic(spans, host), "synthetic.json");
  return d;
}

void BM_LodBuild(benchmark::State& state) {
  const Trace t = synthetic(state.range(0));
  for (auto _ : state) {
    TraceIndex ix = TraceIndex::build(t, nullptr);
    benchmark::DoNotOptimize(ix.num_tracks());
  }
  state.counters["spans"] = static_cast<double>(t.spans.size());
}

// One frame's level-of-detail pass: every track of 40 visible rows queried
// over the window at 1400 px, at the whole trace and at 1/1000 of it.
void BM_LodFrame(benchmark::State& state) {
  const DocumentPtr doc = document(state.range(0));
  const TraceIndex& ix = *doc->index;
  const double extent = ix.end_seconds() - ix.start_seconds();
  const double zoom = state.range(1);
  const double t0 = ix.start_seconds() + extent * 0.37, t1 = t0 + extent / zoom;
  std::vector<LodItem> items;
  std::int64_t n = 0;
  for (auto _ : state) {
    n = 0;
    for (int track = 0; track < std::min(40, ix.num_tracks()); ++track) {
      items.clear();
      ix.query(track, t0, t1, (t1 - t0) / 1400, items);
      n += static_cast<std::int64_t>(items.size());
    }
    benchmark::DoNotOptimize(n);
  }
  state.counters["items"] = static_cast<double>(n);
}

// A full repaint of the canvas (rows, arrows, overview, ruler, legend) into
// a 1600 x 900 image after each pan (A/D) or zoom (W/S) step.
// range(2) = 1: the trace has a host lane (a host row per device, a slice
// per compute span).
void BM_Repaint(benchmark::State& state) {
  const DocumentPtr doc = document(state.range(0), state.range(2) == 1);
  TimelineCanvas canvas;
  canvas.resize(1600, 900);
  canvas.set_document(doc);
  const bool pan = state.range(1) == 1;
  if (pan) {
    for (int i = 0; i < 30; ++i) canvas.zoom_in();  // 1/800 of the trace: spans a few px wide
  }
  QImage image(canvas.size(), QImage::Format_ARGB32_Premultiplied);
  int step = 0;
  for (auto _ : state) {
    if (pan) {
      (step++ % 20 < 10) ? canvas.pan_right() : canvas.pan_left();
    } else {
      (step++ % 20 < 10) ? canvas.zoom_in() : canvas.zoom_out();
    }
    canvas.render(&image);
  }
  state.counters["items"] = static_cast<double>(canvas.last_frame_items());
  state.counters["arrows"] = static_cast<double>(canvas.last_frame_arrows());
}

BENCHMARK(BM_LodBuild)
    ->Arg(1'000'000)
    ->Arg(10'000'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);
BENCHMARK(BM_LodFrame)
    ->Args({1'000'000, 1})
    ->Args({1'000'000, 1000})
    ->Args({10'000'000, 1})
    ->Args({10'000'000, 1000})
    ->Unit(benchmark::kMillisecond);
// range(1): 0 = zoom frames (from the whole trace in and out), 1 = pan frames zoomed in.
BENCHMARK(BM_Repaint)
    ->Args({1'000'000, 0, 0})
    ->Args({1'000'000, 1, 0})
    ->Args({10'000'000, 0, 0})
    ->Args({10'000'000, 1, 0})
    ->Args({1'000'000, 0, 1})
    ->Args({1'000'000, 1, 1})
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace brigade::gui

int main(int argc, char** argv) {
  if (!std::getenv("QT_QPA_PLATFORM")) setenv("QT_QPA_PLATFORM", "offscreen", 1);
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
