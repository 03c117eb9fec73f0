// Trace and its Chrome Trace Event JSON writer and reader.
#include "core/trace.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/core/fifo_watch.hpp"

namespace brigade {
namespace {

// An event's category, "" when it has none (the metadata events): a const
// json's operator[] on a missing key is undefined behaviour (it read past
// the object's end and crashed one run in a few hundred).
std::string category_of(const nlohmann::json& e) { return e.value("cat", std::string()); }

Trace sample_trace() {
  Trace t;
  t.source = "sim:flow";
  t.program = "demo \"quoted\"\n";
  t.device_names = {"gpu0", "node1/gpu1"};
  t.streams = {Stream{0, "compute"}, Stream{0, "xfer"}, Stream{1, "compute"}};
  t.lanes = {"gpu0->nvswitch", "nvswitch->node1/gpu1"};
  t.names = {"fwd", "send", "bwd \\ tab\t", "unused"};
  // Times that have no exact decimal form in microseconds.
  t.spans.push_back(TraceSpan{0, 0, 0, 0.0, 0.1, 0, TaskKind::kCompute, Phase::kForward, -1});
  t.spans.push_back(TraceSpan{1, 0, 1, 0.1, 1.0 / 3, 1, TaskKind::kTransfer, Phase::kForward, -1});
  t.spans.push_back(
      TraceSpan{2, 1, 2, 1.0 / 3, 0.7000000000000001, 2, TaskKind::kCompute, Phase::kBackward, -1});
  t.spans.push_back(
      TraceSpan{3, 1, 2, 0.75, 0.75, -1, TaskKind::kCollective, Phase::kOptimizer, 4});
  t.transfers.push_back(TraceTransfer{1, 0, 1, 12345.5, 0.1, 1.0 / 3, 0});
  t.transfers.push_back(TraceTransfer{1, 0, 1, 1e-300, 0.2, 0.3, -1});
  t.memory.push_back(MemorySample{0, MemoryCategory::kParams, 0, 1.5e9});
  t.memory.push_back(MemorySample{1, MemoryCategory::kActivations, 1.0 / 3, 7});
  t.memory.push_back(MemorySample{1, MemoryCategory::kActivations, 0.1, 3});
  // The host lane: device 0's host issues task 0 then task 1; device 1's, task 2.
  t.host.push_back(HostSpan{0, 0, 0.0, 1.0 / 30, 0});
  t.host.push_back(HostSpan{2, 1, 0.0, 1.0 / 7, 2});
  t.host.push_back(HostSpan{1, 0, 1.0 / 30, 0.1, 1});
  return t;
}

void expect_equal(const Trace& a, const Trace& b) {
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.program, b.program);
  EXPECT_EQ(a.device_names, b.device_names);
  ASSERT_EQ(a.streams.size(), b.streams.size());
  for (size_t i = 0; i < a.streams.size(); ++i) {
    EXPECT_EQ(a.streams[i].device, b.streams[i].device);
    EXPECT_EQ(a.streams[i].name, b.streams[i].name);
  }
  EXPECT_EQ(a.lanes, b.lanes);
  EXPECT_EQ(a.names, b.names);
  ASSERT_EQ(a.spans.size(), b.spans.size());
  for (size_t i = 0; i < a.spans.size(); ++i) {
    const TraceSpan &x = a.spans[i], &y = b.spans[i];
    EXPECT_EQ(x.task, y.task);
    EXPECT_EQ(x.device, y.device);
    EXPECT_EQ(x.stream, y.stream);
    EXPECT_EQ(x.start_seconds, y.start_seconds);
    EXPECT_EQ(x.end_seconds, y.end_seconds);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.kind, y.kind);
    EXPECT_EQ(x.phase, y.phase);
    EXPECT_EQ(x.collective, y.collective);
  }
  ASSERT_EQ(a.transfers.size(), b.transfers.size());
  for (size_t i = 0; i < a.transfers.size(); ++i) {
    const TraceTransfer &x = a.transfers[i], &y = b.transfers[i];
    EXPECT_EQ(x.task, y.task);
    EXPECT_EQ(x.src, y.src);
    EXPECT_EQ(x.dst, y.dst);
    EXPECT_EQ(x.bytes, y.bytes);
    EXPECT_EQ(x.start_seconds, y.start_seconds);
    EXPECT_EQ(x.end_seconds, y.end_seconds);
    EXPECT_EQ(x.lane, y.lane);
  }
  ASSERT_EQ(a.memory.size(), b.memory.size());
  for (size_t i = 0; i < a.memory.size(); ++i) {
    EXPECT_EQ(a.memory[i].device, b.memory[i].device);
    EXPECT_EQ(a.memory[i].category, b.memory[i].category);
    EXPECT_EQ(a.memory[i].time_seconds, b.memory[i].time_seconds);
    EXPECT_EQ(a.memory[i].bytes, b.memory[i].bytes);
  }
  ASSERT_EQ(a.host.size(), b.host.size());
  for (size_t i = 0; i < a.host.size(); ++i) {
    const HostSpan &x = a.host[i], &y = b.host[i];
    EXPECT_EQ(x.task, y.task);
    EXPECT_EQ(x.device, y.device);
    EXPECT_EQ(x.start_seconds, y.start_seconds);
    EXPECT_EQ(x.end_seconds, y.end_seconds);
    EXPECT_EQ(x.name, y.name);
  }
}

std::string to_json(const Trace& t) {
  std::ostringstream os;
  EXPECT_TRUE(write_chrome_trace(t, os).is_ok());
  return os.str();
}

TEST(Trace, StepSecondsIsLatestEndMinusEarliestStart) {
  Trace t = sample_trace();
  EXPECT_DOUBLE_EQ(t.step_seconds(), 0.75);
  EXPECT_EQ(Trace{}.step_seconds(), 0);
}

TEST(Trace, InternReturnsExistingIds) {
  Trace t = sample_trace();
  EXPECT_EQ(t.intern("send"), 1);
  EXPECT_EQ(t.intern("new"), 4);
  EXPECT_EQ(t.names.size(), 5u);
}

TEST(ChromeTrace, RoundTripGivesAnEqualTrace) {
  const Trace t = sample_trace();
  std::istringstream in(to_json(t));
  auto back = read_chrome_trace(in, "t.json");
  ASSERT_TRUE(back.is_ok()) << back.message();
  expect_equal(t, *back);
}

TEST(ChromeTrace, WriterIsDeterministicAndSorted) {
  const std::string a = to_json(sample_trace());
  EXPECT_EQ(a, to_json(sample_trace()));
  const auto j = nlohmann::json::parse(a);
  double last = -1;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M") continue;
    EXPECT_GE(e["ts"].get<double>(), last);
    last = e["ts"];
  }
  // Spans: complete events with pid = device and tid = stream.
  int x = 0;
  for (const auto& e : j["traceEvents"])
    if (e["ph"] == "X" && category_of(e) != "host" && e["args"]["task"] == 2) {
      ++x;
      EXPECT_EQ(e["pid"], 1);
      EXPECT_EQ(e["tid"], 2);
      EXPECT_EQ(e["name"], "bwd \\ tab\t");
    }
  EXPECT_EQ(x, 1);
}

// The host lane (format 3): complete events of category "host" on a thread
// "host" of the device, tid = the streams' count (3) plus the device,
// sorted above the device's streams; read back as host slices, not spans.
TEST(ChromeTrace, HostSlicesAreAThreadOfTheirDevice) {
  const auto j = nlohmann::json::parse(to_json(sample_trace()));
  EXPECT_EQ(j["brigade"]["format"], 3);
  int host = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X" && category_of(e) == "host") {
      ++host;
      EXPECT_EQ(e["tid"], 3 + e["pid"].get<int>());
      if (e["args"]["task"] == 2) {
        EXPECT_EQ(e["pid"], 1);
        EXPECT_EQ(e["name"], "bwd \\ tab\t");
      }
    }
    if (e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == "host") {
      EXPECT_EQ(e["tid"], 3 + e["pid"].get<int>());
    }
    if (e["ph"] == "M" && e["name"] == "thread_sort_index") {
      EXPECT_EQ(e["args"]["sort_index"], -1);
    }
  }
  EXPECT_EQ(host, 3);
  // One arrow, from the slice that issued task 1 to its span: task 1 started
  // at its issue (0.1 s); tasks 0 and 2 started otherwise, and get none.
  int starts = 0, ends = 0;
  for (const auto& e : j["traceEvents"]) {
    if (category_of(e) != "host" || e["ph"] == "X") continue;
    if (e["ph"] == "s") {
      ++starts;
      EXPECT_EQ(e["pid"], 0);
      EXPECT_EQ(e["tid"], 3);
      EXPECT_NEAR(e["ts"].get<double>(), 0.5 * (1.0 / 30 + 0.1) * 1e6, 1e-6);
    } else if (e["ph"] == "f") {
      ++ends;
      EXPECT_EQ(e["pid"], 0);
      EXPECT_EQ(e["tid"], 1);
      EXPECT_EQ(e["ts"].get<double>(), 100000);
      EXPECT_EQ(e["bp"], "e");
    }
  }
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(ends, 1);
  std::istringstream in(to_json(sample_trace()));
  auto back = read_chrome_trace(in, "t.json");
  ASSERT_TRUE(back.is_ok()) << back.message();
  EXPECT_EQ(back->spans.size(), 4u);  // the host slices are not spans
  EXPECT_EQ(back->streams.size(), 3u);
  ASSERT_EQ(back->host.size(), 3u);
  EXPECT_EQ(back->host[1].device, 1);
  EXPECT_EQ(back->host[1].end_seconds, 1.0 / 7);
}

// A host slice on a device the header does not have is refused with the
// index it found; a format-2 file's "host" events stay spans (no host lane
// before format 3).
TEST(ChromeTrace, HostSlicesStayWithinTheHeadersDevices) {
  std::istringstream bad(R"({"brigade":{"format":3,"devices":1,"device_names":["gpu0"],
    "streams":[[0,"compute"]],"names":["a"],"lanes":[]},"traceEvents":[
    {"ph":"X","name":"a","cat":"host","pid":4,"tid":5,"ts":0,"dur":1,"args":{"i":0,"task":0}}]})");
  auto r = read_chrome_trace(bad, "h.json");
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            "h.json: error: found a host slice on device 4; expected an index below 1, the length "
            "of the header's \"device_names\"");
  std::istringstream old(R"({"brigade":{"format":2,"devices":1,"device_names":["gpu0"],
    "streams":[[0,"compute"]],"names":["a"],"lanes":[]},"traceEvents":[
    {"ph":"X","name":"a","cat":"host","pid":0,"tid":0,"ts":0,"dur":1,"args":{"i":0,"task":0}}]})");
  auto o = read_chrome_trace(old, "o.json");
  ASSERT_TRUE(o.is_ok()) << o.message();
  EXPECT_EQ(o->spans.size(), 1u);
  EXPECT_TRUE(o->host.empty());
}

TEST(ChromeTrace, ReadsForeignTracesBestEffort) {
  // A bare array of events, as other tools write: no Brigade metadata.
  std::istringstream in(R"([
    {"ph":"M","name":"process_name","pid":0,"args":{"name":"cpu"}},
    {"ph":"X","name":"k","pid":0,"tid":3,"ts":10,"dur":5},
    {"ph":"C","name":"memory:grads","pid":0,"ts":2,"args":{"bytes":64}},
    {"ph":"i","name":"mark","pid":0,"ts":1}
  ])");
  auto t = read_chrome_trace(in, "other.json");
  ASSERT_TRUE(t.is_ok()) << t.message();
  ASSERT_EQ(t->spans.size(), 1u);
  EXPECT_EQ(t->spans[0].task, -1);
  EXPECT_DOUBLE_EQ(t->spans[0].start_seconds, 10e-6);
  EXPECT_DOUBLE_EQ(t->spans[0].end_seconds, 15e-6);
  EXPECT_EQ(t->names[static_cast<size_t>(t->spans[0].name)], "k");
  EXPECT_EQ(t->device_names, std::vector<std::string>{"cpu"});
  EXPECT_EQ(t->streams.size(), 4u);
  ASSERT_EQ(t->memory.size(), 1u);
  EXPECT_EQ(t->memory[0].category, MemoryCategory::kGrads);
  EXPECT_EQ(t->memory[0].bytes, 64);
}

// A task id no Program can have (past 2^31 - 1, or negative) is unknown,
// not cut to 32 bits into another task's id (2^40 would read as task 0).
TEST(ChromeTrace, TaskIdsPastThirtyTwoBitsAreUnknown) {
  std::istringstream in(R"([
    {"ph":"X","name":"a","pid":0,"tid":0,"ts":0,"dur":1,"args":{"task":1099511627776}},
    {"ph":"X","name":"b","pid":0,"tid":0,"ts":1,"dur":1,"args":{"task":2147483648}},
    {"ph":"X","name":"c","pid":0,"tid":0,"ts":2,"dur":1,"args":{"task":-7}},
    {"ph":"X","name":"d","pid":0,"tid":0,"ts":3,"dur":1,"args":{"task":2147483647}}
  ])");
  auto t = read_chrome_trace(in, "ids.json");
  ASSERT_TRUE(t.is_ok()) << t.message();
  ASSERT_EQ(t->spans.size(), 4u);
  EXPECT_EQ(t->spans[0].task, -1);
  EXPECT_EQ(t->spans[1].task, -1);
  EXPECT_EQ(t->spans[2].task, -1);
  EXPECT_EQ(t->spans[3].task, 2147483647);
}

TEST(ChromeTrace, InvalidJsonNamesLineAndColumn) {
  // Line 2 is `  {"ph": "X",, }`: the second comma is column 14.
  std::istringstream in("{\"traceEvents\": [\n  {\"ph\": \"X\",, }\n]}");
  auto t = read_chrome_trace(in, "bad.json");
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(t.message(), "bad.json:2:14: error: found invalid JSON; expected a Chrome trace");
}

TEST(ChromeTrace, InvalidJsonOnTheFirstLineNamesItsColumn) {
  // Line 1 had no newline before it, and the column came out as the
  // reader's buffer address (bad.json:1:-1218695182): `[}` fails at the
  // '}', column 2; `[{"name":"a<0xff>"}]` at the byte 0xff, column 12.
  std::istringstream a("[}");
  EXPECT_EQ(read_chrome_trace(a, "bad.json").message(),
            "bad.json:1:2: error: found invalid JSON; expected a Chrome trace");
  std::istringstream b("[{\"name\":\"a\xff\"}]");
  EXPECT_EQ(read_chrome_trace(b, "bad.json").message(),
            "bad.json:1:12: error: found invalid JSON; expected a Chrome trace");
}

TEST(ChromeTrace, WrongShapesAreNamed) {
  std::istringstream a("42");
  EXPECT_EQ(
      read_chrome_trace(a, "n.json").message(),
      "n.json: error: found a JSON number; expected a Chrome trace (an array of events, or an "
      "object with \"traceEvents\")");
  std::istringstream b("{\"events\": []}");
  EXPECT_EQ(read_chrome_trace(b, "o.json").message(),
            "o.json: error: found no \"traceEvents\" array; expected a Chrome trace (an array of "
            "events, or an object with \"traceEvents\")");
  std::istringstream c("[{\"name\": \"x\"}]");
  EXPECT_EQ(read_chrome_trace(c, "p.json").message(),
            "p.json: error: found event 0 without \"ph\"; expected a phase such as \"X\"");
}

TEST(ChromeTrace, FileWriteIsAtomic) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("brigade_trace_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.json").string();
  ASSERT_TRUE(write_chrome_trace_file(sample_trace(), path).is_ok());
  // Nothing but the trace is left in the folder (no temporary).
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir),
                          std::filesystem::directory_iterator()),
            1);
  auto back = read_chrome_trace_file(path);
  ASSERT_TRUE(back.is_ok()) << back.message();
  expect_equal(sample_trace(), *back);
  // A path in a missing folder: an error, and no file appears.
  const std::string bad = (dir / "missing" / "t.json").string();
  const Status st = write_chrome_trace_file(sample_trace(), bad);
  EXPECT_FALSE(st.is_ok());
  EXPECT_EQ(st.message(), bad + ": error: found no folder '" + (dir / "missing").string() +
                              "'; expected an existing folder for the file");
  EXPECT_FALSE(std::filesystem::exists(bad));
  std::filesystem::remove_all(dir);
}

// read_chrome_trace_file opened its path with std::ifstream: a FIFO with no
// writer hung the reader (the app, `brigade compare`), /dev/zero was read
// as a trace. Both are refused, as the scenario reader refuses them
// (tests/core/fifo_watch.hpp: a regression fails rather than hangs).
TEST(ChromeTrace, AFileThatIsNotRegularIsRefusedAtOnce) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("brigade_trace_fifo_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "t.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  testing::FifoWatch watch(fifo);
  auto r = read_chrome_trace_file(fifo);
  EXPECT_FALSE(watch.someone_waited()) << "the reader waited for a writer on the FIFO";
  EXPECT_EQ(r.message(),
            fifo + ": error: found a FIFO; expected a readable Chrome trace (.json or .json.gz)");
  EXPECT_EQ(
      read_chrome_trace_file("/dev/zero").message(),
      "/dev/zero: error: found a character device; expected a readable Chrome trace (.json or "
      ".json.gz)");
  EXPECT_EQ(read_chrome_trace_file(dir.string()).message(),
            dir.string() +
                ": error: found a folder; expected a readable Chrome trace (.json or .json.gz)");
  std::filesystem::remove_all(dir);
}

TEST(ChromeTrace, GzipRoundTripGivesAnEqualTrace) {
  std::ostringstream os;
  ASSERT_TRUE(write_chrome_trace_gzip(sample_trace(), os).is_ok());
  const std::string gz = os.str();
  ASSERT_GE(gz.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(gz[0]), 0x1f);  // gzip's magic
  EXPECT_EQ(static_cast<unsigned char>(gz[1]), 0x8b);
  std::istringstream in(gz);
  auto back = read_chrome_trace(in, "t.json.gz");
  ASSERT_TRUE(back.is_ok()) << back.message();
  expect_equal(sample_trace(), *back);
  // The file form: .gz by its name when written, by its bytes when read.
  const auto dir =
      std::filesystem::temp_directory_path() / ("brigade_gz_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "t.json.gz").string();
  ASSERT_TRUE(write_chrome_trace_file(sample_trace(), path).is_ok());
  std::ifstream f(path, std::ios::binary);
  std::stringstream bytes;
  bytes << f.rdbuf();
  EXPECT_EQ(bytes.str(), gz);  // deterministic, compressed too
  auto from_file = read_chrome_trace_file(path);
  ASSERT_TRUE(from_file.is_ok()) << from_file.message();
  expect_equal(sample_trace(), *from_file);
  std::filesystem::remove_all(dir);
}

TEST(ChromeTrace, TruncatedGzipIsNamed) {
  std::ostringstream os;
  ASSERT_TRUE(write_chrome_trace_gzip(sample_trace(), os).is_ok());
  std::istringstream in(os.str().substr(0, os.str().size() / 2));
  auto t = read_chrome_trace(in, "cut.json.gz");
  ASSERT_FALSE(t.is_ok());
  EXPECT_EQ(
      t.message(),
      "cut.json.gz: error: found truncated gzip data (the stream ends inside a member); expected "
      "a gzip-compressed Chrome trace");
}

TEST(ChromeTrace, TimesAreExactMicrosecondDecimals) {
  // ts = the span's start moved 6 places, ts + dur (in decimal) its end:
  // viewers see exact microseconds, and no "start_s"/"end_s" is needed.
  const std::string text = to_json(sample_trace());
  // Task 1's span: [0.1, 1/3] s.
  EXPECT_NE(text.find("\"ts\":100000,\"dur\":233333.3333333333,\"args\":{\"i\":1,\"task\":1,"),
            std::string::npos)
      << text;
  const auto j = nlohmann::json::parse(text);
  int spans = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++spans;
    EXPECT_FALSE(e["args"].contains("start_s"));
  }
  EXPECT_EQ(spans, 4 + 3);  // the spans and the host slices, exact alike
  EXPECT_EQ(j["brigade"]["format"], 3);
  EXPECT_EQ(j["brigade"]["device_names"], (nlohmann::json{"gpu0", "node1/gpu1"}));
}

TEST(ChromeTrace, FilterTravelsInTheHeader) {
  Trace t = sample_trace();
  t.filter = "devices 0-1; window 0 s to 1.00 s";
  std::istringstream in(to_json(t));
  auto back = read_chrome_trace(in, "f.json");
  ASSERT_TRUE(back.is_ok()) << back.message();
  EXPECT_EQ(back->filter, t.filter);
  expect_equal(t, *back);
}

TEST(ChromeTrace, ReadsFormatOneFilesExactly) {
  // What the writer wrote before format 2: exact seconds and indices in args,
  // names of every device and stream as metadata events.
  std::istringstream in(
      R"({"displayTimeUnit":"ns","brigade":{"format":1,"source":"sim:flow","program":"p","devices":2,"names":["a","b"],"lanes":["gpu0->sw"]},
"traceEvents":[
{"ph":"M","name":"process_name","pid":0,"tid":0,"args":{"name":"gpu0"}},
{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"gpu1"}},
{"ph":"M","name":"thread_name","pid":0,"tid":0,"args":{"name":"compute"}},
{"ph":"M","name":"process_name","pid":2,"tid":0,"args":{"name":"network"}},
{"ph":"C","name":"memory:params","pid":0,"tid":0,"ts":0,"args":{"bytes":5},"exact":{"i":0,"t_s":0}},
{"ph":"X","name":"b","cat":"compute","pid":0,"tid":0,"ts":100000,"dur":233333.33333333331,"args":{"i":0,"task":3,"kind":"compute","phase":"bwd","collective":-1,"name_id":1,"start_s":0.1,"end_s":0.3333333333333333}},
{"ph":"b","name":"gpu0->sw","cat":"transfer","id":0,"pid":2,"tid":0,"ts":100000,"args":{"i":0,"task":3,"src":0,"dst":1,"bytes":64,"lane":0,"start_s":0.1,"end_s":0.2}},
{"ph":"e","name":"gpu0->sw","cat":"transfer","id":0,"pid":2,"tid":0,"ts":200000}
]})");
  auto t = read_chrome_trace(in, "old.json");
  ASSERT_TRUE(t.is_ok()) << t.message();
  EXPECT_EQ(t->device_names, (std::vector<std::string>{"gpu0", "gpu1"}));
  ASSERT_EQ(t->spans.size(), 1u);
  EXPECT_EQ(t->spans[0].end_seconds, 1.0 / 3);
  EXPECT_EQ(t->spans[0].phase, Phase::kBackward);
  EXPECT_EQ(t->spans[0].name, 1);
  ASSERT_EQ(t->transfers.size(), 1u);
  EXPECT_EQ(t->transfers[0].end_seconds, 0.2);
  EXPECT_EQ(t->transfers[0].lane, 0);
  ASSERT_EQ(t->memory.size(), 1u);
  EXPECT_EQ(t->memory[0].bytes, 5);
}

TEST(ChromeTrace, ForeignAsyncEndsCloseTheirBegins) {
  std::istringstream in(R"({"traceEvents":[
    {"ph":"b","name":"copy","cat":"dma","id":"0x10","pid":1,"tid":1,"ts":5},
    {"ph":"b","name":"copy","cat":"dma","id":"0x11","pid":1,"tid":1,"ts":6},
    {"ph":"e","name":"copy","cat":"dma","id":"0x11","pid":1,"tid":1,"ts":8},
    {"ph":"e","name":"copy","cat":"dma","id":"0x10","pid":1,"tid":1,"ts":9.5}
  ]})");
  auto t = read_chrome_trace(in, "dma.json");
  ASSERT_TRUE(t.is_ok()) << t.message();
  ASSERT_EQ(t->transfers.size(), 2u);
  EXPECT_EQ(t->transfers[0].start_seconds, 5e-6);
  EXPECT_EQ(t->transfers[0].end_seconds, 9.5e-6);
  EXPECT_EQ(t->transfers[1].end_seconds, 8e-6);
  EXPECT_EQ(t->transfers[1].lane, -1);
}

TEST(ChromeTrace, NonObjectEventsAreNamed) {
  std::istringstream a("[{\"ph\":\"X\"}, 7]");
  EXPECT_EQ(read_chrome_trace(a, "q.json").message(),
            "q.json: error: found event 1 of type number; expected an object");
  std::istringstream b("{\"traceEvents\": [[1]]}");
  EXPECT_EQ(read_chrome_trace(b, "r.json").message(),
            "r.json: error: found event 0 of type array; expected an object");
}

}  // namespace
// Events carry their index ("i"); a file may list them in any order, and no
// index read from it may size a list beyond the file's own events (the
// fuzzer's allocation-size-too-big of stop 22's CI).
TEST(ChromeTrace, IndicesInAnyOrderAndNoneBeyondTheEvents) {
  std::istringstream reversed(R"([
    {"ph":"X","name":"c","pid":0,"tid":0,"ts":3,"dur":1,"args":{"i":2}},
    {"ph":"X","name":"b","pid":0,"tid":0,"ts":2,"dur":1,"args":{"i":1}},
    {"ph":"X","name":"a","pid":0,"tid":0,"ts":1,"dur":1,"args":{"i":0}}
  ])");
  auto t = read_chrome_trace(reversed, "r.json");
  ASSERT_TRUE(t.is_ok()) << t.message();
  ASSERT_EQ(t->spans.size(), 3u);
  for (size_t i = 0; i < 3; ++i)
    EXPECT_EQ(t->names[static_cast<size_t>(t->spans[i].name)], std::string(1, char('a' + i)));

  std::istringstream huge(
      R"([{"ph":"X","name":"a","pid":0,"tid":0,"ts":1,"dur":1,"args":{"i":999999999999}}])");
  EXPECT_EQ(read_chrome_trace(huge, "h.json").message(),
            "h.json: error: found a gap at index 0 of the events' \"i\" numbering; expected every "
            "index once");
}

TEST(ChromeTrace, ProcessAndThreadIdsAreBounded) {
  std::istringstream pid(R"([{"ph":"X","name":"a","pid":4000000000000,"tid":0,"ts":1,"dur":1}])");
  EXPECT_EQ(read_chrome_trace(pid, "p.json").message(),
            "p.json: error: found \"pid\": 4000000000000 in event 0; expected a number from 0 "
            "to 4194304");
  std::istringstream tid(R"([{"ph":"M","name":"thread_name","pid":0,"tid":-3}])");
  EXPECT_NE(read_chrome_trace(tid, "t.json").message().find("found \"tid\": -3 in event 0"),
            std::string::npos);
}

TEST(ChromeTrace, SpansStayWithinTheHeadersLists) {
  std::istringstream in(R"({"brigade":{"format":2,"devices":1,"device_names":["gpu0"],
    "streams":[[0,"compute"]]},"traceEvents":[
    {"ph":"X","name":"a","pid":0,"tid":1,"ts":1,"dur":1}]})");
  EXPECT_EQ(read_chrome_trace(in, "s.json").message(),
            "s.json: error: found a span on stream 1; expected an index below 1, the length of "
            "the header's \"streams\"");
}

}  // namespace brigade
