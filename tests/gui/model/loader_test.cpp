// Opening files as Documents (gui/model/loader.hpp): kinds, the scenario
// pipeline, errors as the CLI's lines, cancellation.
#include "gui/model/loader.hpp"

#include <atomic>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/trace.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

std::string temp_file(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / "brigade_gui_loader_test";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

struct KindCase {
  std::string path;
  FileKind kind;
};

class Sniff : public ::testing::TestWithParam<KindCase> {};

TEST_P(Sniff, TellsScenariosTracesAndProfilesApart) {
  EXPECT_EQ(sniff_file_kind(GetParam().path), GetParam().kind) << GetParam().path;
}

INSTANTIATE_TEST_SUITE_P(
    Files, Sniff,
    ::testing::Values(KindCase{kSrc + "/scenarios/pmap_train_step.yaml", FileKind::kScenario},
                      KindCase{kSrc + "/scenarios/profiles/h200_measured.yaml", FileKind::kProfile},
                      KindCase{kSrc + "/tests/data/pmap_linear.json", FileKind::kScenario},
                      KindCase{kSrc + "/tests/data/profile_a100.yaml", FileKind::kProfile},
                      KindCase{kSrc + "/README.md", FileKind::kUnknown}));

TEST(Loader, AScenarioIsLoweredSimulatedAndIndexed) {
  std::vector<std::string> stages;
  LoadOptions o;
  o.on_progress = [&](const std::string& stage, double, double) {
    if (stages.empty() || stages.back() != stage) stages.push_back(stage);
  };
  auto r = load_document(kSrc + "/scenarios/pmap_train_step.yaml", o);
  ASSERT_TRUE(r.is_ok()) << r.message();
  const Document& d = **r;
  EXPECT_EQ(d.kind, DocumentKind::kScenario);
  EXPECT_EQ(d.title, "pmap-train-step");
  ASSERT_TRUE(d.has_trace());
  ASSERT_TRUE(d.program());
  ASSERT_TRUE(d.result);
  EXPECT_GT(d.result->step_seconds, 0);
  EXPECT_EQ(d.trace->spans.size(), static_cast<size_t>(d.program()->num_tasks()));
  EXPECT_TRUE(d.result->trace.spans.empty());  // moved into the Document, not copied
  EXPECT_EQ(d.trace->device_names.size(), 4u);
  EXPECT_EQ(stages, (std::vector<std::string>{"reading", "lowering", "simulating", "indexing"}));
  EXPECT_EQ(document_notes(d).front(), "24 tasks on 4 devices, granularity kernel");
}

TEST(Loader, ATraceWrittenByTheCliOpensWithItsSpans) {
  auto doc = load_document(kSrc + "/scenarios/pmap_train_step.yaml");
  ASSERT_TRUE(doc.is_ok());
  const std::string path = temp_file("pmap.trace.json", "");
  ASSERT_TRUE(write_chrome_trace_file(*(*doc)->trace, path).is_ok());
  auto t = load_document(path);
  ASSERT_TRUE(t.is_ok()) << t.message();
  EXPECT_EQ((*t)->kind, DocumentKind::kTrace);
  EXPECT_EQ((*t)->trace->spans.size(), (*doc)->trace->spans.size());
  EXPECT_EQ((*t)->title, "pmap-train-step");
}

TEST(Loader, AProfileOpensAsAProfile) {
  auto r = load_document(kSrc + "/scenarios/profiles/h200_measured.yaml");
  ASSERT_TRUE(r.is_ok()) << r.message();
  EXPECT_EQ((*r)->kind, DocumentKind::kProfile);
  EXPECT_EQ((*r)->title, "h200-sxm-measured");
  EXPECT_FALSE((*r)->has_trace());
}

TEST(Loader, BadFilesGiveTheClisOneLine) {
  const std::string missing = kSrc + "/nope.yaml";
  auto r = load_document(missing);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(),
            missing + ": error: found no readable file; expected a scenario, a trace or a profile");

  const std::string unknown = temp_file("notes.txt", "hello\n");
  r = load_document(unknown);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), unknown +
                             ": error: found a file of unknown kind; expected a scenario "
                             "(.yaml, .yml, .json), a Chrome trace (.json) or a hardware "
                             "profile (.yaml)");

  const std::string truncated =
      temp_file("cut.json", "{\"traceEvents\": [\n {\"ph\": \"X\", \"ts\"");
  r = load_document(truncated);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), truncated + ":2:18: error: found invalid JSON; expected a Chrome trace");

  const std::string bad_yaml = temp_file("bad.yaml", "name: x\ntopology: {preset: dgx-a1000}\n");
  r = load_document(bad_yaml);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message().rfind(bad_yaml + ":2:", 0), 0u) << r.message();
}

// A trace too large to parse into memory is refused before it is read (a
// sparse file: no disk is used).
TEST(Loader, AHugeTraceIsRefusedWithItsSize) {
  const std::string huge = temp_file("huge.json", "[");
  std::filesystem::resize_file(huge, (std::uintmax_t{3} << 30) / 2);  // 1.5 GiB
  auto r = load_document(huge);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.message(), huge +
                             ": error: found a trace of 1.50 GiB; expected at most 1.00 GiB "
                             "(open the scenario instead, or record fewer devices)");
  std::filesystem::remove(huge);
}

TEST(Loader, ACancelledLoadSaysSo) {
  std::atomic<bool> cancel{true};
  LoadOptions o;
  o.cancel = &cancel;
  auto r = load_document(kSrc + "/scenarios/pmap_train_step.yaml", o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_TRUE(is_cancelled(r.status()));
  EXPECT_FALSE(is_cancelled(Status::error("x")));
}

// The flag reaches the simulator itself: set while it runs (from its own
// progress callback), the load stops there and says so.
TEST(Loader, CancelDuringTheSimulationStopsIt) {
  std::atomic<bool> cancel{false};
  bool simulating_after_cancel = false;
  LoadOptions o;
  o.cancel = &cancel;
  o.granularity = planner::Granularity::kStep;
  o.on_progress = [&](const std::string& stage, double done, double) {
    if (stage != "simulating") return;
    if (cancel) simulating_after_cancel = true;
    if (done > 0) cancel = true;
  };
  auto r = load_document(kSrc + "/scenarios/llm_13b_128gpu.yaml", o);
  ASSERT_FALSE(r.is_ok());
  EXPECT_TRUE(is_cancelled(r.status())) << r.message();
  EXPECT_EQ(r.status().kind(), ErrorKind::kCancelled);
  // It stopped at the next poll: no more than one progress call after the flag.
  EXPECT_FALSE(simulating_after_cancel);
}

}  // namespace
}  // namespace brigade::gui
