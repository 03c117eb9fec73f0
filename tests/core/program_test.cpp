#include "core/program.hpp"

#include <gtest/gtest.h>

namespace brigade {
namespace {

TEST(ProgramBuilder, GemmFlopsAreTwoMNK) {
  ProgramBuilder b("p", 1);
  const StreamId s = b.stream(0, "compute");
  const TaskId t = b.add_gemm(s, 8, 16, 16, DType::kF32, "y = x W");
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  // 2 * 8 * 16 * 16 = 4096 FLOP, worked by hand.
  EXPECT_DOUBLE_EQ(p->task(t).flops, 4096.0);
  // (8*16 + 16*16 + 8*16) * 4 bytes = 512 * 4 = 2048 bytes.
  EXPECT_DOUBLE_EQ(p->task(t).bytes, 2048.0);
}

TEST(ProgramBuilder, StreamOrderAndDepsAreKept) {
  ProgramBuilder b("p", 2);
  const StreamId c0 = b.stream(0, "compute");
  const StreamId c1 = b.stream(1, "compute");
  const TaskId a = b.add_fixed(c0, 1, 1, DType::kF32, "a");
  const TaskId x = b.add_transfer(c0, 1, 64, "send");
  const TaskId c = b.add_fixed(c1, 1, 1, DType::kF32, "c");
  b.depend(c, x);
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  ASSERT_EQ(p->stream_tasks(c0).size(), 2u);
  EXPECT_EQ(p->stream_tasks(c0)[0], a);
  EXPECT_EQ(p->stream_tasks(c0)[1], x);
  ASSERT_EQ(p->deps(c).size(), 1u);
  EXPECT_EQ(p->deps(c)[0], x);
  EXPECT_EQ(p->task_name(x), "send");
}

TEST(ProgramBuilder, DependencyCycleIsNamed) {
  ProgramBuilder b("loop", 1);
  const StreamId s0 = b.stream(0, "compute");
  const StreamId s1 = b.stream(0, "comm");
  const TaskId a = b.add_fixed(s0, 1, 1, DType::kF32, "a");
  const TaskId c = b.add_fixed(s1, 1, 1, DType::kF32, "c");
  b.depend(a, c);
  b.depend(c, a);
  auto p = std::move(b).build();
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.message(), "program 'loop': dependency cycle: task 0 'a' -> task 1 'c' -> task 0 'a'");
}

TEST(ProgramBuilder, RepeatedDeviceInGroupIsRejected) {
  ProgramBuilder b("g", 2);
  const StreamId s0 = b.stream(0, "comm");
  const StreamId s1 = b.stream(1, "comm");
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {0, 0}, 1024,
                   {s0, s1}, "ar");
  auto p = std::move(b).build();
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.message(), "program 'g': collective 0 (task 0 'ar') names device 0 twice; expected distinct devices");
}

TEST(ProgramBuilder, EmptyGroupIsRejected) {
  ProgramBuilder b("e", 1);
  b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing, {}, 1024, {}, "ar");
  auto p = std::move(b).build();
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.message(), "program 'e': collective 0 has an empty device group");
}

TEST(ProgramBuilder, UnknownStreamIsRejected) {
  ProgramBuilder b("s", 1);
  b.stream(0, "compute");
  b.add_fixed(7, 1, 1, DType::kF32, "x");
  auto p = std::move(b).build();
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.message(), "program 's': task 0 'x' is on stream 7, which does not exist; expected a stream in 0..0");
}

}  // namespace
}  // namespace brigade
