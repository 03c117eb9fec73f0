// Reading any Chrome Trace Event JSON (gui/model/foreign_trace.hpp).
#include "gui/model/foreign_trace.hpp"

#include <sstream>

#include <gtest/gtest.h>

namespace brigade::gui {
namespace {

// The shape of a PyTorch profiler trace: a CPU process with nested ops
// ("X" with string tids), a GPU "process" 0 with a stream thread, NCCL and
// memcpy kernels, ac2g flows, a "[memory]" instant, epoch-like timestamps.
const char* kPyTorchLike = R"json({
  "schemaVersion": 1, "deviceProperties": [],
  "traceEvents": [
    {"ph": "M", "name": "process_name", "pid": 4242, "args": {"name": "python"}},
    {"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}},
    {"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}},
    {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 4242, "tid": "4242", "ts": 1700000000000100.0, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 4242, "tid": "4242", "ts": 1700000000000110.0, "dur": 20},
    {"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MmBackward0", "pid": 4242, "tid": "4243", "ts": 1700000000000200.0, "dur": 30},
    {"ph": "X", "cat": "kernel", "name": "ampere_sgemm_128x64_nn", "pid": 0, "tid": 7, "ts": 1700000000000120.0, "dur": 15},
    {"ph": "X", "cat": "kernel", "name": "ncclKernel_AllReduce_RING_LL_Sum_float", "pid": 0, "tid": 7, "ts": 1700000000000140.0, "dur": 40},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoH (Device -> Pinned)", "pid": 0, "tid": 7, "ts": 1700000000000190.0, "dur": 5},
    {"ph": "s", "id": 1, "pid": 4242, "tid": "4242", "ts": 1700000000000110.0, "cat": "ac2g", "name": "ac2g"},
    {"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 1700000000000120.0, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "i", "name": "[memory]", "pid": 4242, "tid": "4242", "ts": 1700000000000150.0, "s": "t", "args": {"Total Allocated": 1048576}}
  ]
})json";

TEST(ForeignTrace, PyTorchProfilerShapeBecomesDevicesStreamsAndSpans) {
  auto r = read_any_chrome_trace(kPyTorchLike, "torch.json");
  ASSERT_TRUE(r.is_ok()) << r.message();
  const Trace& t = *r;
  EXPECT_EQ(t.source, "chrome-trace");
  ASSERT_EQ(t.device_names.size(), 2u);
  EXPECT_EQ(t.device_names[0], "python (4242)");
  EXPECT_EQ(t.device_names[1], "GPU 0 (0)");
  ASSERT_EQ(t.streams.size(), 3u);
  EXPECT_EQ(t.streams[0].name, "thread 4242");
  EXPECT_EQ(t.streams[2].name, "stream 7");
  ASSERT_EQ(t.spans.size(), 6u);
  // Shifted so that the first event is at 0; microseconds to seconds.
  EXPECT_NEAR(t.spans[0].start_seconds, 0, 1e-12);
  EXPECT_NEAR(t.spans[0].end_seconds, 50e-6, 1e-9);
  auto by_name = [&](const std::string& n) -> const TraceSpan& {
    for (const TraceSpan& s : t.spans)
      if (t.names[static_cast<size_t>(s.name)] == n) return s;
    ADD_FAILURE() << n;
    return t.spans[0];
  };
  EXPECT_EQ(by_name("ncclKernel_AllReduce_RING_LL_Sum_float").kind, TaskKind::kCollective);
  EXPECT_EQ(by_name("Memcpy DtoH (Device -> Pinned)").kind, TaskKind::kTransfer);
  EXPECT_EQ(by_name("aten::mm").kind, TaskKind::kCompute);
  EXPECT_EQ(by_name("aten::mm").phase, Phase::kOther);
  EXPECT_EQ(by_name("autograd::engine::evaluate_function: MmBackward0").phase, Phase::kBackward);
  ASSERT_EQ(t.memory.size(), 1u);
  EXPECT_EQ(t.memory[0].bytes, 1048576);
  EXPECT_EQ(t.memory[0].device, 0);
}

TEST(ForeignTrace, BeginEndPairsNestAndAsyncPairsGetTheirOwnStream) {
  const char* text = R"([
    {"ph": "B", "name": "outer", "pid": 1, "tid": 1, "ts": 0},
    {"ph": "B", "name": "inner", "pid": 1, "tid": 1, "ts": 2},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 3},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 10},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 11},
    {"ph": "b", "name": "load", "cat": "io", "id": "0x1", "pid": 1, "ts": 4},
    {"ph": "e", "name": "load", "cat": "io", "id": "0x1", "pid": 1, "ts": 9},
    {"ph": "B", "name": "never closed", "pid": 1, "tid": 2, "ts": 5}
  ])";
  auto r = read_any_chrome_trace(text, "x.json");
  ASSERT_TRUE(r.is_ok()) << r.message();
  ASSERT_EQ(r->spans.size(), 4u);
  EXPECT_EQ(r->names[static_cast<size_t>(r->spans[0].name)], "outer");
  EXPECT_DOUBLE_EQ(r->spans[0].end_seconds, 10e-6);
  EXPECT_EQ(r->names[static_cast<size_t>(r->spans[1].name)], "inner");
  EXPECT_DOUBLE_EQ(r->spans[1].end_seconds, 3e-6);
  EXPECT_EQ(r->streams[static_cast<size_t>(r->spans[2].stream)].name, "async io");
  // An unclosed span ends at the last time seen (11 us).
  EXPECT_DOUBLE_EQ(r->spans[3].end_seconds, 11e-6);
}

struct BadCase {
  const char* text;
  const char* message;
};

class ForeignTraceErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ForeignTraceErrors, SayWhatWasFoundAndWhatWasExpected) {
  auto r = read_any_chrome_trace(GetParam().text, "t.json");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ForeignTraceErrors,
    ::testing::Values(
        BadCase{"", "t.json:1:1: error: found an empty file; expected a Chrome trace"},
        BadCase{"[{\"ph\": \"X\",\n  \"ts\": 1,", "t.json:2:11: error: found invalid JSON; expected a Chrome trace"},
        BadCase{"{\"foo\": 1}", "t.json: error: found an object without a \"traceEvents\" array; expected a Chrome trace (an array of events, or an object with \"traceEvents\")"},
        BadCase{"42", "t.json: error: found a JSON number; expected a Chrome trace (an array of events, or an object with \"traceEvents\")"},
        BadCase{"[1]", "t.json: error: found event 0 of type number; expected an object"},
        BadCase{"[{\"name\": \"x\"}]", "t.json: error: found event 0 without \"ph\"; expected a phase such as \"X\""},
        BadCase{"[{\"ph\": \"X\", \"ts\": \"soon\"}]", "t.json: error: found event 0 (\"X\") without a numeric \"ts\"; expected a time in microseconds"},
        BadCase{"[{\"ph\": \"X\", \"ts\": 1, \"dur\": -5}]", "t.json: error: found event 0 (\"X\") with \"dur\" -5; expected a duration >= 0 in microseconds"}));

TEST(ForeignTrace, BrigadesOwnTracesGoThroughCoresExactReader) {
  Trace t;
  t.source = "sim:flow";
  t.program = "p";
  t.device_names = {"gpu0"};
  t.streams = {{0, "compute"}};
  t.names = {"k"};
  TraceSpan s;
  s.task = 0;
  s.name = 0;
  s.start_seconds = 1.0 / 3;
  s.end_seconds = 2.0 / 3;
  t.spans.push_back(s);
  std::ostringstream out;
  ASSERT_TRUE(write_chrome_trace(t, out).is_ok());
  auto r = read_any_chrome_trace(out.str(), "b.json");
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ(r->source, "sim:flow");
  EXPECT_EQ(r->spans[0].start_seconds, 1.0 / 3);  // exact, from args
  EXPECT_EQ(r->spans[0].task, 0);
}

}  // namespace
}  // namespace brigade::gui
