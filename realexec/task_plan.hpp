// What a real backend runs for each task of a Program, decided once for
// both backends (cpu_executor.cpp, cuda_executor.cpp): the GEMM a compute
// task runs as, the shape of a collective's data, the names used in
// messages, and the finishing of a trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "core/program.hpp"
#include "core/topology.hpp"
#include "core/trace.hpp"
#include "realexec/executor.hpp"
#include "realexec/pattern.hpp"

namespace brigade::realexec {

struct GemmShape {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
};

// The GEMM a compute task runs as: a GEMM task its own shape; a fixed kernel
// that the roofline of its device calls compute-bound (core/profile.hpp,
// kernel_seconds: FLOP / peak >= bytes / bandwidth) a GEMM of its FLOPs,
// m = n = round(cbrt(F/2)), k = round(F / 2mn) (the inverse of gemm_flops),
// each at least 1. nullopt: the task streams its bytes (memory-bound tasks,
// memory-bound fixed kernels).
std::optional<GemmShape> gemm_of(const Task& task, const Device& device);

// The element bytes of the buffer a GEMM task adds its product into, or 0
// for a GEMM that writes a fresh output. A kGemm task adds into its output
// (fused gradient accumulation: D = A B + C, C = D, beta 1) where its own
// Program::gemm_mix entry carries accumulate_bytes > 0, the bytes such a
// GEMM moves beyond a fresh output of e bytes an element: m n batch
// (2g - e), g the buffer's element bytes (costmodel/transformer_blocks.cpp:
// the C read and the wider D write). e is 2 for the 16-bit dtypes and for
// FP8 (whose GEMMs write a BF16 D), the dtype's own bytes for f32, tf32 and
// f64; g = (bytes an element + e) / 2, taken as the nearest of 2, 4 and 8
// (a BF16 gradient buffer 2, Megatron's FP32 main_grad 4). Both backends
// run such a GEMM with beta 1 into a buffer of that width (docs/
// executors.md, "GEMMs that add into their outputs").
int accumulate_width(const Program& p, const Task& task);

struct CollectiveShape {
  Element element = Element::kF32;
  std::int64_t count = 0;  // elements of M (nccl-tests "size")
  int chunks = 1;          // of a pipelined chain (ring.hpp)
  int steps = 1;           // of Brigade's own schedule (ring.hpp)
};

// The data of a collective: M in elements of its dtype (rounded down); with
// `equal_parts` (NCCL), AllGather, ReduceScatter and AllToAll round it down
// to a multiple of the group size.
CollectiveShape collective_shape(const Collective& c, bool equal_parts = false);

// The buffers a stream's transfers and collectives need, both backends
// alike: the largest collective input per element type and output, the
// largest send, and the largest receive per peer device.
struct CommunicationNeed {
  std::map<Element, std::size_t> collective_in;
  std::size_t collective_out = 0;
  std::size_t send = 0;
  std::map<int, std::size_t> receive;

  // Grows the need by a transfer or collective task (compute tasks: no-op);
  // `equal_parts` as in collective_shape.
  void add(const Program& p, const Task& task, bool equal_parts);
};

// "task 3 'mm1'" (or "task 3"); "device 1 'cpu1'".
std::string task_label(const Program& p, TaskId t);
std::string device_label(const Topology& topology, int device);

// The steps of run_steps, both backends alike: `options.repeat` calls of
// `step(verify)`, results checked as `verify` asks (kFirstStep: the first
// step only), progress reported after each; with repeat > 1 the first step
// is a warm-up and its trace is dropped.
Result<std::vector<Trace>> run_repeated(const RunOptions& options, Verify verify,
                                        const std::function<Result<Trace>(bool verify)>& step);

// Sorts spans by (start, device, stream, task), transfers and memory samples
// by time, and names a lane "SRC->DST" (device names) for every transfer.
void finish_trace(Trace& trace);

}  // namespace brigade::realexec
