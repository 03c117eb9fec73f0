#include "core/published.hpp"

#include <utility>
#include <vector>

#include "core/published_reader.hpp"
#include "core/scenario.hpp"
#include "core/units.hpp"

namespace brigade {
namespace {

const std::vector<std::pair<std::string, PublishedMetric>>& metric_choices() {
  static const std::vector<std::pair<std::string, PublishedMetric>> kChoices{
      {"step_seconds", PublishedMetric::kStepSeconds},
      {"tflops_per_gpu", PublishedMetric::kTflopsPerGpu},
      {"tokens_per_second_per_gpu", PublishedMetric::kTokensPerSecondPerGpu},
      {"mfu", PublishedMetric::kMfu}};
  return kChoices;
}

const std::vector<std::pair<std::string, PublishedFlops>>& flops_choices() {
  static const std::vector<std::pair<std::string, PublishedFlops>> kChoices{
      {"megatron", PublishedFlops::kMegatron},
      {"megatron-recompute", PublishedFlops::kMegatronRecompute}};
  return kChoices;
}

bool counts_flops(PublishedMetric m) {
  return m == PublishedMetric::kTflopsPerGpu || m == PublishedMetric::kMfu;
}

}  // namespace

std::string_view published_metric_name(PublishedMetric m) {
  for (const auto& [name, value] : metric_choices())
    if (value == m) return name;
  return "?";
}

std::string_view published_flops_name(PublishedFlops f) {
  for (const auto& [name, value] : flops_choices())
    if (value == f) return name;
  return "none";
}

Result<PublishedResult> read_published(const yamlio::Cursor& c) {
  BRIGADE_RETURN_IF_ERROR(c.expect_map(
      "a published result: {source, metric, value, flops, peak_tflops, memory, note}"));
  BRIGADE_RETURN_IF_ERROR(
      c.check_keys({"source", "metric", "value", "flops", "peak_tflops", "memory", "note"}));
  PublishedResult r;
  BRIGADE_RETURN_IF_ERROR(c.require("source", "the figure's source: paper or page, table, row"));
  BRIGADE_ASSIGN_OR_RETURN(r.source, c.get("source").as_name());
  BRIGADE_RETURN_IF_ERROR(c.require("metric",
                                    "what the figure measures: step_seconds, tflops_per_gpu, "
                                    "tokens_per_second_per_gpu or mfu"));
  BRIGADE_ASSIGN_OR_RETURN(r.metric, c.get("metric").as_enum(metric_choices()));
  BRIGADE_RETURN_IF_ERROR(c.require("value", "the published figure, in the metric's unit"));
  const yamlio::Cursor value = c.get("value");
  if (r.metric == PublishedMetric::kMfu) {
    BRIGADE_ASSIGN_OR_RETURN(r.value, value.as_number_in(1e-6, 1, "an MFU (a fraction)"));
  } else {
    BRIGADE_ASSIGN_OR_RETURN(r.value, value.as_number_in(1e-9, 1e18, "a positive figure"));
  }
  if (counts_flops(r.metric)) {
    BRIGADE_RETURN_IF_ERROR(c.require(
        "flops", "the FLOP count the figure divides by time: megatron or megatron-recompute"));
    BRIGADE_ASSIGN_OR_RETURN(r.flops, c.get("flops").as_enum(flops_choices()));
  } else if (c.has("flops")) {
    return c.key_of("flops").error("found 'flops' with metric " +
                                   std::string(published_metric_name(r.metric)) +
                                   "; expected it only with tflops_per_gpu or mfu");
  }
  if (r.metric == PublishedMetric::kMfu) {
    BRIGADE_RETURN_IF_ERROR(
        c.require("peak_tflops", "the peak the MFU divides by, in TFLOP/s per GPU"));
    BRIGADE_ASSIGN_OR_RETURN(r.peak_tflops,
                             c.get("peak_tflops").as_number_in(1e-6, 1e9, "a peak in TFLOP/s"));
  } else if (c.has("peak_tflops")) {
    return c.key_of("peak_tflops")
        .error("found 'peak_tflops' with metric " + std::string(published_metric_name(r.metric)) +
               "; expected it only with mfu");
  }
  BRIGADE_ASSIGN_OR_RETURN(
      r.memory_bytes, c.get_quantity("memory", 0, Dimension::kBytes, yamlio::Bound::kPositive));
  BRIGADE_ASSIGN_OR_RETURN(r.note, c.get_string("note", ""));
  return r;
}

Result<std::optional<PublishedResult>> parse_published(const std::string& text,
                                                       const std::string& filename) {
  BRIGADE_ASSIGN_OR_RETURN(const yamlio::Tree tree,
                           yamlio::read_tree(text, filename, "a scenario"));
  yamlio::Document doc{filename, nullptr};
  const yamlio::Cursor root(&doc, tree, "", SourcePos{filename, 1, 1});
  BRIGADE_RETURN_IF_ERROR(root.expect_map("a scenario: a map with at least topology and model"));
  if (!root.has("published")) return std::optional<PublishedResult>{};
  BRIGADE_ASSIGN_OR_RETURN(PublishedResult r, read_published(root.get("published")));
  return std::optional<PublishedResult>{std::move(r)};
}

Result<std::optional<PublishedResult>> load_published(const std::string& path) {
  std::string text;
  BRIGADE_RETURN_IF_ERROR(yamlio::read_file_text(path, "a scenario file (.yaml, .yml or .json)",
                                                 &text, ScenarioLimits::kMaxFileBytes));
  return parse_published(text, path);
}

}  // namespace brigade
