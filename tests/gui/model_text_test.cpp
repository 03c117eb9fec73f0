// The texts gui/model composes (issue 17, Chinese everywhere in the app):
// with the app's translator installed (set_ui_language, gui/views/language.cpp)
// each comes out in Chinese in zh and in English in en, numbers and plural
// forms right; the views that keep one (the main window's summary line, the
// timeline's rows and details) compose it again when the language switches.
// The Chinese strings are written out here by hand, from the .ts entries.
#include <functional>
#include <string>

#include <gtest/gtest.h>
#include <QApplication>
#include <QLabel>
#include <QScrollBar>
#include <QTextBrowser>

#include "core/run_compare.hpp"
#include "core/scenario.hpp"
#include "core/trace_filter.hpp"
#include "costmodel/plan.hpp"
#include "gui/app/main_window.hpp"
#include "gui/app/session.hpp"
#include "gui/model/calibration_plots.hpp"
#include "gui/model/compare.hpp"
#include "gui/model/lane_layout.hpp"
#include "gui/model/loader.hpp"
#include "gui/model/memory_series.hpp"
#include "gui/model/model_tr.hpp"
#include "gui/model/span_details.hpp"
#include "gui/model/whatif.hpp"
#include "gui/views/export.hpp"
#include "gui/views/language.hpp"
#include "gui/views/teach_view.hpp"
#include "gui/views/timeline_canvas.hpp"
#include "gui/views/timeline_view.hpp"
#include "planner/lower.hpp"
#include "tests/gui/gui_run.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

// pmap_train_step on 4 host threads (tests/gui/model/span_details_test.cpp
// gives its spans' English details).
const Document& pmap() {
  static const DocumentPtr doc = load_document(kSrc + "/scenarios/pmap_train_step.yaml").value();
  return *doc;
}

int span_named(const Document& d, const std::string& name, int device) {
  for (size_t i = 0; i < d.trace->spans.size(); ++i) {
    const TraceSpan& s = d.trace->spans[i];
    if (s.device == device && d.trace->names[static_cast<size_t>(s.name)] == name)
      return static_cast<int>(i);
  }
  ADD_FAILURE() << name << " on " << device;
  return 0;
}

// The line of `key` (its English key, looked up in the current language)
// in a span's details, as "key: value".
std::string detail(const std::string& span, int device, const char* key) {
  const SpanDetails d = describe_span(pmap(), span_named(pmap(), span, device));
  const std::string k = model_tr("SpanDetails", key);
  for (const DetailLine& l : d.lines)
    if (l.key == k) return l.key + ": " + l.value;
  return "(no line " + k + ")";
}

// A trace of one span on "gpu0", stream "s", and of unnamed devices and
// streams over two nodes (the timeline's rows are labelled by number).
DocumentPtr small_trace() {
  Trace t;
  t.device_names = {"gpu0"};
  t.streams = {{0, "s"}};
  t.names = {"k"};
  TraceSpan s;
  s.name = 0;
  s.end_seconds = 1e-3;
  t.spans.push_back(s);
  return document_from_trace(std::move(t), "x.json");
}

// One span on each of two devices on nodes 0 and 1 (by their names), on
// streams unnamed and "comm".
Trace two_nodes() {
  Trace t;
  t.device_names = {"node0/gpu0", "node1/gpu0"};
  t.streams = {{0, ""}, {1, "comm"}};
  t.names = {"k"};
  for (int s = 0; s < 2; ++s) {
    TraceSpan x;
    x.name = 0;
    x.device = s;
    x.stream = s;
    x.end_seconds = 1e-3;
    t.spans.push_back(x);
  }
  return t;
}

std::vector<std::string> lane_labels() {
  const Trace t = two_nodes();
  const TraceIndex index = TraceIndex::build(t, nullptr);
  LaneLayout l;
  l.build(t, index, nullptr);
  std::vector<std::string> out;
  for (const LaneRow& r : l.rows()) out.push_back(r.label);
  return out;
}

RunComparison comparison() {
  RunComparison c;
  c.a.program = c.b.program = "dp2";
  c.a.source = "sim:flow";
  c.b.source = "cost";
  c.a.step_seconds = 7e-3;
  c.b.step_seconds = 10e-3;
  c.a.devices.resize(2);
  c.b.devices.resize(1);
  return c;
}

Judgement judgement(int over, int oom) {
  Judgement j;
  j.devices.resize(4);
  j.devices_over_memory = over;
  j.oom_devices = oom;
  return j;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : " | ") + x;
  return s;
}

std::string oom_task(TaskId task, bool with_program) {
  sim::SimResult r;
  sim::OomEvent e;
  e.device = 0;
  e.task = task;
  r.oom.push_back(e);
  MemoryStack stack;
  stack.device = 0;
  const auto m = oom_mark(r, with_program ? pmap().program() : nullptr, stack);
  return m ? m->task : "(no mark)";
}

// Prose composed below gui/ (core/tr.hpp's tr_text): the planner's chef
// roles and collective reasons, the closed form's warnings, compare's
// differences, a trace's filter.
Scenario scenario(const std::string& file) {
  return load_scenario(kSrc + "/scenarios/" + file).value();
}

planner::Plan lowered(const std::string& file) {
  return planner::lower(scenario(file)).value();
}

// Why the plan needs its `index`-th collective.
std::string reason_of(const std::string& file, size_t index) {
  const planner::Plan p = lowered(file);
  return index < p.program.collectives().size() ? p.program.collectives()[index].reason
                                                : "(no collective)";
}

std::string no_strategy_warning() {
  Scenario s = scenario("lessons/06-peak-memory.yaml");
  s.has_strategy = false;
  s.strategy = StrategySpec{};
  return joined(cost::plan_warnings(s));
}

std::string differences() {
  const RunComparison c = comparison();
  RunFigures b = c.b;
  b.source = "cpu";
  b.program = "dp4";
  return joined(compare_runs(c.a, b).differences);
}

struct TextCase {
  const char* name;
  std::function<std::string()> compose;
  const char* en;
  const char* zh;
};

void PrintTo(const TextCase& c, std::ostream* os) {
  *os << c.name;
}

struct Language {  // the test ends in English, whatever it switched to
  explicit Language(Lang l) { EXPECT_TRUE(set_ui_language(l)); }
  ~Language() { set_ui_language(Lang::kEn); }
};

class ModelText : public testing::TestWithParam<TextCase> {};

TEST_P(ModelText, InChineseInZhAndInEnglishInEn) {
  const TextCase& c = GetParam();
  {
    Language zh(Lang::kZh);
    EXPECT_EQ(c.compose(), c.zh);
  }
  Language en(Lang::kEn);
  EXPECT_EQ(c.compose(), c.en);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, ModelText,
    testing::Values(
        // The main window's summary line.
        TextCase{"DocumentNotes", [] { return joined(document_notes(pmap())); },
                 "24 tasks on 4 devices, granularity kernel",
                 "24 个任务，分布在 4 个设备上，粒度 kernel"},
        // The timeline's details panel: what a span waited for, and why.
        TextCase{"WaitedForNothing", [] { return detail("mm1", 0, "waited for"); },
                 "waited for: nothing: the first task of its stream, with no dependencies",
                 "等待的是: 无：它是所在流的第一个任务，没有依赖"},
        TextCase{"WaitedForStreamOrder",
                 [] { return describe_span(pmap(), span_named(pmap(), "loss", 2)).waited_for; },
                 "'mm1' — stream order: issued after it on the same stream (compute)",
                 "“mm1” — 流顺序：在同一个流（compute）上排在它之后发出"},
        TextCase{
            "WaitedForAKernel",
            [] { return describe_span(pmap(), span_named(pmap(), "grad psum", 1)).waited_for; },
            "'mm1.wgrad' — event: a kernel on stream 'compute' of this device",
            "“mm1.wgrad” — 事件：本设备流“compute”上的一个 kernel"},
        TextCase{
            "WaitedForACollective",
            [] { return describe_span(pmap(), span_named(pmap(), "optimizer.w1", 3)).waited_for; },
            "'grad psum' — the result of the AllReduce over 4 ranks",
            "“grad psum” — 4 个 rank 上 AllReduce 的结果"},
        TextCase{"DetailKind", [] { return detail("mm1", 0, "kind"); }, "kind: forward",
                 "种类: 前向"},
        TextCase{"DetailTask", [] { return detail("mm1", 0, "task"); }, "task: 0 (phase fwd)",
                 "任务: 0（阶段 fwd）"},
        TextCase{"DetailGemm", [] { return detail("mm1", 0, "op"); }, "op: GEMM 2 x 1 x 1 (f32)",
                 "操作: GEMM 2 x 1 x 1（f32）"},
        TextCase{"DetailCollective", [] { return detail("grad psum", 0, "op"); },
                 "op: allreduce (auto) over 4 ranks, f32",
                 "操作: allreduce（auto），4 个 rank，f32"},
        TextCase{"DetailCollectiveBytes", [] { return detail("grad psum", 0, "bytes"); },
                 "bytes: 4.00 B (nccl-tests size)", "字节数: 4.00 B（nccl-tests 的大小口径）"},
        // The status bar's and the tooltip's one line.
        TextCase{"SpanSummary", [] { return span_summary(*small_trace(), 0); },
                 "k — 1 ms (forward, gpu0/s)", "k — 1 ms（前向，gpu0/s）"},
        // The timeline's rows: nodes, and a stream without a name.
        TextCase{"LaneLabels", [] { return joined(lane_labels()); },
                 "node 0 | node0/gpu0 | stream 0 | node 1 | node1/gpu0 | comm",
                 "节点 0 | node0/gpu0 | 流 0 | 节点 1 | node1/gpu0 | comm"},
        // The memory view's OOM mark.
        TextCase{"OomResident", [] { return oom_task(-1, false); }, "resident buffers",
                 "常驻缓冲区"},
        TextCase{"OomTask", [] { return oom_task(0, true); }, "mm1 (task 0)", "mm1（任务 0）"},
        TextCase{"OomTaskUnnamed", [] { return oom_task(3, false); }, "task 3", "任务 3"},
        // The compare view's headers: a plural with 2 devices and with 1.
        TextCase{"CompareRunA", [] { return run_summary(comparison().a); },
                 "'dp2' · simulated (sim:flow) · 2 devices · step 7.00 ms",
                 "“dp2” · 模拟（sim:flow） · 2 个设备 · 单步 7.00 ms"},
        TextCase{"CompareRunB", [] { return run_summary(comparison().b); },
                 "'dp2' · closed form · 1 device · step 10.0 ms",
                 "“dp2” · 闭式模型 · 1 个设备 · 单步 10.0 ms"},
        // step 10 - 7 = +3 ms, 3 / 7 = +42.9%.
        TextCase{"CompareStep", [] { return step_summary(comparison()); },
                 "step: A 7.00 ms, B 10.0 ms, B - A +3.00 ms (+42.9%)",
                 "单步时间：A 7.00 ms，B 10.0 ms，B - A +3.00 ms（+42.9%）"},
        // The what-if panel's notes: 1 of 4 devices, and 1 or 2 devices.
        TextCase{"WhatIfDoesNotFit", [] { return joined(judgement(1, 0).notes()); },
                 "does not fit: 1 of 4 devices over their memory",
                 "放不下：4 个设备中有 1 个超出显存"},
        TextCase{"WhatIfOomOne", [] { return joined(judgement(0, 1).notes()); },
                 "out of memory on 1 device (the memory view shows where)",
                 "1 个设备显存不足（显存视图显示在何处）"},
        TextCase{"WhatIfOomTwo", [] { return joined(judgement(0, 2).notes()); },
                 "out of memory on 2 devices (the memory view shows where)",
                 "2 个设备显存不足（显存视图显示在何处）"},
        // The calibration view's plots.
        TextCase{"CalibrationTitles",
                 [] {
                   const Document& d = pmap();
                   const CalibrationPlots p = calibration_plots(
                       *d.hardware_profile(), d.topology(),
                       calibration_models(*d.hardware_profile(), d.topology()).front());
                   return p.gemm.title + " | " + p.memory.y_title + " | " + p.transfers.x_title +
                          " | " + p.collectives.y_title;
                 },
                 "GEMM efficiency (of each dtype's peak) against FLOP per GEMM | bandwidth "
                 "(bytes / kernel time) | bytes (log scale) | bus bandwidth",
                 "GEMM 效率（相对各 dtype 的峰值）随单个 GEMM 的 FLOP 的变化 | 带宽（字节数 / "
                 "kernel 时间） | 字节数（对数刻度） | 总线带宽"},
        // The teach view's chefs: each device's role in the plan.
        TextCase{"ChefRoleTransformer",
                 [] { return lowered("lessons/06-peak-memory.yaml").device_role[3]; },
                 "tensor 0/1, data 3/8, pipeline 0/1", "张量 0/1，数据 3/8，流水线 0/1"},
        TextCase{"ChefRoleCollective",
                 [] { return lowered("ring_allreduce_8.yaml").device_role[2]; }, "rank 2 of 8",
                 "rank 2（共 8 个）"},
        // The timeline's details: why the plan needs a collective.
        TextCase{"ReasonLoneCollective", [] { return reason_of("ring_allreduce_8.yaml", 0); },
                 "the scenario asks for one allreduce of 1073741824 bytes over 8 devices (ring)",
                 "场景要求在 8 台设备上做一次 1073741824 字节的 allreduce（ring）"},
        TextCase{"ReasonGradientBucket", [] { return reason_of("lessons/06-peak-memory.yaml", 0); },
                 "data parallel: average the gradients over 'data' (the sauce bowl) bucket by "
                 "bucket, each as soon as the backward has produced it; this bucket: layer "
                 "23/mlp.fc2",
                 "数据并行：经“data”轴逐桶平均梯度（大家一起倒进酱汁碗），反向一算出一个桶就倒"
                 "一个；这个桶：layer 23/mlp.fc2"},
        // The what-if panel's notes from the closed form, the scaling view's note.
        TextCase{"PlanWarningNoStrategy", [] { return no_strategy_warning(); },
                 "no strategy: the plan uses 1 of the topology's 8 devices (strategy: {data: 8} "
                 "would use them all; `brigade search` looks for a strategy)",
                 "没有 strategy：方案只用了拓扑中 8 台设备里的 1 台（strategy: {data: 8} "
                 "会用上全部；`brigade search` 可以找一个策略）"},
        // The compare view's differences (core/run_compare).
        TextCase{"CompareDifferences", [] { return differences(); },
                 "different programs: 'dp2' and 'dp4' | different devices: 2 and 1 (2 in "
                 "common) | a prediction against a measurement (sim:flow, cpu)",
                 "程序不同：“dp2”与“dp4” | 设备不同：2 台与 1 台（共有 2 台） | "
                 "预测对实测（sim:flow，cpu）"},
        // The summary line's "recorded for" a trace's filter (core/trace_filter).
        TextCase{"TraceFilter",
                 [] { return trace_filter_text("devices 0-7,64; window 0 s to the end"); },
                 "devices 0-7,64; window 0 s to the end", "设备 0-7,64；时间窗 0 s 至 结束"},
        TextCase{"CalibrationNoSamples", [] { return no_samples_note(); },
                 "no samples in this profile: the fits alone",
                 "此硬件配置没有采样点：只有拟合结果"}),
    [](const testing::TestParamInfo<TextCase>& i) { return std::string(i.param.name); });

// Switching the language recomposes what the views keep: the main window's
// summary line, the timeline's row labels and the selected span's details
// (the planner's reason for a collective included), the teach view's head
// chef (the plan's summary) and chefs (their roles), without reopening.
TEST(ModelText, TheViewsComposeThemAgainWhenTheLanguageSwitches) {
  Language start(Lang::kEn);
  MainWindow w({}, /*remember=*/false);
  w.show();
  w.open_file(QString::fromStdString(kSrc + "/scenarios/pmap_train_step.yaml"));
  ASSERT_TRUE(w.session()->wait(60000));
  auto* summary = w.findChild<QLabel*>("summary");
  ASSERT_NE(summary, nullptr);
  EXPECT_TRUE(summary->text().contains("24 tasks on 4 devices")) << summary->text().toStdString();
  auto* timeline = static_cast<TimelineView*>(w.view("timeline"));
  ASSERT_NE(timeline, nullptr);
  timeline->find("grad psum");
  EXPECT_TRUE(timeline->details_text().contains("waited for"));
  // psum over 'data': the gradient of w1 sums over the batch, ...
  EXPECT_TRUE(timeline->details_text().contains("sums over the batch"))
      << timeline->details_text().toStdString();
  auto* teach = static_cast<TeachView*>(w.view("teach"));
  ASSERT_NE(teach, nullptr);
  ASSERT_NE(teach->scene(), nullptr);
  EXPECT_EQ(teach->scene()->summary, "MLP 1-1 (batch 8) on a mesh ('data': 4) of 4 devices");
  EXPECT_EQ(teach->scene()->chefs.at(1).role, "data 1/4");
  EXPECT_TRUE(teach->narration().contains("MLP 1-1 (batch 8) on a mesh"))
      << teach->narration().toStdString();

  set_ui_language(Lang::kZh);
  for (int i = 0; i < 3; ++i) QApplication::processEvents();
  EXPECT_TRUE(summary->text().contains(QString::fromUtf8("24 个任务，分布在 4 个设备上")))
      << summary->text().toStdString();
  const QString details = timeline->details_text();
  EXPECT_TRUE(details.contains(QString::fromUtf8("等待的是"))) << details.toStdString();
  EXPECT_TRUE(details.contains(QString::fromUtf8("4 个 rank"))) << details.toStdString();
  EXPECT_FALSE(details.contains("waited for")) << details.toStdString();
  EXPECT_TRUE(details.contains(QString::fromUtf8("经 'data' 轴 psum"))) << details.toStdString();
  EXPECT_FALSE(details.contains("sums over the batch")) << details.toStdString();
  EXPECT_EQ(teach->scene()->summary,
            "MLP 1-1（批大小 8），运行在 4 台设备组成的网格 ('data': 4) 上");
  EXPECT_EQ(teach->scene()->chefs.at(1).role, "data 轴 1/4");
  EXPECT_TRUE(teach->narration().contains(QString::fromUtf8("MLP 1-1（批大小 8），运行在")))
      << teach->narration().toStdString();
  // The picture, to look at: the details panel and the summary line in zh.
  w.resize(1600, 900);
  QApplication::processEvents();
  const QString picture = QString::fromStdString((out_dir() / "model_text_zh.png").string());
  ASSERT_TRUE(save_png(&w, picture).is_ok()) << picture.toStdString();

  set_ui_language(Lang::kEn);
  for (int i = 0; i < 3; ++i) QApplication::processEvents();
  EXPECT_TRUE(summary->text().contains("24 tasks on 4 devices")) << summary->text().toStdString();
  EXPECT_TRUE(timeline->details_text().contains("waited for"));
  EXPECT_TRUE(timeline->details_text().contains("sums over the batch"));
  EXPECT_EQ(teach->scene()->chefs.at(1).role, "data 1/4");
}

// The timeline's details panel in zh, to look at ($TMPDIR/brigade_gui_screens/
// timeline_details_zh.png): the selected psum's lines, every key and
// composed value in Chinese, nothing clipped.
TEST(ModelText, TheTimelinesDetailsInAPicture) {
  Language zh(Lang::kZh);
  TimelineView v;
  v.resize(1200, 1000);
  v.set_document(load_document(kSrc + "/scenarios/pmap_train_step.yaml").value());
  v.show();
  v.find("grad psum");
  QApplication::processEvents();
  const QString details = v.details_text();
  EXPECT_TRUE(details.contains(QString::fromUtf8("“mm1.wgrad” — 事件：本设备流“compute”上的一个 kernel")))
      << details.toStdString();
  const QString picture = QString::fromStdString((out_dir() / "timeline_details_zh.png").string());
  ASSERT_TRUE(save_png(&v, picture).is_ok()) << picture.toStdString();
}

// The details of a MoE's AllToAll and of a graph plan's resharding in zh,
// to look at ($TMPDIR/brigade_gui_screens/timeline_reason_<tag>_zh.png):
// the planner's reason in Chinese, no English sentence left.
TEST(ModelText, CollectiveReasonsInChineseInAPicture) {
  Language zh(Lang::kZh);
  struct Case {
    const char* scenario;
    const char* span;  // a name the timeline's find matches
    const char* reason;
    const char* tag;
  };
  for (const Case& c :
       {Case{"mixtral_8x7b_16gpu.yaml", "moe.dispatch.alltoall",
             "专家并行：经“expert”轴把每个 token 的 top-2 个副本发往持有其专家的 rank（共 8 "
             "个 rank，每个持有 1 个专家）",
             "moe"},
        Case{"sharded_mlp.yaml", "allreduce", "经 'model' 轴 psum：%1 的收缩维", "graph"}}) {
    SCOPED_TRACE(c.scenario);
    TimelineView v;
    v.resize(1200, 1000);
    auto doc = load_document(kSrc + "/scenarios/" + c.scenario);
    ASSERT_TRUE(doc.is_ok()) << doc.message();
    v.set_document(*doc);
    v.show();
    v.find(c.span);
    QApplication::processEvents();
    const QString details = v.details_text();
    EXPECT_TRUE(details.contains(QString::fromUtf8(c.reason).section("%1", 0, 0)))
        << details.toStdString();
    for (const char* english : {"expert parallel", "over 'expert'", "psum over", "is split over"})
      EXPECT_FALSE(details.contains(english)) << english << "\n" << details.toStdString();
    // The reason is the details' last row: scrolled into the picture.
    for (QTextBrowser* b : v.findChildren<QTextBrowser*>())
      b->verticalScrollBar()->setValue(b->verticalScrollBar()->maximum());
    const QString picture = QString::fromStdString(
        (out_dir() / ("timeline_reason_" + std::string(c.tag) + "_zh.png")).string());
    ASSERT_TRUE(save_png(&v, picture).is_ok()) << picture.toStdString();
  }
}

// A timeline canvas relabels its rows on LanguageChange.
TEST(ModelText, TheTimelineRowsAreRelabelled) {
  Language start(Lang::kEn);
  TimelineCanvas c;
  c.set_document(document_from_trace(two_nodes(), "x.json"));
  ASSERT_GT(c.layout().num_rows(), 0);
  EXPECT_EQ(c.layout().row(0).label, "node 0");
  EXPECT_EQ(c.layout().row(2).label, "stream 0");
  set_ui_language(Lang::kZh);
  for (int i = 0; i < 3; ++i) QApplication::processEvents();
  EXPECT_EQ(c.layout().row(0).label, "节点 0");
  EXPECT_EQ(c.layout().row(2).label, "流 0");
  set_ui_language(Lang::kEn);
  for (int i = 0; i < 3; ++i) QApplication::processEvents();
  EXPECT_EQ(c.layout().row(0).label, "node 0");
}

}  // namespace
}  // namespace brigade::gui
