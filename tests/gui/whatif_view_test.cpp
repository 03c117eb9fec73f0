// The what-if panel, offscreen (gui/views/whatif_view.hpp): edits judged at
// once by the closed form and then by the simulator on its worker (the
// latest edit wins), an impossible plan's reason inline and never a
// dialog, saving, non-scenarios, and a picture of it.
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>

#include "core/plan_check.hpp"
#include "core/units.hpp"
#include "gui/model/loader.hpp"
#include "gui/views/export.hpp"
#include "gui/views/whatif_view.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

DocumentPtr open(const std::string& name) {
  auto r = load_document(kSrc + "/scenarios/" + name + ".yaml");
  EXPECT_TRUE(r.is_ok()) << r.message();
  return r.value();
}

TEST(WhatIfView, StartsAtTheDocumentsPlanWithBothJudges) {
  WhatIfView v;
  v.resize(1400, 600);
  v.show();
  const DocumentPtr doc = open("pmap_train_step");
  v.set_document(doc);
  EXPECT_EQ(v.edits(), starting_edits(*doc->scenario));
  ASSERT_NE(v.closed_form(), nullptr);
  ASSERT_NE(v.simulated(), nullptr);
  // The simulator's starting verdict is the document's own run.
  EXPECT_EQ(v.simulated()->step_seconds, doc->result->step_seconds);
  EXPECT_TRUE(v.reason_text().isEmpty());
  const std::string summary = v.summary_text().toStdString();
  EXPECT_NE(summary.find("step time"), std::string::npos) << summary;
  EXPECT_NE(summary.find("unchanged"), std::string::npos) << summary;
  auto* table = v.findChild<QTableWidget*>();
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->rowCount(), 1);  // the 4 devices alike
  EXPECT_EQ(table->item(0, 0)->text(), "0-3");
}

TEST(WhatIfView, AStragglerIsJudgedAtOnceThenSimulated) {
  WhatIfView v;
  v.resize(1400, 600);
  const DocumentPtr doc = open("pmap_train_step");
  v.set_document(doc);
  WhatIfEdits e = v.edits();
  e.speed[2] = 0.25;
  v.set_edits(e);
  ASSERT_NE(v.closed_form(), nullptr);  // at once, on this thread
  auto cf = judge_closed_form(*apply_edits(*doc->scenario, e));
  ASSERT_TRUE(cf.is_ok());
  EXPECT_EQ(v.closed_form()->step_seconds, cf->step_seconds);
  ASSERT_TRUE(v.wait_ready(60000));
  ASSERT_NE(v.simulated(), nullptr);
  auto sim = judge_simulated(*apply_edits(*doc->scenario, e), nullptr);
  ASSERT_TRUE(sim.is_ok());
  EXPECT_EQ(v.simulated()->step_seconds, sim->step_seconds);
  EXPECT_GT(v.simulated()->step_seconds, doc->result->step_seconds);
  // Both judges' step times, starting → edited.
  const std::string summary = v.summary_text().toStdString();
  EXPECT_NE(summary.find(format_seconds(doc->result->step_seconds) + " → <b>" +
                         format_seconds(sim->step_seconds) + "</b>"),
            std::string::npos)
      << summary;
  EXPECT_NE(summary.find(" → <b>" + format_seconds(cf->step_seconds) + "</b>"), std::string::npos)
      << summary;
}

// The host time per operation spin box (simulation.host_op_time, in us):
// turned to 2000 us, it becomes the edit (2 ms a kernel), both judges see
// it, and they agree (the op-graph judge's lanes are the simulator's).
TEST(WhatIfView, AHostTimePerOperationIsAnEditBothJudgesSee) {
  WhatIfView v;
  v.resize(1400, 600);
  const DocumentPtr doc = open("pmap_train_step");
  v.set_document(doc);
  QDoubleSpinBox* host = nullptr;
  for (QDoubleSpinBox* s : v.findChildren<QDoubleSpinBox*>())
    if (s->suffix() == " µs") host = s;
  ASSERT_NE(host, nullptr);
  EXPECT_EQ(host->value(), 0);
  host->setValue(2000);
  ASSERT_TRUE(v.edits().host_op_seconds.has_value());
  EXPECT_DOUBLE_EQ(*v.edits().host_op_seconds, 2e-3);
  ASSERT_NE(v.closed_form(), nullptr);
  ASSERT_TRUE(v.wait_ready(60000));
  ASSERT_NE(v.simulated(), nullptr);
  EXPECT_GT(v.closed_form()->step_seconds, doc->result->step_seconds + 2e-3);
  EXPECT_NEAR(v.simulated()->step_seconds, v.closed_form()->step_seconds,
              1e-9 * v.closed_form()->step_seconds);
  v.reset();
  EXPECT_EQ(host->value(), 0);
  EXPECT_FALSE(v.edits().host_op_seconds.has_value());
}

// The devices per host spin box (simulation.devices_per_host): up to the
// topology's devices; with a 2 ms host, one host for every device issues
// all their operations, so both judges' steps grow, and they still agree.
TEST(WhatIfView, DevicesPerHostIsAnEditBothJudgesSee) {
  WhatIfView v;
  v.resize(1400, 600);
  const DocumentPtr doc = open("pmap_train_step");
  v.set_document(doc);
  auto* per_host = v.findChild<QSpinBox*>("devices_per_host");
  ASSERT_NE(per_host, nullptr);
  const int n = doc->scenario->topology.num_devices();
  ASSERT_GE(n, 2);
  EXPECT_EQ(per_host->value(), 1);
  EXPECT_EQ(per_host->maximum(), n);
  WhatIfEdits e = v.edits();
  e.host_op_seconds = 2e-3;
  v.set_edits(e);
  ASSERT_TRUE(v.wait_ready(60000));
  ASSERT_NE(v.closed_form(), nullptr);
  const double own = v.closed_form()->step_seconds;
  per_host->setValue(n);
  EXPECT_EQ(v.edits().devices_per_host, n);
  ASSERT_TRUE(v.wait_ready(60000));
  ASSERT_NE(v.closed_form(), nullptr);
  ASSERT_NE(v.simulated(), nullptr);
  EXPECT_GT(v.closed_form()->step_seconds, own + (n - 1) * 2e-3);
  EXPECT_NEAR(v.simulated()->step_seconds, v.closed_form()->step_seconds,
              1e-9 * v.closed_form()->step_seconds);
  v.reset();
  EXPECT_EQ(per_host->value(), 1);
  EXPECT_EQ(v.edits().devices_per_host, 1);
}

TEST(WhatIfView, TheLatestOfManyQuickEditsWins) {
  WhatIfView v;
  const DocumentPtr doc = open("pmap_train_step");
  v.set_document(doc);
  QSlider* speed = nullptr;
  for (QSlider* s : v.findChildren<QSlider*>())
    if (s->minimum() == -200) speed = s;
  ASSERT_NE(speed, nullptr);
  // Dragging the device's speed slider: each value a new request.
  for (int value = -10; value >= -100; value -= 10) speed->setValue(value);
  ASSERT_TRUE(v.wait_ready(60000));
  ASSERT_EQ(v.edits().speed.size(), 1u);
  EXPECT_NEAR(v.edits().speed.at(0), 0.1, 1e-12);  // 10^(-100/100)
  ASSERT_NE(v.simulated(), nullptr);
  auto sim = judge_simulated(*apply_edits(*doc->scenario, v.edits()), nullptr);
  ASSERT_TRUE(sim.is_ok());
  EXPECT_EQ(v.simulated()->step_seconds, sim->step_seconds);
  // Back to the start: both verdicts are the starting plan's again.
  v.reset();
  EXPECT_TRUE(v.edits().speed.empty());
  EXPECT_EQ(v.simulated()->step_seconds, doc->result->step_seconds);
}

TEST(WhatIfView, AnImpossiblePlanGetsItsReasonInlineNeverADialog) {
  WhatIfView v;
  v.resize(1400, 600);
  v.show();
  const DocumentPtr doc = open("pmap_train_step");
  v.set_document(doc);
  QSpinBox* data = nullptr;
  for (QSpinBox* s : v.findChildren<QSpinBox*>())
    if (s->toolTip().startsWith("Data-parallel")) data = s;
  ASSERT_NE(data, nullptr);
  data->setValue(3);  // 3 data-parallel devices on a topology of 4
  WhatIfEdits e = v.edits();
  ASSERT_EQ(e.strategy.data, 3);
  const Status cli = check_plan(*apply_edits(*doc->scenario, e));
  ASSERT_FALSE(cli.is_ok());
  EXPECT_EQ(v.reason_text().toStdString(), reason_of(cli));
  EXPECT_EQ(QApplication::activeModalWidget(), nullptr);
  bool shown = false;
  for (QLabel* l : v.findChildren<QLabel*>())
    if (l->isVisible() && l->text().startsWith("This plan cannot be: ")) shown = true;
  EXPECT_TRUE(shown);
  EXPECT_EQ(v.closed_form(), nullptr);
  EXPECT_EQ(v.simulated(), nullptr);
  EXPECT_TRUE(v.wait_ready(1000));  // nothing was sent to the simulator
  // Saving is off while the plan cannot be; back to 4 it can.
  QPushButton* save = nullptr;
  for (QPushButton* b : v.findChildren<QPushButton*>())
    if (b->text().startsWith("Save")) save = b;
  ASSERT_NE(save, nullptr);
  EXPECT_FALSE(save->isEnabled());
  data->setValue(4);
  EXPECT_TRUE(v.reason_text().isEmpty());
  EXPECT_TRUE(save->isEnabled());
}

// Context parallelism in the panel: its degree edited like the others, the
// device count counting it, and a rank order that lists context (none of the
// combo's six) kept as the scenario has it rather than rewritten by the combo.
TEST(WhatIfView, ContextIsADegreeAndARankOrderListingItIsKept) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("brigade_whatif_cp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "cp.yaml").string();
  {
    std::ofstream f(path);
    f << "topology: {preset: dgx-h100}\n"
         "model:\n"
         "  transformer: {layers: 4, hidden: 512, heads: 8, kv_heads: 4, seq: 1024, vocab: 1024, "
         "attention: flash}\n"
         "training: {global_batch: 16}\n"
         "strategy: {data: 2, tensor: 2, context: 2, rank_order: [tensor, context, data, "
         "pipeline]}\n";
  }
  auto r = load_document(path);
  ASSERT_TRUE(r.is_ok()) << r.message();
  const DocumentPtr doc = r.value();
  WhatIfView v;
  v.resize(1400, 700);
  v.show();
  v.set_document(doc);
  EXPECT_EQ(v.edits(), starting_edits(*doc->scenario));
  EXPECT_EQ(v.edits().strategy.rank_order,
            (std::vector<std::string>{"tensor", "context", "data", "pipeline"}));
  QSpinBox* context = nullptr;
  for (QSpinBox* s : v.findChildren<QSpinBox*>())
    if (s->toolTip().startsWith("Context-parallel")) context = s;
  ASSERT_NE(context, nullptr);
  EXPECT_EQ(context->value(), 2);
  auto devices_label = [&] {
    for (QLabel* l : v.findChildren<QLabel*>())
      if (l->text().startsWith("= ")) return l->text().toStdString();
    return std::string();
  };
  EXPECT_EQ(devices_label(), "= 8 of 8 devices");
  context->setValue(1);
  EXPECT_EQ(v.edits().strategy.context, 1);
  EXPECT_EQ(v.edits().strategy.rank_order,
            (std::vector<std::string>{"tensor", "context", "data", "pipeline"}));
  EXPECT_EQ(devices_label(), "= 4 of 8 devices");
  ASSERT_NE(v.closed_form(), nullptr) << v.reason_text().toStdString();
  ASSERT_TRUE(v.wait_ready(60000));
  std::filesystem::remove_all(dir);
}

// A scenario's block recomputation: the recompute box's `full` says so,
// choosing `selective` drops the method (set_recompute) and the edited plan
// is judged, not refused; `full` again brings the block back.
TEST(WhatIfView, BlockRecomputationShowsOnFullAndAnotherChoiceDropsIt) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("brigade_whatif_block_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "block.yaml").string();
  {
    std::ofstream f(path);
    f << "topology: {preset: dgx-a100}\n"
         "model:\n"
         "  transformer: {layers: 8, hidden: 512, heads: 8, seq: 256, vocab: 1024}\n"
         "training: {global_batch: 16, micro_batch: 2, recompute: full, recompute_method: block, "
         "recompute_num_layers: 2}\n"
         "strategy: {data: 4, pipeline: 2}\n";
  }
  auto r = load_document(path);
  ASSERT_TRUE(r.is_ok()) << r.message();
  WhatIfView v;
  v.resize(1400, 600);
  v.show();
  v.set_document(r.value());
  ASSERT_NE(v.closed_form(), nullptr);
  const double block_step = v.closed_form()->step_seconds;
  QComboBox* recompute = nullptr;
  for (QComboBox* c : v.findChildren<QComboBox*>())
    if (c->toolTip().startsWith("training.recompute")) recompute = c;
  ASSERT_NE(recompute, nullptr);
  EXPECT_EQ(recompute->currentIndex(), 2);
  EXPECT_EQ(recompute->itemText(2), "full (block of 2)");
  recompute->setCurrentIndex(1);
  EXPECT_EQ(v.edits().recompute, Recompute::kSelective);
  ASSERT_NE(v.closed_form(), nullptr) << v.reason_text().toStdString();
  EXPECT_TRUE(v.reason_text().isEmpty()) << v.reason_text().toStdString();
  EXPECT_NE(v.closed_form()->step_seconds, block_step);
  recompute->setCurrentIndex(2);
  ASSERT_NE(v.closed_form(), nullptr) << v.reason_text().toStdString();
  EXPECT_EQ(v.closed_form()->step_seconds, block_step);
  ASSERT_TRUE(v.wait_ready(60000));
  std::filesystem::remove_all(dir);
}

TEST(WhatIfView, SavesTheEditedPlanAsAScenario) {
  WhatIfView v;
  const DocumentPtr doc = open("llm_13b_128gpu");
  v.set_document(doc);
  WhatIfEdits e = v.edits();
  e.strategy.zero = 2;
  e.speed[7] = 0.5;
  v.set_edits(e);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("brigade_whatif_view_" + std::to_string(::getpid()));  // one per process
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "zero2.yaml").string();
  ASSERT_TRUE(v.save_to(QString::fromStdString(path)).is_ok());
  auto back = load_scenario(path);
  ASSERT_TRUE(back.is_ok()) << back.message();
  EXPECT_EQ(back->strategy.zero, 2);
  EXPECT_EQ(back->simulation.speed, e.speed);
  std::filesystem::remove_all(dir);
}

TEST(WhatIfView, SaysWhatItNeedsForATraceOrNothing) {
  WhatIfView v;
  v.set_document(nullptr);
  EXPECT_NE(v.summary_text().indexOf("Open a scenario"), -1);
  const DocumentPtr doc = open("pmap_train_step");
  auto trace = document_from_trace(*doc->trace, "t.json");
  v.set_document(trace);
  EXPECT_FALSE(v.shows(*trace));
  EXPECT_NE(v.summary_text().indexOf("this is a trace"), -1) << v.summary_text().toStdString();
}

// The panel mid-edit (the 13B plan with ZeRO 2, a slow InfiniBand and a
// straggler) as a picture: a real image, saved for a look.
TEST(WhatIfView, APictureOfAnEditIsARealImage) {
  WhatIfView v;
  v.setAttribute(Qt::WA_DontShowOnScreen);
  v.resize(1500, 560);
  v.show();
  const DocumentPtr doc = open("llm_13b_128gpu");
  v.set_document(doc);
  WhatIfEdits e = v.edits();
  e.strategy.zero = 2;
  e.speed[5] = 0.5;
  LinkClassKnob ib = link_class_knobs(*doc->scenario).back();
  ib.bandwidth_bytes_per_second /= 4;
  e.links[ib.link_class] = ib;
  v.set_edits(e);
  ASSERT_TRUE(v.wait_ready(600000));
  const QImage image = render_widget(&v);
  const auto dir = std::filesystem::temp_directory_path() / "brigade_gui_screens";
  std::filesystem::create_directories(dir);
  image.save(QString::fromStdString((dir / "whatif_edit.png").string()));
  const ImageStats s = image_stats(image);
  EXPECT_GE(s.distinct_colours, 12);
  EXPECT_GE(s.non_background_fraction, 0.05);
}

}  // namespace
}  // namespace brigade::gui
