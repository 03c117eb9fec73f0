// The calibration view, offscreen (gui/views/calibration_view.hpp): a
// calibrated profile with its samples, one without, and a trace.
#include <gtest/gtest.h>
#include <QLabel>
#include <QTableWidget>

#include "gui/model/loader.hpp"
#include "gui/views/calibration_view.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

DocumentPtr open(const std::string& path) {
  auto r = load_document(kSrc + "/" + path);
  EXPECT_TRUE(r.is_ok()) << r.message();
  return r.value();
}

TEST(CalibrationView, ACalibratedProfileShowsItsSamplesAndEveryFitsRSquared) {
  CalibrationView v;
  v.resize(1400, 900);
  v.show();
  const DocumentPtr doc = open("tests/data/profile_cpu_quick.yaml");
  ASSERT_EQ(doc->kind, DocumentKind::kProfile);
  EXPECT_TRUE(v.shows(*doc));
  v.set_document(doc);
  EXPECT_TRUE(v.plots().has_samples);
  EXPECT_NE(v.header_text().indexOf("Points: measured; lines: the judges with this profile."), -1)
      << v.header_text().toStdString();
  auto* fits = v.findChild<QTableWidget*>();
  ASSERT_NE(fits, nullptr);
  // Calibrate's 15 stored fits and the two GEMM curves against their samples.
  EXPECT_EQ(fits->rowCount(), 17);
  EXPECT_EQ(fits->item(0, 0)->text(), "gemm.f64");
  EXPECT_TRUE(v.plots().gemm.has_samples());
  EXPECT_TRUE(v.plots().collectives.has_samples());
}

TEST(CalibrationView, AProfileWithoutSamplesSaysSoAndGivesEmptyPlotsNoRoom) {
  CalibrationView v;
  v.resize(1400, 900);
  v.show();
  v.set_document(open("scenarios/profiles/h200_measured.yaml"));
  EXPECT_FALSE(v.plots().has_samples);
  EXPECT_NE(v.header_text().indexOf("No samples in this profile: its fits alone"), -1)
      << v.header_text().toStdString();
  bool absent = false;
  for (QLabel* l : v.findChildren<QLabel*>())
    absent |= l->isVisible() && l->text().contains("Transfers: bandwidth against bytes") &&
              l->text().contains("no link measured in this profile");
  EXPECT_TRUE(absent);
}

TEST(CalibrationView, ATraceHasNoProfile) {
  CalibrationView v;
  Trace t;
  t.device_names = {"gpu0"};
  const DocumentPtr doc = document_from_trace(std::move(t), "t.json");
  EXPECT_FALSE(v.shows(*doc));
  v.set_document(doc);
  EXPECT_TRUE(v.header_text().startsWith("A trace carries no hardware profile"));
}

}  // namespace
}  // namespace brigade::gui
