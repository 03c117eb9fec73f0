// A profiler's kernel record (core/kernel_summary.hpp): Nsight Systems'
// CSV summaries and PyTorch's profiler traces, their sums by name, steps and
// devices, and their errors (file, line, column; what was found, what was
// expected).
#include "core/kernel_summary.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/gzip_stream.hpp"
#include "core/trace.hpp"

namespace brigade {
namespace {

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "/kernel_summary_" + std::to_string(::getpid()) + "_" + name;
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

// Two tables as nsys writes them with --format csv (kernels, then memory
// operations), a banner before them, names quoted with commas and quotes
// inside, one name twice (summed).
const char* kNsys =
    "Processing [report.sqlite] with [cuda_gpu_kern_sum.py]...\n"
    "\n"
    "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
    "61.5,4000000,40,100000.0,100000.0,90000,110000,1000.0,"
    "sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x128x128\n"
    "20.0,1300000,20,65000.0,65000.0,60000,70000,100.0,\"void flash_fwd_kernel<Traits<128, 64>, "
    "\"\"x\"\">(Flash_fwd_params)\"\n"
    "10.0,650000,4,162500.0,162500.0,1,2,3.0,ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)\n"
    "8.5,550000,20,27500.0,27500.0,1,2,3.0,"
    "sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x128x128\n"
    "\n"
    "Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation\n"
    "100.0,20000,8,2500.0,2500.0,2000,3000,10.0,[CUDA memcpy Device-to-Device]\n";

TEST(KernelSummary, NsysTablesSummedByName) {
  auto m = parse_nsys_kernel_summary(kNsys, "k.csv");
  ASSERT_TRUE(m.is_ok()) << m.message();
  EXPECT_EQ(m->format, "nsys");
  EXPECT_EQ(m->steps, 0);
  EXPECT_TRUE(m->devices.empty());
  ASSERT_EQ(m->kernels.size(), 4u);
  EXPECT_EQ(m->kernels[0].name, "sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n_tilesize128x128x128");
  EXPECT_DOUBLE_EQ(m->kernels[0].seconds, 4.55e-3);  // 4,000,000 + 550,000 ns
  EXPECT_DOUBLE_EQ(m->kernels[0].count, 60);
  EXPECT_EQ(m->kernels[1].name, "void flash_fwd_kernel<Traits<128, 64>, \"x\">(Flash_fwd_params)");
  EXPECT_DOUBLE_EQ(m->kernels[1].seconds, 1.3e-3);
  EXPECT_EQ(m->kernels[3].name, "[CUDA memcpy Device-to-Device]");
  EXPECT_DOUBLE_EQ(m->kernels[3].seconds, 2e-5);
  EXPECT_DOUBLE_EQ(m->kernels[3].count, 8);
}

// nsys --timeunit: the header says the unit; CRLF line ends.
TEST(KernelSummary, NsysTimeUnitFromTheHeader) {
  auto m = parse_nsys_kernel_summary(
      "Time (%),Total Time (us),Instances,Name\r\n50,1500,3,k1\r\n50,1500,3,k2\r\n", "u.csv");
  ASSERT_TRUE(m.is_ok()) << m.message();
  ASSERT_EQ(m->kernels.size(), 2u);
  EXPECT_DOUBLE_EQ(m->kernels[0].seconds, 1.5e-3);
  EXPECT_EQ(m->kernels[1].name, "k2");
}

TEST(KernelSummary, NsysErrorsNameLineAndColumn) {
  const std::string header = "Time (%),Total Time (ns),Instances,Name\n";
  auto bad_total = parse_nsys_kernel_summary(header + "1,12x,3,k\n", "a.csv");
  ASSERT_FALSE(bad_total.is_ok());
  EXPECT_EQ(bad_total.message(),
            "a.csv:2:3: error: found '12x'; expected the total time, a number >= 0");
  auto bad_count = parse_nsys_kernel_summary(header + "1,12,2.5,k\n", "a.csv");
  ASSERT_FALSE(bad_count.is_ok());
  EXPECT_EQ(bad_count.message(),
            "a.csv:2:6: error: found '2.5'; expected the instances, a whole number >= 0");
  auto negative = parse_nsys_kernel_summary(header + "1,-4,2,k\n", "a.csv");
  ASSERT_FALSE(negative.is_ok());
  EXPECT_EQ(negative.message(),
            "a.csv:2:3: error: found '-4'; expected the total time, a number >= 0");
  auto short_row = parse_nsys_kernel_summary(header + "1,12\n", "a.csv");
  ASSERT_FALSE(short_row.is_ok());
  EXPECT_EQ(short_row.message(),
            "a.csv:2:5: error: found 2 fields; expected 4 (the header's columns)");
  auto open_quote = parse_nsys_kernel_summary(header + "1,12,2,\"void f<a, b>\n", "a.csv");
  ASSERT_FALSE(open_quote.is_ok());
  EXPECT_EQ(open_quote.message(),
            "a.csv:2:21: error: found a quoted field left open; expected its closing quote");
  auto none = parse_nsys_kernel_summary("kernel,seconds\nk,1\n", "b.csv");
  ASSERT_FALSE(none.is_ok());
  EXPECT_EQ(none.message(),
            "b.csv: error: found no kernel row under a header with \"Total Time\", \"Instances\" "
            "and \"Name\"; expected Nsight Systems' kernel summary (nsys stats --report "
            "cuda_gpu_kern_sum --format csv) or PyTorch's profiler trace (.json, .json.gz)");
}

// A header again without a blank line before it starts a new table; a unit
// nsys does not write is refused where the header names it; a sum that
// overflows is refused at the row that makes it.
TEST(KernelSummary, NsysHeadersUnitsAndOverflow) {
  auto again = parse_nsys_kernel_summary(
      "Time (%),Total Time (ns),Instances,Name\n1,1000,1,k1\n"
      "Time (%),Total Time (us),Instances,Name\n1,2,1,k2\n",
      "r.csv");
  ASSERT_TRUE(again.is_ok()) << again.message();
  ASSERT_EQ(again->kernels.size(), 2u);
  EXPECT_DOUBLE_EQ(again->kernels[1].seconds, 2e-6);
  auto micro = parse_nsys_kernel_summary(
      "Time (%),Total Time (\xc2\xb5s),Instances,Name\n1,3,1,k\n", "m.csv");
  ASSERT_TRUE(micro.is_ok()) << micro.message();
  EXPECT_DOUBLE_EQ(micro->kernels[0].seconds, 3e-6);
  auto unit =
      parse_nsys_kernel_summary("Time (%),Total Time (ks),Instances,Name\n1,3,1,k\n", "u.csv");
  ASSERT_FALSE(unit.is_ok());
  EXPECT_EQ(unit.message(),
            "u.csv:1:10: error: found 'ks'; expected a time unit of ns, us, ms or s in the total "
            "time's column");
  auto big = parse_nsys_kernel_summary(
      "Time (%),Total Time (s),Instances,Name\n1,1e308,1,k\n1,1e308,1,k\n", "b.csv");
  ASSERT_FALSE(big.is_ok());
  EXPECT_EQ(big.message(),
            "b.csv:3:3: error: found '1e308'; expected a total time its kernel's sum can take (the "
            "sum is no longer a finite number)");
}

// PyTorch's profiler trace as Kineto writes it: CPU ops, two steps'
// annotations (on the CPU and again on the GPU), kernels with args.device,
// a copy, a kernel of another device.
const char* kKineto = R"js({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
  "traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#4", "pid": 1234, "tid": 1234,
     "ts": 0, "dur": 9000},
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#5", "pid": 1234, "tid": 1234,
     "ts": 9000, "dur": 9000},
    {"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#4", "pid": 0, "tid": 7,
     "ts": 10, "dur": 8000},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1234, "tid": 1234, "ts": 5,
     "dur": 30, "args": {"External id": 3}},
    {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n", "pid": 0,
     "tid": 7, "ts": 20, "dur": 1500.5, "args": {"device": 0, "stream": 7, "grid": [1, 2, 3]}},
    {"ph": "X", "cat": "kernel", "name": "sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n", "pid": 0,
     "tid": 7, "ts": 9020, "dur": 1499.5, "args": {"device": 0, "stream": 7}},
    {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0,
     "tid": 7, "ts": 3000, "dur": 25, "args": {"device": 0}},
    {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(x)",
     "pid": 1, "tid": 20, "ts": 40, "dur": 600, "args": {"device": 1}},
    {"ph": "f", "cat": "ac2g", "name": "launch", "pid": 0, "tid": 7, "ts": 20, "id": 3}
  ]
})js";

TEST(KernelSummary, KinetoKernelsStepsAndDevices) {
  std::istringstream in(kKineto);
  auto m = read_kineto_kernels(in, "t.json");
  ASSERT_TRUE(m.is_ok()) << m.message();
  EXPECT_EQ(m->format, "kineto");
  EXPECT_EQ(m->steps, 2);
  EXPECT_EQ(m->devices, (std::vector<int>{0, 1}));
  ASSERT_EQ(m->kernels.size(), 3u);
  EXPECT_EQ(m->kernels[0].name, "sm90_xmma_gemm_e4m3bf16_e4m3f32_f32_tn_n");
  EXPECT_DOUBLE_EQ(m->kernels[0].seconds, 3000e-6);
  EXPECT_DOUBLE_EQ(m->kernels[0].count, 2);
  EXPECT_EQ(m->kernels[1].name, "Memcpy DtoD (Device -> Device)");
  EXPECT_DOUBLE_EQ(m->kernels[1].seconds, 25e-6);

  std::istringstream again(kKineto);
  auto one = read_kineto_kernels(again, "t.json", 1);
  ASSERT_TRUE(one.is_ok()) << one.message();
  ASSERT_EQ(one->kernels.size(), 1u);
  EXPECT_EQ(one->devices, (std::vector<int>{1}));
  EXPECT_DOUBLE_EQ(one->kernels[0].seconds, 600e-6);
}

// A trace that is a bare array of events, gzip-compressed, the device from
// pid (no args.device).
TEST(KernelSummary, KinetoArrayGzipped) {
  std::ostringstream packed;
  {
    GzipWriteBuf gz(packed);
    std::ostream out(&gz);
    out << R"([{"ph":"X","cat":"Kernel","name":"ampere_sgemm_128x64_tn","pid":3,"tid":7,)"
        << R"("ts":1,"dur":2}])";
    out.flush();
    ASSERT_TRUE(gz.finish().is_ok());
  }
  std::istringstream in(packed.str());
  auto m = read_kineto_kernels(in, "t.json.gz");
  ASSERT_TRUE(m.is_ok()) << m.message();
  EXPECT_EQ(m->steps, 0);
  EXPECT_EQ(m->devices, (std::vector<int>{3}));
  ASSERT_EQ(m->kernels.size(), 1u);
  EXPECT_DOUBLE_EQ(m->kernels[0].seconds, 2e-6);
}

// Objects of a top-level array after "traceEvents" are not events.
TEST(KernelSummary, KinetoReadsTraceEventsOnly) {
  std::istringstream in(
      R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "dur": 2}],)"
      R"( "other": [{"ph": "X", "cat": "kernel", "name": "flash_fwd", "pid": 1, "dur": 1000}]})");
  auto m = read_kineto_kernels(in, "t.json");
  ASSERT_TRUE(m.is_ok()) << m.message();
  ASSERT_EQ(m->kernels.size(), 1u);
  EXPECT_EQ(m->devices, (std::vector<int>{0}));
}

TEST(KernelSummary, KinetoErrors) {
  std::istringstream broken("{\"traceEvents\": [\n  {\"ph\": \"X\",, }\n]}");
  auto bad = read_kineto_kernels(broken, "b.json");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.message(),
            "b.json:2:14: error: found invalid JSON; expected PyTorch's profiler trace (Chrome "
            "trace JSON)");
  std::istringstream cpu_only(
      R"({"traceEvents": [{"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "dur": 3}]})");
  auto none = read_kineto_kernels(cpu_only, "c.json");
  ASSERT_FALSE(none.is_ok());
  EXPECT_EQ(none.message(),
            "c.json: error: found no kernel event (complete events of category \"kernel\", "
            "\"gpu_memcpy\" or \"gpu_memset\"); expected PyTorch's profiler trace of GPU work "
            "(torch.profiler with ProfilerActivity.CUDA)");
  std::istringstream other_device(kKineto);
  auto absent = read_kineto_kernels(other_device, "t.json", 5);
  ASSERT_FALSE(absent.is_ok());
  EXPECT_NE(absent.message().find("found no device-5 kernel event"), std::string::npos)
      << absent.message();
}

// The format from the first bytes; leading blank lines kept in the count of
// lines; a FIFO refused without waiting for a writer.
TEST(KernelSummary, FilesByTheirFirstBytes) {
  const std::string csv = write_file("k.csv", kNsys);
  auto n = read_measured_kernels(csv);
  ASSERT_TRUE(n.is_ok()) << n.message();
  EXPECT_EQ(n->format, "nsys");
  auto with_device = read_measured_kernels(csv, 0);
  ASSERT_FALSE(with_device.is_ok());
  EXPECT_NE(with_device.message().find("found Nsight Systems' summary with a device asked for"),
            std::string::npos);
  const std::string bom = write_file("bom.json", std::string("\xef\xbb\xbf") + kKineto);
  auto with_bom = read_measured_kernels(bom);
  ASSERT_TRUE(with_bom.is_ok()) << with_bom.message();
  EXPECT_EQ(with_bom->format, "kineto");
  std::remove(bom.c_str());
  const std::string json = write_file("t.json", std::string("\n\n") + kKineto);
  auto k = read_measured_kernels(json);
  ASSERT_TRUE(k.is_ok()) << k.message();
  EXPECT_EQ(k->format, "kineto");
  const std::string broken = write_file("b.json", "\n\n{\"traceEvents\": [ x ]}");
  auto bad = read_measured_kernels(broken);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.message().substr(0, broken.size() + 5), broken + ":3:19");
  const std::string fifo = temp_path("fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto refused = read_measured_kernels(fifo);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.message().find("found a FIFO"), std::string::npos) << refused.message();
  for (const std::string& p : {csv, json, broken, fifo}) std::remove(p.c_str());
}

// Brigade's own trace (brigade execute --trace): told from PyTorch's by its
// "brigade" header, plain or gzip, and read whole by the trace reader (its
// task ids); the Kineto reader alone says what it found.
TEST(KernelSummary, BrigadeTraceByItsHeader) {
  Trace t;
  t.source = "cuda";
  t.program = "p";
  t.device_names = {"gpu0", "gpu1"};
  t.streams = {{0, "compute"}, {1, "compute"}};
  const NameId a = t.intern("attn.qkv");
  const NameId c = t.intern("attn.allreduce");
  t.spans.push_back(TraceSpan{0, 0, 0, 0.0, 0.25, a});
  t.spans.push_back(TraceSpan{1, 1, 1, 0.0, 0.5, a});
  TraceSpan coll{2, 0, 0, 0.25, 0.375, c};
  coll.kind = TaskKind::kCollective;
  t.spans.push_back(coll);
  for (const std::string name : {"b.json", "b.json.gz"}) {
    const std::string path = temp_path(name);
    ASSERT_TRUE(write_chrome_trace_file(t, path).is_ok());
    auto m = read_measured_kernels(path);
    ASSERT_TRUE(m.is_ok()) << m.message();
    EXPECT_EQ(m->format, "brigade");
    EXPECT_EQ(m->source, "cuda");
    EXPECT_EQ(m->program, "p");
    EXPECT_EQ(m->steps, 1);
    EXPECT_EQ(m->devices, (std::vector<int>{0, 1}));
    ASSERT_EQ(m->kernels.size(), 3u);
    EXPECT_EQ(m->kernels[0].name, "attn.qkv");
    EXPECT_EQ(m->kernels[0].task, 0);
    EXPECT_DOUBLE_EQ(m->kernels[0].seconds, 0.25);
    EXPECT_EQ(m->kernels[1].device, 1);
    auto one = read_measured_kernels(path, 1);
    ASSERT_TRUE(one.is_ok()) << one.message();
    ASSERT_EQ(one->kernels.size(), 1u);
    EXPECT_DOUBLE_EQ(one->kernels[0].seconds, 0.5);
    auto none = read_measured_kernels(path, 7);
    ASSERT_FALSE(none.is_ok());
    EXPECT_EQ(none.message(), path +
                                  ": error: found no span of device 7 in Brigade's trace; "
                                  "expected a trace of a step (brigade execute --trace, brigade "
                                  "simulate --trace)");
    std::ifstream in(path, std::ios::binary);
    auto kineto = read_kineto_kernels(in, path);
    ASSERT_FALSE(kineto.is_ok());
    EXPECT_NE(kineto.message().find("found Brigade's own trace"), std::string::npos);
    std::remove(path.c_str());
  }
}

// Brigade's header wherever it stands in the top-level object (a tool
// that rewrites the file, jq, may put it after the events); a window of
// the step refused (a trace filtered to some devices keeps their steps
// whole: read).
TEST(KernelSummary, BrigadeTraceHeaderAnywhereAndWindowsRefused) {
  Trace t;
  t.source = "sim:flow";
  t.program = "p";
  t.device_names = {"gpu0"};
  t.streams = {{0, "compute"}};
  t.spans.push_back(TraceSpan{0, 0, 0, 0.0, 0.25, t.intern("attn.qkv")});
  const std::string path = temp_path("h.json");
  ASSERT_TRUE(write_chrome_trace_file(t, path).is_ok());
  std::string text;
  {
    std::ifstream in(path);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const nlohmann::ordered_json whole = nlohmann::ordered_json::parse(text);
  nlohmann::ordered_json after;
  after["traceEvents"] = whole["traceEvents"];
  after["brigade"] = whole["brigade"];
  const std::string moved = write_file("after.json", after.dump(1));
  auto m = read_measured_kernels(moved);
  ASSERT_TRUE(m.is_ok()) << m.message();
  EXPECT_EQ(m->format, "brigade");
  EXPECT_DOUBLE_EQ(m->kernels.at(0).seconds, 0.25);

  t.filter = "devices 0";
  ASSERT_TRUE(write_chrome_trace_file(t, path).is_ok());
  auto devices = read_measured_kernels(path);
  ASSERT_TRUE(devices.is_ok()) << devices.message();
  t.filter = "devices 0; window 0 s to 50.0 ms";
  ASSERT_TRUE(write_chrome_trace_file(t, path).is_ok());
  auto window = read_measured_kernels(path);
  ASSERT_FALSE(window.is_ok());
  EXPECT_EQ(window.message(), path +
                                  ": error: found a trace of part of the step (its filter: "
                                  "'devices 0; window 0 s to 50.0 ms'); expected a whole step's "
                                  "trace (written without --trace-window)");
  std::remove(path.c_str());
  std::remove(moved.c_str());
}

// Spans that share a task id but not its device or name stay apart (so
// that the plan's check sees each), as do spans with no task.
TEST(KernelSummary, BrigadeSpansApartByTaskDeviceAndName) {
  Trace t;
  t.device_names = {"gpu0", "gpu1"};
  const NameId a = t.intern("a"), b = t.intern("b");
  t.spans.push_back(TraceSpan{3, 0, 0, 0.0, 1.0, a});
  t.spans.push_back(TraceSpan{3, 1, 0, 0.0, 2.0, a});   // another device
  t.spans.push_back(TraceSpan{3, 0, 0, 1.0, 4.0, b});   // another name
  t.spans.push_back(TraceSpan{3, 0, 0, 4.0, 8.0, a});   // the first again: summed
  t.spans.push_back(TraceSpan{-1, 0, 0, 8.0, 9.0, b});  // no task
  const MeasuredKernels m = measured_kernels_of_trace(t);
  ASSERT_EQ(m.kernels.size(), 4u);
  EXPECT_DOUBLE_EQ(m.kernels[0].seconds, 5.0);
  EXPECT_DOUBLE_EQ(m.kernels[0].count, 2);
  EXPECT_EQ(m.kernels[1].device, 1);
  EXPECT_EQ(m.kernels[2].name, "b");
  EXPECT_EQ(m.kernels[3].task, -1);
}

}  // namespace
}  // namespace brigade
