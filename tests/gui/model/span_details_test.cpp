// What the details panel says about a span, above all which task it waited
// for and why (gui/model/span_details.hpp), on the seed's pmap train step.
#include "gui/model/span_details.hpp"

#include <gtest/gtest.h>

#include "core/scenario.hpp"
#include "gui/model/loader.hpp"
#include "gui/model/ruler.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

// The first span of `name` on `device`.
int span_named(const Document& d, const std::string& name, int device) {
  for (size_t i = 0; i < d.trace->spans.size(); ++i) {
    const TraceSpan& s = d.trace->spans[i];
    if (s.device == device && d.trace->names[static_cast<size_t>(s.name)] == name)
      return static_cast<int>(i);
  }
  ADD_FAILURE() << name << " on " << device;
  return 0;
}

std::string line(const SpanDetails& d, const std::string& key) {
  for (const DetailLine& l : d.lines)
    if (l.key == key) return l.value;
  return "(none: " + key + ")";
}

struct WaitCase {
  std::string span;
  int device;
  std::string waited_for;
  std::string waited_span;  // name of the span it waited for, "" for none
  int waited_device;
};

class WaitedFor : public ::testing::TestWithParam<WaitCase> {};

// pmap_train_step on 4 host threads: per device mm1, loss, loss.bwd,
// mm1.wgrad on `compute`, the gradient psum (ring AllReduce) on `dp`, then
// the SGD step. Every device runs the same tasks at the same times.
TEST_P(WaitedFor, NamesTheTaskAndTheReason) {
  static const DocumentPtr doc = load_document(kSrc + "/scenarios/pmap_train_step.yaml").value();
  const WaitCase c = GetParam();
  const SpanDetails d = describe_span(*doc, span_named(*doc, c.span, c.device));
  EXPECT_EQ(d.title, c.span);
  EXPECT_EQ(d.waited_for, c.waited_for);
  EXPECT_EQ(line(d, "waited for"), c.waited_for);
  if (c.waited_span.empty())
    EXPECT_EQ(d.waited_for_span, -1);
  else
    EXPECT_EQ(d.waited_for_span, span_named(*doc, c.waited_span, c.waited_device));
}

INSTANTIATE_TEST_SUITE_P(
    PmapTrainStep, WaitedFor,
    ::testing::Values(
        WaitCase{"mm1", 0, "nothing: the first task of its stream, with no dependencies", "", 0},
        WaitCase{"loss", 2, "'mm1' — stream order: issued after it on the same stream (compute)",
                 "mm1", 2},
        WaitCase{"grad psum", 1, "'mm1.wgrad' — event: a kernel on stream 'compute' of this device",
                 "mm1.wgrad", 1},
        WaitCase{"optimizer.w1", 3, "'grad psum' — the result of the AllReduce over 4 ranks",
                 "grad psum", 3}));

// With cpu1 at half speed its gradient is ready last; every other rank's
// psum waits for it at the barrier. Durations double on cpu1, so it arrives
// at 2 x 1.663 us while cpu0 is ready at 1.663 us; cpu0's psum starts when
// cpu1's mm1.wgrad ends, not before.
TEST(SpanDetails, ACollectiveWaitsForItsLastRank) {
  auto scenario = load_scenario(kSrc + "/scenarios/pmap_train_step.yaml");
  ASSERT_TRUE(scenario.is_ok());
  scenario->simulation.speed[1] = 0.5;
  auto doc = document_from_scenario(std::move(scenario).value());
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  const Document& d = **doc;
  const int psum0 = span_named(d, "grad psum", 0);
  const SpanDetails s = describe_span(d, psum0);
  EXPECT_EQ(s.waited_for,
            "barrier: the last rank to arrive was cpu1 (rank 1), waiting for 'mm1.wgrad' (event: a "
            "kernel on stream 'compute' of this device)");
  const int wgrad1 = span_named(d, "mm1.wgrad", 1);
  EXPECT_EQ(s.waited_for_span, wgrad1);
  EXPECT_DOUBLE_EQ(d.trace->spans[static_cast<size_t>(psum0)].start_seconds,
                   d.trace->spans[static_cast<size_t>(wgrad1)].end_seconds);
  EXPECT_NEAR(d.trace->spans[static_cast<size_t>(wgrad1)].end_seconds,
              2 * d.trace->spans[static_cast<size_t>(span_named(d, "mm1.wgrad", 0))].end_seconds,
              1e-12);
}

// With a host far slower than the kernels (1 ms an operation against
// microseconds), each kernel waits for its host's issue: 'loss', issued
// second on its device, starts at 2 ms, long after 'mm1' was done.
TEST(SpanDetails, AKernelThatWaitedForItsHostSaysSo) {
  auto scenario = load_scenario(kSrc + "/scenarios/pmap_train_step.yaml");
  ASSERT_TRUE(scenario.is_ok());
  scenario->simulation.host_op_seconds = 1e-3;
  auto doc = document_from_scenario(std::move(scenario).value());
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  const Document& d = **doc;
  ASSERT_NE(d.host, nullptr);
  const int loss = span_named(d, "loss", 2);
  const TraceSpan& s = d.trace->spans[static_cast<size_t>(loss)];
  EXPECT_NEAR(s.start_seconds, 2e-3, 1e-12);
  const int mm1 = span_named(d, "mm1", 2);
  const double mm1_end = d.trace->spans[static_cast<size_t>(mm1)].end_seconds;
  const SpanDetails details = describe_span(d, loss);
  EXPECT_EQ(details.waited_for, "its host, which issued it at " + format_duration(s.start_seconds) +
                                    " (host_op_time), " +
                                    format_duration(s.start_seconds - mm1_end) +
                                    " after 'mm1' was done");
  EXPECT_EQ(details.waited_for_span, mm1);
  // The first task of a stream: its host alone.
  EXPECT_EQ(describe_span(d, mm1).waited_for,
            "its host, which issued it at " + format_duration(1e-3) + " (host_op_time)");
  EXPECT_EQ(describe_span(d, mm1).waited_for_span, -1);
}

TEST(SpanDetails, ShowsTheKernelsShapeFlopAndBytes) {
  const DocumentPtr doc = load_document(kSrc + "/scenarios/pmap_train_step.yaml").value();
  const SpanDetails d = describe_span(*doc, span_named(*doc, "mm1", 0));
  // mm1: x (2 rows of this device's batch) times w (1 x 1): 2mnk = 2 x 2 x 1 x 1 FLOP.
  EXPECT_EQ(line(*&d, "op"), "GEMM 2 x 1 x 1 (f32)");
  EXPECT_EQ(line(d, "FLOP"), "4.00 FLOP");
  EXPECT_EQ(line(d, "where"), "cpu0/compute");
  EXPECT_EQ(line(d, "kind"), "forward");
  const SpanDetails psum = describe_span(*doc, span_named(*doc, "grad psum", 0));
  EXPECT_EQ(line(psum, "op"), "allreduce (auto) over 4 ranks, f32");
  EXPECT_EQ(line(psum, "bytes"), "4.00 B (nccl-tests size)");
}

// One layer of GPT 22B at TP 8 and micro-batch 4 on one DGX A100 (the
// Korthikanti et al. layer), simulated once for the tests below.
DocumentPtr gpt22b_layer() {
  static const DocumentPtr doc = [] {
    auto scenario = parse_scenario(
        "topology: {preset: dgx-a100}\n"
        "model:\n  transformer: {layers: 1, hidden: 6144, heads: 64, seq: 2048, vocab: 51200, "
        "dtype: f16}\n"
        "training: {global_batch: 4, micro_batch: 4}\nstrategy: {tensor: 8}\n",
        "gpt22b_layer.yaml");
    EXPECT_TRUE(scenario.is_ok()) << scenario.message();
    if (!scenario.is_ok()) return DocumentPtr{};
    auto d = document_from_scenario(std::move(scenario).value());
    EXPECT_TRUE(d.is_ok()) << d.message();
    return d.is_ok() ? std::move(d).value() : DocumentPtr{};
  }();
  return doc;
}

// On an A100 (the wave model, docs/costmodel.md "GEMMs by shape: waves of
// tiles") a GEMM says how full its waves of tiles are: GPT 22B's QKV at TP
// 8 and micro-batch 4, C 8192 x 2304, is 576 tiles of 256 x 128 in 6 waves
// of 108 (648 slots: 88.9%). The seed's CPU plan has no wave model and no
// such line.
TEST(SpanDetails, AGemmSaysHowFullItsWavesOfTilesAre) {
  const DocumentPtr doc = gpt22b_layer();
  ASSERT_TRUE(doc);
  const SpanDetails d = describe_span(*doc, span_named(*doc, "attn.qkv", 0));
  EXPECT_EQ(line(d, "waves"),
            "88.9% filled (6 waves of 108 tiles of 256 x 128; a part-full wave takes a full "
            "one's time)");
  const DocumentPtr cpu = load_document(kSrc + "/scenarios/pmap_train_step.yaml").value();
  EXPECT_EQ(line(describe_span(*cpu, span_named(*cpu, "mm1", 0)), "waves"), "(none: waves)");
}

// NCCL's kernels take SMs (docs/costmodel.md): on the same layer, the
// column-parallel backward's all-reduce of QKV's input gradient (TP 8 on one
// DGX A100: 24 channels, one thread block each) runs beside QKV's
// weight-gradient GEMM, which says so and what it lost; the forward's QKV
// GEMM runs beside nothing and has no such line, nor has the seed's CPU plan.
TEST(SpanDetails, AKernelBesideACollectiveSaysWhatNcclsKernelHeld) {
  const DocumentPtr doc = gpt22b_layer();
  ASSERT_TRUE(doc);
  const std::string wgrad = line(describe_span(*doc, span_named(*doc, "attn.qkv.wgrad", 0)),
                                 "NCCL's SMs");
  EXPECT_NE(wgrad.find("the longest 'attn.bwd.allreduce' (its NCCL kernel holds 24 of 108 SMs)"),
            std::string::npos)
      << wgrad;
  EXPECT_NE(wgrad.find("longer than alone"), std::string::npos) << wgrad;
  EXPECT_EQ(line(describe_span(*doc, span_named(*doc, "attn.qkv", 0)), "NCCL's SMs"),
            "(none: NCCL's SMs)");
  const DocumentPtr cpu = load_document(kSrc + "/scenarios/pmap_train_step.yaml").value();
  EXPECT_EQ(line(describe_span(*cpu, span_named(*cpu, "mm1.wgrad", 0)), "NCCL's SMs"),
            "(none: NCCL's SMs)");
}

TEST(SpanDetails, AForeignSpanHasNoProgramToAsk) {
  Trace t;
  t.device_names = {"gpu0"};
  t.streams = {{0, "s"}};
  t.names = {"k"};
  TraceSpan s;
  s.name = 0;
  s.end_seconds = 1e-3;
  t.spans.push_back(s);
  const DocumentPtr doc = document_from_trace(std::move(t), "x.json");
  const SpanDetails d = describe_span(*doc, 0);
  EXPECT_EQ(d.waited_for, "");
  EXPECT_EQ(line(d, "duration"), "1 ms");
  EXPECT_EQ(span_summary(*doc, 0), "k — 1 ms (forward, gpu0/s)");
}

}  // namespace
}  // namespace brigade::gui
