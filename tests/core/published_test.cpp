// A scenario's `published:` section (core/published.hpp, issue 19 item 4):
// the figure a source measured for the plan, which every judge ignores and
// scripts/fidelity compares with their answers.
#include <gtest/gtest.h>

#include <string>

#include "core/published.hpp"
#include "core/scenario.hpp"

namespace brigade {
namespace {

const std::string kHead =
    "topology: {preset: dgx-a100, nodes: 4}\n"
    "model:\n"
    "  transformer: {layers: 24, hidden: 2304, heads: 24, seq: 2048, vocab: 51200}\n"
    "training: {global_batch: 512, micro_batch: 16, recompute: full}\n"
    "strategy: {data: 32}\n";

TEST(Published, ReadsEveryKey) {
  const std::string text = kHead +
                           "published:\n"
                           "  source: Narayanan et al. 2021, Table 1, 1.7B\n"
                           "  metric: tflops_per_gpu\n"
                           "  value: 137\n"
                           "  flops: megatron-recompute\n"
                           "  memory: 40GiB\n"
                           "  note: a note\n";
  auto p = parse_published(text, "p.yaml");
  ASSERT_TRUE(p.is_ok()) << p.message();
  ASSERT_TRUE(p->has_value());
  const PublishedResult& r = **p;
  EXPECT_EQ(r.source, "Narayanan et al. 2021, Table 1, 1.7B");
  EXPECT_EQ(r.metric, PublishedMetric::kTflopsPerGpu);
  EXPECT_DOUBLE_EQ(r.value, 137);
  EXPECT_EQ(r.flops, PublishedFlops::kMegatronRecompute);
  EXPECT_DOUBLE_EQ(r.memory_bytes, 40.0 * (1 << 30));
  EXPECT_EQ(r.note, "a note");
  EXPECT_EQ(published_metric_name(r.metric), "tflops_per_gpu");
  EXPECT_EQ(published_flops_name(r.flops), "megatron-recompute");
  // The judges read the same scenario and ignore the section.
  auto s = parse_scenario(text, "p.yaml");
  ASSERT_TRUE(s.is_ok()) << s.message();
  auto plain = parse_scenario(kHead, "p.yaml");
  ASSERT_TRUE(plain.is_ok()) << plain.message();
  EXPECT_EQ(s->training.global_batch, plain->training.global_batch);
}

TEST(Published, AbsentIsNone) {
  auto p = parse_published(kHead, "p.yaml");
  ASSERT_TRUE(p.is_ok()) << p.message();
  EXPECT_FALSE(p->has_value());
}

TEST(Published, MfuTakesThePeak) {
  auto p = parse_published(kHead +
                               "published: {source: README, metric: mfu, value: 0.415, "
                               "flops: megatron, peak_tflops: 312}\n",
                           "p.yaml");
  ASSERT_TRUE(p.is_ok()) << p.message();
  EXPECT_EQ((*p)->metric, PublishedMetric::kMfu);
  EXPECT_DOUBLE_EQ((*p)->peak_tflops, 312);
  EXPECT_EQ((*p)->flops, PublishedFlops::kMegatron);
}

struct Bad {
  const char* published;
  const char* expected;
};

class PublishedError : public ::testing::TestWithParam<Bad> {};

// The scenario reader and parse_published give the same one-line message.
TEST_P(PublishedError, ExactMessage) {
  const std::string text = kHead + "published: " + GetParam().published + "\n";
  auto s = parse_scenario(text, "p.yaml");
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.message(), GetParam().expected);
  auto p = parse_published(text, "p.yaml");
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.message(), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Messages, PublishedError,
    ::testing::Values(
        Bad{"137",
            "p.yaml:6:12: error: found '137'; expected a published result: {source, metric, "
            "value, flops, peak_tflops, memory, note}"},
        Bad{"{source: s, metric: step_seconds, value: 1, sorce: x}",
            "p.yaml:6:56: error: found key 'sorce'; expected one of source, metric, value, "
            "flops, peak_tflops, memory, note (did you mean 'source'?)"},
        Bad{"{metric: step_seconds, value: 1}",
            "p.yaml:6:12: error: found no 'source' in 'published'; expected the figure's "
            "source: paper or page, table, row"},
        Bad{"{source: s, metric: tflops, value: 1}",
            "p.yaml:6:32: error: found 'tflops'; expected one of step_seconds, tflops_per_gpu, "
            "tokens_per_second_per_gpu, mfu"},
        Bad{"{source: s, metric: step_seconds, value: -1}",
            "p.yaml:6:53: error: found '-1'; expected a positive figure from 1e-9 to 1e18"},
        Bad{"{source: s, metric: mfu, value: 41.5, flops: megatron, peak_tflops: 312}",
            "p.yaml:6:44: error: found '41.5'; expected an MFU (a fraction) from 1e-6 to 1"},
        Bad{"{source: s, metric: tflops_per_gpu, value: 137}",
            "p.yaml:6:12: error: found no 'flops' in 'published'; expected the FLOP count the "
            "figure divides by time: megatron or megatron-recompute"},
        Bad{"{source: s, metric: tflops_per_gpu, value: 137, flops: 6nd}",
            "p.yaml:6:67: error: found '6nd'; expected one of megatron, megatron-recompute"},
        Bad{"{source: s, metric: step_seconds, value: 1, flops: megatron}",
            "p.yaml:6:56: error: found 'flops' with metric step_seconds; expected it only with "
            "tflops_per_gpu or mfu"},
        Bad{"{source: s, metric: mfu, value: 0.5, flops: megatron}",
            "p.yaml:6:12: error: found no 'peak_tflops' in 'published'; expected the peak the "
            "MFU divides by, in TFLOP/s per GPU"},
        Bad{"{source: s, metric: step_seconds, value: 1, memory: lots}",
            "p.yaml:6:64: error: found 'lots'; expected a positive size such as 80GiB, 1.5GB "
            "or 4096 (bytes)"}));

}  // namespace
}  // namespace brigade
