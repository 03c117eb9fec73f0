// The memory view, offscreen (gui/views/memory_view.hpp): the default
// device, the OOM report, the time cursor, a document without samples.
#include <gtest/gtest.h>
#include <QComboBox>

#include "gui/model/loader.hpp"
#include "gui/views/memory_view.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

// Three devices; gpu2 peaks highest (500 B), gpu0 at 100 B, gpu1 at 300 B.
DocumentPtr three_devices() {
  Trace t;
  t.device_names = {"gpu0", "gpu1", "gpu2"};
  auto add = [&](int d, double time, double bytes) {
    MemorySample m;
    m.device = d;
    m.category = MemoryCategory::kActivations;
    m.time_seconds = time;
    m.bytes = bytes;
    t.memory.push_back(m);
  };
  add(0, 0, 100);
  add(1, 0, 300);
  add(2, 0, 50);
  add(2, 1e-3, 500);
  add(2, 2e-3, 0);
  return document_from_trace(std::move(t), "three.json");
}

TEST(MemoryView, StartsOnTheDeviceWithTheHighestPeakAndListsDevicesByPeak) {
  MemoryView v;
  v.resize(1000, 600);
  v.show();
  v.set_document(three_devices());
  EXPECT_EQ(v.device(), 2);
  auto* combo = v.findChild<QComboBox*>();
  ASSERT_NE(combo, nullptr);
  ASSERT_EQ(combo->count(), 3);
  EXPECT_EQ(combo->itemData(0).toInt(), 2);
  EXPECT_EQ(combo->itemData(1).toInt(), 1);
  EXPECT_EQ(combo->itemData(2).toInt(), 0);
  EXPECT_TRUE(combo->itemText(0).startsWith("gpu2")) << combo->itemText(0).toStdString();
  v.set_device(0);
  EXPECT_EQ(v.device(), 0);
  EXPECT_EQ(combo->currentData().toInt(), 0);
}

TEST(MemoryView, SaysWhatIsLiveAtTheCursor) {
  MemoryView v;
  v.resize(1000, 600);
  v.show();
  v.set_document(three_devices());
  v.set_time_seconds(1.5e-3);
  EXPECT_NE(v.info_text().indexOf("At 1.50 ms: 500 B live"), -1) << v.info_text().toStdString();
  EXPECT_NE(v.info_text().indexOf("activations 500 B"), -1) << v.info_text().toStdString();
}

TEST(MemoryView, MarksTheOomWithItsTaskAndTheLiveBytesByCategory) {
  auto doc = load_document(kSrc + "/tests/data/oom_mlp.yaml");
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  MemoryView v;
  v.resize(1000, 600);
  v.show();
  v.set_document(*doc);
  const std::string info = v.info_text().toStdString();
  EXPECT_NE(info.find("Out of memory"), std::string::npos) << info;
  EXPECT_NE(info.find("at 4.78 ms: act1 (task "), std::string::npos) << info;
  EXPECT_NE(info.find("of 44.0 MiB"), std::string::npos) << info;
  EXPECT_NE(info.find("parameters 8.01 MiB"), std::string::npos) << info;
}

TEST(MemoryView, ATraceWithoutSamplesSaysSo) {
  Trace t;
  t.device_names = {"gpu0"};
  TraceSpan s;
  s.end_seconds = 1;
  t.spans.push_back(s);
  t.names = {"k"};
  s.name = 0;
  MemoryView v;
  const DocumentPtr doc = document_from_trace(std::move(t), "k.json");
  EXPECT_FALSE(v.shows(*doc));
  v.set_document(doc);
  EXPECT_EQ(v.device(), -1);
  EXPECT_EQ(v.info_text().toStdString(), "This trace has no memory samples.");
}

}  // namespace
}  // namespace brigade::gui
