// The real executors: run a Program on real hardware and return the same
// Trace type the simulator returns (core/executor.hpp).
//
//   cpu   one thread per stream of every device (a device is the set of its
//         streams' threads), GEMMs through Eigen, streaming kernels, copies
//         between per-device buffers, collectives implemented for real over
//         shared memory and checked against a reference. Runs everywhere.
//   cuda  one CUDA stream per Program stream, cuBLAS GEMMs, a streaming
//         kernel, peer copies, NCCL collectives (one rank per GPU), cudaEvent
//         timing; more devices than GPUs map onto streams of the GPUs present
//         and their collectives use Brigade's own ring. Built only with the
//         CUDA toolkit and NCCL; reports "no CUDA device: ..." without a GPU.
//
// docs/executors.md has the whole contract (what each task kind does, dtype
// support, verification, timing, memory).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/executor.hpp"
#include "core/program.hpp"
#include "core/status.hpp"
#include "core/trace.hpp"
#include "realexec/clock.hpp"

namespace brigade::realexec {

enum class Backend { kCpu, kCuda };
std::string_view backend_name(Backend b);  // "cpu", "cuda"
std::optional<Backend> parse_backend(std::string_view s);

// Which steps check their collectives' (and transfers') results against the
// reference. Checking reads every output element after the operation, on the
// operation's stream and outside its span, so it delays what follows; with
// kFirstStep and repeat > 1 only the untimed warm-up step pays for it.
enum class Verify { kEveryStep, kFirstStep, kNever };

struct CpuOptions {
  std::shared_ptr<Clock> clock;  // null: SteadyClock
  Verify verify = Verify::kFirstStep;
  // The CPU computes GEMMs in f64 and f32 (tf32 GEMMs run as f32, the format
  // they are stored in). f16/bf16 GEMMs and fixed kernels are rejected as bad
  // input unless this is set; then they run in f32 and the trace's source
  // says so ("cpu (f16/bf16 computed in f32)").
  bool compute_16bit_in_f32 = false;
  // Safety limit on everything the run allocates on the host (the Program's
  // buffers and the kernels' workspaces). 0: half of physical memory.
  double host_memory_limit_bytes = 0;
  // Streaming kernels loop over a scratch buffer of at most this size (well
  // past any last-level cache) instead of allocating `bytes` of scratch.
  double stream_scratch_cap_bytes = 256.0 * 1024 * 1024;
  // Hardware threads the host has, for the "more devices than cores" warning.
  // 0: std::thread::hardware_concurrency().
  int hardware_threads = 0;
  // Fault injection for tests of the checks: before checking collective
  // `corrupt_collective`'s result on its rank 0, add 1 to that rank's first
  // checked output element. -1: never.
  int corrupt_collective = -1;
};

struct CudaOptions {
  Verify verify = Verify::kFirstStep;
  // Use at most this many GPUs (0: all present).
  int max_gpus = 0;
  // With more Program devices than GPUs, map device d onto GPU d mod G (its
  // streams become streams of that GPU) instead of failing.
  bool allow_virtual_devices = true;
};

// An Executor that runs for real. `run` runs `options.repeat` steps (the
// first is an untimed warm-up when repeat > 1) and returns the trace of the
// timed step with the median step time; `run_steps` returns every timed
// step's trace. A failed run has freed everything it allocated and joined
// every thread it started.
class RealExecutor : public Executor {
 public:
  Result<Trace> run(const Program& program, const Topology& topology,
                    const HardwareProfile& profile, const RunOptions& options) override;
  // The traces of the timed steps, in order.
  virtual Result<std::vector<Trace>> run_steps(const Program& program, const Topology& topology,
                                               const HardwareProfile& profile,
                                               const RunOptions& options) = 0;
  // What the last run wants its user to know: more devices than cores,
  // virtual devices, dtypes run in another precision. One line each.
  const std::vector<std::string>& warnings() const { return warnings_; }

 protected:
  std::vector<std::string> warnings_;
};

std::unique_ptr<RealExecutor> make_cpu_executor(const CpuOptions& options = {});

// The CUDA executor, or why there is none: "no CUDA device: <reason>" when no
// GPU can be used, "the CUDA backend was not built: ..." without the toolkit.
// Both are bad input (ErrorKind::kBadInput) for `--backend cuda`.
Result<std::unique_ptr<RealExecutor>> make_cuda_executor(const CudaOptions& options = {});

// Whether a CUDA device can be used; if not and `why` is given, why not.
bool cuda_device_available(std::string* why = nullptr);
// How many CUDA devices this process sees (0 without the backend or a GPU).
int cuda_device_count(std::string* why = nullptr);
// The name CUDA gives a GPU ("NVIDIA H200"), which the presets use as Device::model.
Result<std::string> cuda_device_name(int gpu);

// The executor of a backend with default options (errors as make_cuda_executor).
Result<std::unique_ptr<RealExecutor>> make_executor(Backend backend);

}  // namespace brigade::realexec
