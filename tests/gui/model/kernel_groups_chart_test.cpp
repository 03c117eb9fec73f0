// The kernels view's logic (gui/model/kernel_groups_chart.hpp): an open
// scenario's step by kernel group, and beside it a profiler's record (or
// Brigade's own trace of the plan), with
// each cell as `brigade kernels` prints it and the bars' lengths. The
// record is tests/data/kernels/nsys_kern_sum.csv (made up: round numbers).
#include "gui/model/kernel_groups_chart.hpp"

#include <gtest/gtest.h>

#include "core/kernel_groups.hpp"
#include "gui/model/loader.hpp"

namespace brigade::gui {
namespace {

const std::string kSrc = BRIGADE_SOURCE_DIR;

DocumentPtr plan() {
  auto doc = load_document(kSrc + "/tests/data/kernels/gpt_fp8_node.yaml");
  EXPECT_TRUE(doc.is_ok()) << doc.message();
  return doc.is_ok() ? *doc : nullptr;
}

const KernelGroupsLine* line(const KernelGroupsChart& c, const std::string& key) {
  for (const KernelGroupsLine& l : c.lines)
    if (l.key == key) return &l;
  return nullptr;
}

TEST(KernelGroupsChart, TheSimulatedStepByGroup) {
  const DocumentPtr doc = plan();
  ASSERT_TRUE(doc);
  const KernelGroupsChart c = kernel_groups_chart(*doc, 0, nullptr);
  EXPECT_EQ(
      c.title.rfind("kernel groups of kernels-gpt-fp8-node on gpu0, one step (simulated, ", 0), 0u)
      << c.title;
  EXPECT_TRUE(c.record.empty());
  EXPECT_FALSE(c.measured);
  // The groups are the document's trace's: the same as core's sums.
  const KernelGroupTimes t = kernel_group_times(*doc->trace, doc->program(), 0);
  const KernelGroupsLine* fp8 = line(c, "gemm_fp8");
  ASSERT_NE(fp8, nullptr);
  EXPECT_DOUBLE_EQ(fp8->simulated_seconds, t.of(KernelGroup::kGemmFp8));
  EXPECT_EQ(fp8->measured, "-");
  EXPECT_EQ(fp8->ratio, "-");
  // The longest group's bar is whole; a subtotal's against the subtotals'.
  double longest = 0, longest_subtotal = 0;
  for (const KernelGroupsLine& l : c.lines) {
    (l.subtotal ? longest_subtotal : longest) =
        std::max(l.subtotal ? longest_subtotal : longest, l.simulated_bar);
    EXPECT_GE(l.simulated_bar, 0);
    EXPECT_LE(l.simulated_bar, 1);
  }
  EXPECT_DOUBLE_EQ(longest, 1);
  EXPECT_DOUBLE_EQ(longest_subtotal, 1);
  EXPECT_DOUBLE_EQ(line(c, "compute_all")->simulated_bar, 1);  // compute is the largest subtotal
  EXPECT_TRUE(line(c, "allgather")->communication);
  EXPECT_FALSE(line(c, "norm")->communication);
  EXPECT_TRUE(c.note.empty());  // kernel by kernel: no fused run
  // A device the plan does not have: nothing.
  EXPECT_TRUE(kernel_groups_chart(*doc, 8, nullptr).lines.empty());
}

TEST(KernelGroupsChart, BesideARecordByHand) {
  const DocumentPtr doc = plan();
  ASSERT_TRUE(doc);
  auto m = read_measured_kernels(kSrc + "/tests/data/kernels/nsys_kern_sum.csv");
  ASSERT_TRUE(m.is_ok()) << m.message();
  KernelRecord r;
  r.path = "kern.csv";
  r.kernels = *m;
  r.steps = 2;
  const KernelGroupsChart c = kernel_groups_chart(*doc, 0, &r);
  EXPECT_EQ(c.record, "against kern.csv (2 steps, 1 GPUs: its times / 2)");
  EXPECT_TRUE(c.measured);
  const KernelGroupsLine* fp8 = line(c, "gemm_fp8");
  ASSERT_NE(fp8, nullptr);
  EXPECT_EQ(fp8->measured, "1.50 ms");  // 3,000,000 ns over 2 steps
  EXPECT_DOUBLE_EQ(fp8->measured_seconds, 1.5e-3);
  char ratio[16];
  std::snprintf(ratio, sizeof ratio, "%.2f", 1.5e-3 / fp8->simulated_seconds);
  EXPECT_EQ(fp8->ratio, ratio);
  // The record's unnamed kernel has a line of its own, no simulated side.
  const KernelGroupsLine* other = line(c, "other");
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(other->simulated, "-");
  EXPECT_EQ(other->measured, "150 us");
  // Bars against the longest time of either side.
  double longest = 0;
  for (const KernelGroupsLine& l : c.lines)
    if (!l.subtotal) longest = std::max({longest, l.simulated_seconds, l.measured_seconds});
  EXPECT_DOUBLE_EQ(fp8->measured_bar, 1.5e-3 / longest);
}

// Brigade's own trace of the plan as the record (here the document's own
// simulated trace): the chosen device's spans, each group the simulated
// one's; a trace of another plan (another granularity) is said, with no
// measured column.
TEST(KernelGroupsChart, BrigadeTraceOfThePlan) {
  const DocumentPtr doc = plan();
  ASSERT_TRUE(doc);
  KernelRecord r;
  r.path = "t.json";
  r.kernels = measured_kernels_of_trace(*doc->trace);
  ASSERT_EQ(r.kernels.devices.size(), 8u);
  const KernelGroupsChart c = kernel_groups_chart(*doc, 2, &r);
  EXPECT_TRUE(c.measured);
  EXPECT_EQ(c.record,
            "against t.json (Brigade's trace from sim:flow, its device gpu2: its times / 1)");
  size_t lines = 0;
  for (const KernelGroupsLine& l : c.lines) {
    EXPECT_NEAR(l.measured_seconds, l.simulated_seconds, 1e-12) << l.key;
    EXPECT_EQ(l.ratio, l.simulated_seconds > 0 ? "1.00" : "-") << l.key;
    ++lines;
  }
  EXPECT_GT(lines, 6u);

  // A device the trace does not have: said, no measured column.
  KernelRecord some = r;
  some.kernels = measured_kernels_of_trace(*doc->trace, 1);
  const KernelGroupsChart none = kernel_groups_chart(*doc, 2, &some);
  EXPECT_FALSE(none.measured);
  EXPECT_EQ(none.record, "t.json: no span of gpu2 in Brigade's trace");

  LoadOptions o;
  o.granularity = planner::Granularity::kStep;
  auto stepped = load_document(kSrc + "/tests/data/kernels/gpt_fp8_node.yaml", o);
  ASSERT_TRUE(stepped.is_ok()) << stepped.message();
  const KernelGroupsChart other = kernel_groups_chart(**stepped, 0, &r);
  EXPECT_FALSE(other.measured);
  EXPECT_EQ(other.record.rfind("t.json: error: found task ", 0), 0u) << other.record;
  for (const KernelGroupsLine& l : other.lines) EXPECT_EQ(l.measured, "-") << l.key;

  // The view checks a record against its document once (check_kernel_record),
  // and the chart reads that answer rather than comparing every task again.
  KernelRecord checked = r;
  check_kernel_record(checked, **stepped);
  ASSERT_TRUE(checked.plan.has_value());
  EXPECT_EQ(checked.plan->message(), other.record);
  check_kernel_record(checked, *doc);
  ASSERT_TRUE(checked.plan.has_value());
  EXPECT_TRUE(checked.plan->is_ok());
  EXPECT_TRUE(kernel_groups_chart(*doc, 2, &checked).measured);
  checked.plan = Status::error("t.json: as checked before");
  const KernelGroupsChart cached = kernel_groups_chart(*doc, 2, &checked);
  EXPECT_FALSE(cached.measured);
  EXPECT_EQ(cached.record, "t.json: as checked before");
}

// A subtotal of nothing has no line (one GPU: no communication).
TEST(KernelGroupsChart, NoLineForASubtotalOfNothing) {
  auto doc = load_document(kSrc + "/scenarios/validation/gpu/transformer_h200.yaml");
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  const KernelGroupsChart c = kernel_groups_chart(**doc, 0, nullptr);
  EXPECT_EQ(line(c, "communication_all"), nullptr);
  EXPECT_NE(line(c, "compute_all"), nullptr);
  ASSERT_TRUE(plan());
  EXPECT_NE(line(kernel_groups_chart(*plan(), 0, nullptr), "communication_all"), nullptr);
}

// At step granularity the plan's fused runs are a group of their own, and
// the chart says how to name each kernel's.
TEST(KernelGroupsChart, FusedRunsAreSaidSo) {
  LoadOptions o;
  o.granularity = planner::Granularity::kStep;
  auto doc = load_document(kSrc + "/tests/data/kernels/gpt_fp8_node.yaml", o);
  ASSERT_TRUE(doc.is_ok()) << doc.message();
  const KernelGroupsChart c = kernel_groups_chart(**doc, 0, nullptr);
  ASSERT_NE(line(c, "fused"), nullptr);
  EXPECT_EQ(c.note.rfind("granularity step: a fused run of kernels is a group of its own", 0), 0u)
      << c.note;
}

}  // namespace
}  // namespace brigade::gui
