#include "core/program.hpp"

#include <cstring>
#include <random>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

#include <gtest/gtest.h>

namespace brigade {
namespace {

// Freed big blocks are kept and handed out again (core/program.cpp): a
// block covering a later request is reused, its tail kept apart, and a
// vector on reused memory still starts from the values it was given.
TEST(BigAllocate, FreedBlocksAreReusedAndTheirTailsKept) {
  big_release_cached();
  EXPECT_EQ(big_cached_bytes(), 0u);
  const size_t mib = size_t{1} << 20;
  void* a = big_allocate(16 * mib);
  static_cast<char*>(a)[0] = 1;
  big_deallocate(a, 16 * mib);
  EXPECT_EQ(big_cached_bytes(), 16 * mib);
  void* b = big_allocate(6 * mib);  // rounded up to 6 MiB (3 huge pages)
  EXPECT_EQ(b, a);                  // the same block, its head
  EXPECT_EQ(big_cached_bytes(), 10 * mib);  // the tail waits for the next request
  void* c = big_allocate(10 * mib);
  EXPECT_EQ(c, static_cast<char*>(a) + 6 * mib);
  EXPECT_EQ(big_cached_bytes(), 0u);
  big_deallocate(b, 6 * mib);
  big_deallocate(c, 10 * mib);
  {
    BigVector<int> v(10 * mib / sizeof(int), 7);  // 10 MiB: the block c was
    EXPECT_EQ(static_cast<void*>(v.data()), c);
    EXPECT_EQ(v[0], 7);
    EXPECT_EQ(v.back(), 7);
  }
  {
    BigVector<int> w(10 * mib / sizeof(int));  // value-initialised on memory that held 7s
    EXPECT_EQ(static_cast<void*>(w.data()), c);
    EXPECT_EQ(w[12345], 0);
  }
  big_release_cached();
  EXPECT_EQ(big_cached_bytes(), 0u);
}

#if defined(__linux__)
// Whether each page of [p, p + bytes) is resident (touched since mapped).
std::vector<bool> resident_pages(const void* p, size_t bytes) {
  const auto page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> v((bytes + page - 1) / page);
  EXPECT_EQ(mincore(const_cast<void*>(p), bytes, v.data()), 0);
  std::vector<bool> r(v.size());
  for (size_t i = 0; i < v.size(); ++i) r[i] = (v[i] & 1) != 0;
  return r;
}

// A request that no kept block covers takes the kept blocks' pages (moved,
// largest first, not copied) and only what they lack is fresh: a search's
// Programs differ in size from plan to plan, and fresh pages are what costs
// (docs/PERFORMANCE.md).
TEST(BigAllocate, ARequestNoKeptBlockCoversTakesTheKeptPagesFirst) {
  big_release_cached();
  const size_t mib = size_t{1} << 20;
  auto* a = static_cast<unsigned char*>(big_allocate(8 * mib));
  auto* b = static_cast<unsigned char*>(big_allocate(6 * mib));
  std::memset(a, 0xA1, 8 * mib);
  std::memset(b, 0xB2, 6 * mib);
  big_deallocate(a, 8 * mib);
  big_deallocate(b, 6 * mib);
  EXPECT_EQ(big_cached_bytes(), 14 * mib);
  // 20 MiB: a's 8 MiB, then b's 6, then 6 fresh MiB.
  auto* c = static_cast<unsigned char*>(big_allocate(20 * mib));
  EXPECT_EQ(big_cached_bytes(), 0u);
  const std::vector<bool> touched = resident_pages(c, 20 * mib);
  const size_t per_mib = touched.size() / 20;
  for (size_t i = 0; i < 14 * per_mib; ++i) ASSERT_TRUE(touched[i]) << "page " << i;
  for (size_t i = 14 * per_mib; i < touched.size(); ++i) ASSERT_FALSE(touched[i]) << "page " << i;
  EXPECT_EQ(c[0], 0xA1);
  EXPECT_EQ(c[8 * mib - 1], 0xA1);
  EXPECT_EQ(c[8 * mib], 0xB2);
  EXPECT_EQ(c[14 * mib - 1], 0xB2);
  EXPECT_EQ(c[14 * mib], 0);  // fresh
  std::memset(c, 0xC3, 20 * mib);
  big_deallocate(c, 20 * mib);
  // Kept blocks more than enough: the largest go first, and the part of the
  // last one not needed stays kept.
  auto* d = static_cast<unsigned char*>(big_allocate(8 * mib));
  std::memset(d, 0xD4, 8 * mib);
  big_deallocate(d, 8 * mib);  // kept: 12 MiB (c's tail) and 8 MiB
  EXPECT_EQ(big_cached_bytes(), 20 * mib);
  auto* e = static_cast<unsigned char*>(big_allocate(16 * mib));  // 12 + 4 of the 8
  EXPECT_EQ(big_cached_bytes(), 4 * mib);
  const std::vector<bool> all = resident_pages(e, 16 * mib);
  for (size_t i = 0; i < all.size(); ++i) ASSERT_TRUE(all[i]) << "page " << i;
  EXPECT_EQ(e[0], 0xC3);
  EXPECT_EQ(e[12 * mib], 0xD4);
  std::memset(e, 0, 16 * mib);  // writable throughout
  big_deallocate(e, 16 * mib);
  big_release_cached();
  EXPECT_EQ(big_cached_bytes(), 0u);
}
#endif

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

TEST(ProgramBuilder, ADependencyOnALaterTaskIsNotACycle) {
  // A pipeline's receive is issued before the send it waits for exists.
  ProgramBuilder b("later", 2);
  const StreamId s0 = b.stream(0, "compute");
  const StreamId s1 = b.stream(1, "compute");
  const TaskId recv_side = b.add_fixed(s1, 1, 1, DType::kF32, "uses");
  const TaskId send = b.add_transfer(s0, 1, 64, "send");
  b.depend(recv_side, send);
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  EXPECT_EQ(p->deps(recv_side)[0], send);
}

TEST(ProgramBuilder, ARankWaitingOnItsOwnCollectiveIsACycle) {
  // Rank 1's task waits (through x) on rank 0's task: they start together.
  ProgramBuilder b("deadlock", 2);
  const StreamId c0 = b.stream(0, "comm");
  const StreamId c1 = b.stream(1, "comm");
  const StreamId k1 = b.stream(1, "compute");
  const CollectiveId c = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                          {0, 1}, 1024, {c0, c1}, "ar");
  const TaskId x = b.add_fixed(k1, 1, 1, DType::kF32, "x");
  b.depend(x, b.collective_task(c, 0));
  b.depend(b.collective_task(c, 1), x);
  auto p = std::move(b).build();
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.message(), "program 'deadlock': dependency cycle: task 0 'ar' -> task 2 'x' -> task 0 'ar'");
}

// The builder's cycle check against a transitive closure worked out
// independently, on random small Programs (streams, a collective, random
// dependencies in both directions).
TEST(ProgramBuilder, CycleCheckAgreesWithTransitiveClosure) {
  std::mt19937 rng(7);
  int cyclic = 0, acyclic = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const int devices = 3, per_stream = 4;
    ProgramBuilder b("r", devices);
    std::vector<StreamId> streams;
    for (int d = 0; d < devices; ++d) streams.push_back(b.stream(d, "s"));
    std::vector<TaskId> ids;
    std::vector<int> node;  // task -> merged node
    for (int i = 0; i < per_stream; ++i)
      for (int d = 0; d < devices; ++d) {
        ids.push_back(b.add_fixed(streams[static_cast<size_t>(d)], 1, 1, DType::kF32, "t"));
        node.push_back(static_cast<int>(node.size()));
      }
    // One collective over devices 0 and 1, issued last on their streams.
    const CollectiveId c = b.add_collective(CollectiveKind::kAllReduce, CollectiveAlgorithm::kRing,
                                            {0, 1}, 8, {streams[0], streams[1]}, "c");
    const TaskId r0 = b.collective_task(c, 0), r1 = b.collective_task(c, 1);
    node.push_back(r0);
    node.push_back(r0);
    const int n = static_cast<int>(node.size());
    // reach[a][b]: node b waits (transitively) on node a.
    std::vector<std::vector<char>> reach(static_cast<size_t>(n), std::vector<char>(static_cast<size_t>(n), 0));
    auto edge = [&](int before, int after) { reach[static_cast<size_t>(node[static_cast<size_t>(before)])][static_cast<size_t>(node[static_cast<size_t>(after)])] = 1; };
    for (int t = devices; t < per_stream * devices; ++t) edge(t - devices, t);  // stream order
    edge(per_stream * devices - devices, r0);
    edge(per_stream * devices - devices + 1, r1);
    std::uniform_int_distribution<int> pick(0, n - 1);
    const int ndeps = std::uniform_int_distribution<int>(0, 4)(rng);
    for (int k = 0; k < ndeps; ++k) {
      const int t = pick(rng), on = pick(rng);
      b.depend(t, on);
      edge(on, t);
    }
    for (int k = 0; k < n; ++k)
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          const auto ui = static_cast<size_t>(i), uj = static_cast<size_t>(j), uk = static_cast<size_t>(k);
          if (reach[ui][uk] && reach[uk][uj]) reach[ui][uj] = 1;
        }
    bool cycle = false;
    for (int i = 0; i < n; ++i) cycle = cycle || reach[static_cast<size_t>(i)][static_cast<size_t>(i)];
    auto p = std::move(b).build();
    EXPECT_EQ(!p.is_ok(), cycle) << "trial " << trial << ": " << (p.is_ok() ? "" : p.message());
    if (!p.is_ok()) {
      EXPECT_EQ(p.message().rfind("program 'r': dependency cycle: ", 0), 0u) << p.message();
    }
    (cycle ? cyclic : acyclic) += 1;
  }
  // Both outcomes were exercised.
  EXPECT_GT(cyclic, 20);
  EXPECT_GT(acyclic, 20);
}

TEST(ProgramBuilder, ReserveScaledKeepsWhatWasAdded) {
  ProgramBuilder b("p", 1);
  const StreamId s = b.stream(0, "compute");
  const TaskId a = b.add_fixed(s, 1, 2, DType::kF32, "a");
  const BufferId buf = b.add_buffer("buf", 0, 8, MemoryCategory::kActivations);
  b.alloc(a, buf);
  b.reserve_scaled(1000);
  const TaskId c = b.add_fixed(s, 3, 4, DType::kF32, "c");
  b.depend(c, a);
  b.free(c, buf);
  auto p = std::move(b).build();
  ASSERT_TRUE(p.is_ok()) << p.message();
  ASSERT_EQ(p->num_tasks(), 2);
  EXPECT_EQ(p->task(c).flops, 3.0);
  EXPECT_EQ(p->task_name(a), "a");
  EXPECT_EQ(p->task_name(c), "c");
  ASSERT_EQ(p->allocs(a).size(), 1u);
  ASSERT_EQ(p->frees(c).size(), 1u);
  EXPECT_EQ(p->deps(c)[0], a);
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

// The one collective vocabulary (trace readers, the app's colours, brigade
// kernels): names of NCCL's kernels, JAX's ops and Brigade's tasks.
TEST(CollectiveKindInName, WordsMostSpecificFirst) {
  const auto kind = [](std::string_view name, NameContext context) {
    const auto k = collective_kind_in_name(name, context);
    return k ? std::string(collective_kind_name(*k)) : std::string("-");
  };
  const NameContext any = NameContext::kAny, nccl = NameContext::kNccl,
                    coll = NameContext::kCollective;
  EXPECT_EQ(kind("ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL", any), "reducescatter");
  EXPECT_EQ(kind("ncclKernel_AllReduce_RING_LL_Sum_float", any), "allreduce");
  EXPECT_EQ(kind("nccl:all_reduce", any), "allreduce");
  EXPECT_EQ(kind("all-gather.3", any), "allgather");
  EXPECT_EQ(kind("grad.all.reduce", any), "allreduce");
  EXPECT_EQ(kind("psum_scatter", any), "reducescatter");
  EXPECT_EQ(kind("pmean", any), "allreduce");
  EXPECT_EQ(kind("nccl:all_to_all", any), "alltoall");
  EXPECT_EQ(kind("ncclKernel_Broadcast_RING_LL", any), "broadcast");
  // Words ordinary kernels have too: only where the name is known.
  EXPECT_EQ(kind("elementwise_bcast_add", any), "-");
  EXPECT_EQ(kind("nccl:bcast", nccl), "broadcast");
  EXPECT_EQ(kind("reduce_kernel", any), "-");
  EXPECT_EQ(kind("ncclDevKernel_Reduce_Sum_f32_RING_LL", any), "-");
  EXPECT_EQ(kind("ncclDevKernel_Reduce_Sum_f32_RING_LL", nccl), "reduce");
  EXPECT_EQ(kind("dp.grad_reduce", coll), "reduce");
  // A gather is an AllGather only as a collective's name: PyTorch's
  // "nccl:gather" gathers to one rank.
  EXPECT_EQ(kind("nccl:gather", nccl), "-");
  EXPECT_EQ(kind("tp.gather", coll), "allgather");
  EXPECT_EQ(kind("ncclDevKernel_SendRecv", coll), "-");
  EXPECT_EQ(kind("", coll), "-");
}

}  // namespace
}  // namespace brigade
