// The kernels view, offscreen (gui/views/kernels_view.hpp): an open
// scenario by kernel group, a profiler's record beside it (its steps and
// GPUs as the record says, then as set), Brigade's own trace of the plan
// (the chosen device's spans), a record that cannot be read, and
// the picture (the groups' bars in both colours; saved for a look).
#include <gtest/gtest.h>
#include <QImage>
#include <QSpinBox>
#include <QTest>

#include <cstdio>

#include "core/trace.hpp"
#include "gui/model/loader.hpp"
#include "gui/views/kernels_view.hpp"
#include "tests/gui/gui_run.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;
const QString kNsys = QString::fromStdString(kSrc + "/tests/data/kernels/nsys_kern_sum.csv");
const QString kKineto = QString::fromStdString(kSrc + "/tests/data/kernels/kineto_trace.json");

const KernelGroupsLine* line(const KernelGroupsChart& c, const std::string& key) {
  for (const KernelGroupsLine& l : c.lines)
    if (l.key == key) return &l;
  return nullptr;
}

// Pixels of `rgb` in the picture (the bars' colours: Brigade's, the record's).
int pixels_of(const QImage& img, QRgb rgb) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x)
      if ((img.pixel(x, y) & 0xffffff) == (rgb & 0xffffff)) ++n;
  return n;
}

TEST(KernelsView, AScenarioThenARecordBesideIt) {
  auto doc = load_document(kSrc + "/tests/data/kernels/gpt_fp8_node.yaml");
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  KernelsView v;
  v.resize(1000, 640);
  v.show();
  EXPECT_TRUE(v.shows(**doc));
  v.set_document(*doc);
  ASSERT_FALSE(v.chart().lines.empty());
  EXPECT_TRUE(v.chart().record.empty());
  const QImage alone = v.grab().toImage();
  EXPECT_GT(pixels_of(alone, qRgb(0x4c, 0x78, 0xa8)), 1000);
  EXPECT_EQ(pixels_of(alone, qRgb(0xf5, 0x85, 0x18)), 0);

  // An nsys summary says nothing of its steps: 1 until set.
  ASSERT_TRUE(v.load_record(kNsys));
  EXPECT_DOUBLE_EQ(line(v.chart(), "gemm_fp8")->measured_seconds, 3e-3);
  v.set_steps(2);
  EXPECT_DOUBLE_EQ(line(v.chart(), "gemm_fp8")->measured_seconds, 1.5e-3);
  v.set_gpus(2);
  EXPECT_DOUBLE_EQ(line(v.chart(), "gemm_fp8")->measured_seconds, 0.75e-3);
  const QImage both = v.grab().toImage();
  EXPECT_GT(pixels_of(both, qRgb(0x4c, 0x78, 0xa8)), 1000);
  EXPECT_GT(pixels_of(both, qRgb(0xf5, 0x85, 0x18)), 500);
  both.save(QString::fromStdString((out_dir() / "kernels_view_record.png").string()));

  // A PyTorch trace gives its steps (2 annotations) and GPUs (1 device).
  ASSERT_TRUE(v.load_record(kKineto));
  auto spins = v.findChildren<QSpinBox*>();
  ASSERT_EQ(spins.size(), 3);
  EXPECT_EQ(spins[1]->value(), 2);
  EXPECT_EQ(spins[2]->value(), 1);
  EXPECT_TRUE(spins[1]->isEnabled());  // a profiler's record: its steps and GPUs can be set
  EXPECT_TRUE(spins[2]->isEnabled());
  EXPECT_DOUBLE_EQ(line(v.chart(), "gemm_fp8")->measured_seconds, 800e-6);
}

// "Profiler record…" reads on a thread of its own; the view shows the
// record when it is read, and a second read drops the first.
TEST(KernelsView, ARecordReadInTheBackground) {
  auto doc = load_document(kSrc + "/tests/data/kernels/gpt_fp8_node.yaml");
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  KernelsView v;
  v.set_document(*doc);
  v.read_record(kNsys);
  v.read_record(kKineto);
  ASSERT_TRUE(QTest::qWaitFor([&] { return !v.reading(); }, 10000));
  EXPECT_NE(v.chart().record.find("kineto_trace.json"), std::string::npos) << v.chart().record;
  EXPECT_DOUBLE_EQ(line(v.chart(), "gemm_fp8")->measured_seconds, 800e-6);
}

// Brigade's own trace of the plan (brigade execute --trace; here the
// document's simulated trace, written): one device at a time, the view's
// device choosing its spans.
TEST(KernelsView, BrigadeTraceFollowsTheChosenDevice) {
  auto doc = load_document(kSrc + "/tests/data/kernels/gpt_fp8_node.yaml");
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  const std::string path = (out_dir() / "kernels_view_brigade_record.json.gz").string();
  ASSERT_TRUE(write_chrome_trace_file(*(*doc)->trace, path).is_ok());
  KernelsView v;
  v.set_document(*doc);
  ASSERT_TRUE(v.load_record(QString::fromStdString(path)));
  auto spins = v.findChildren<QSpinBox*>();
  ASSERT_EQ(spins.size(), 3);
  EXPECT_EQ(spins[1]->value(), 1);  // one step
  EXPECT_EQ(spins[2]->value(), 1);  // one device of the trace's eight
  // Nothing to set: one step of one device, as brigade kernels has it.
  EXPECT_FALSE(spins[1]->isEnabled());
  EXPECT_FALSE(spins[2]->isEnabled());
  EXPECT_TRUE(v.chart().measured);
  const auto* fp8 = line(v.chart(), "gemm_fp8");
  ASSERT_NE(fp8, nullptr);
  EXPECT_NEAR(fp8->measured_seconds, fp8->simulated_seconds, 1e-12);
  v.set_device(5);
  EXPECT_NE(v.chart().record.find("its device gpu5"), std::string::npos) << v.chart().record;
  EXPECT_EQ(line(v.chart(), "gemm_fp8")->ratio, "1.00");
  // Another document (the plan at step granularity): the record is checked
  // against it when it opens, and said to be of another plan; the first
  // again, and it is beside it again.
  LoadOptions o;
  o.granularity = planner::Granularity::kStep;
  auto stepped = load_document(kSrc + "/tests/data/kernels/gpt_fp8_node.yaml", o);
  ASSERT_TRUE(stepped.is_ok()) << stepped.message();
  v.set_document(*stepped);
  EXPECT_FALSE(v.chart().measured);
  EXPECT_EQ(v.chart().record.rfind(path + ": error: found task ", 0), 0u) << v.chart().record;
  v.set_document(*doc);
  EXPECT_TRUE(v.chart().measured);
  std::remove(path.c_str());
}

// brigade-gui --screenshot --view kernels --record FILE: the step beside the
// record, pictured (both bars' colours); a Brigade trace of another plan or
// --record with another view: exit 2, one line.
TEST(KernelsView, ScreenshotWithARecord) {
  const QString plan = QString::fromStdString(kSrc + "/tests/data/kernels/gpt_fp8_node.yaml");
  const QString out = QString::fromStdString((out_dir() / "kernels_view_record_flag.png").string());
  const GuiRun ok = run_gui({"--screenshot", out, "--view", "kernels", "--record", kKineto, plan});
  ASSERT_EQ(ok.code, 0) << ok.err.toStdString();
  const QImage img(out);
  EXPECT_GT(pixels_of(img, qRgb(0x4c, 0x78, 0xa8)), 1000);
  EXPECT_GT(pixels_of(img, qRgb(0xf5, 0x85, 0x18)), 500);

  const std::string trace = (out_dir() / "kernels_view_other_plan.json").string();
  auto doc = load_document(kSrc + "/tests/data/kernels/gpt_fp8_node.yaml");
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  ASSERT_TRUE(write_chrome_trace_file(*(*doc)->trace, trace).is_ok());
  const GuiRun other = run_gui({"--screenshot", out, "--view", "kernels", "--granularity", "step",
                                "--record", QString::fromStdString(trace), plan});
  EXPECT_EQ(other.code, 2);
  EXPECT_TRUE(other.err.startsWith(QString::fromStdString(trace) + ": error: found task "))
      << other.err.toStdString();
  const GuiRun elsewhere =
      run_gui({"--screenshot", out, "--view", "timeline", "--record", kKineto, plan});
  EXPECT_EQ(elsewhere.code, 2);
  EXPECT_EQ(elsewhere.err,
            "brigade-gui: error: --record: found it with --view timeline; expected --view "
            "kernels\n");
  std::remove(trace.c_str());
}

TEST(KernelsView, ARecordThatCannotBeReadSaysWhyAndKeepsTheView) {
  auto doc = load_document(kSrc + "/tests/data/kernels/gpt_fp8_node.yaml");
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  KernelsView v;
  v.set_document(*doc);
  QString error;
  const QString bad = QString::fromStdString(kSrc + "/tests/data/kernels/gpt_fp8_node.yaml");
  EXPECT_FALSE(v.load_record(bad, &error));
  EXPECT_TRUE(error.startsWith(bad + ": error: found no kernel row")) << error.toStdString();
  EXPECT_TRUE(v.chart().record.empty());
  EXPECT_FALSE(v.chart().lines.empty());
}

}  // namespace
}  // namespace brigade::gui
