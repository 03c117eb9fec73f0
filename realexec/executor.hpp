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
  // Communication first: the threads of streams that compute (any kernel
  // task) run in the idle scheduling class (SCHED_IDLE), those of streams
  // that only communicate (transfers, collectives) at the process's normal
  // priority, so that a ring step takes the core from the computing thread
  // it shares it with at once. That is how a GPU behaves (NCCL's kernels and
  // the copy engines progress beside compute) and what the simulator models
  // with comm_compute_share: communication at its own pace, its time charged
  // to the kernel it shares the processor with. At equal priority the
  // scheduler time-slices them and an overlapped 4 MiB ring AllReduce took
  // 4-10 times its time alone; at nice 10 still 4 times (docs/executors.md).
  // Any other busy thread of the host also comes first, as it does for a
  // GPU's kernels on a shared GPU. false: every stream at the process's
  // priority. Neither needs a privilege.
  bool communication_first = true;
  // Pin each device's threads: with at least two usable CPUs per device,
  // device d computes on the (2d)-th and communicates on the (2d+1)-th (a
  // core of its own for communication, as a GPU has copy engines); else all
  // its threads run on the (d mod n)-th of the n usable CPUs (usable_cpus,
  // pinned_cpu). A device is then a core, as a GPU is a chip, rather than
  // wherever the scheduler puts its threads: unpinned, the two devices of
  // the development VM ran GEMMs 20-25% apart, pinned within 2%.
  bool pin_devices = true;
  // Hardware threads the host has, for the "more devices than cores" warning.
  // 0: the CPUs this process may use (usable_cpus(): a container's cpuset
  // or a taskset counts, not the machine's).
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

// The CPUs this process may run on (sched_getaffinity), ascending; all of
// hardware_concurrency where that cannot be read.
std::vector<int> usable_cpus();
// The CPU that CpuOptions::pin_devices gives a thread of device `device`
// (of `devices`) whose stream only communicates (`communication`) or also
// computes; -1 when `cpus` is empty.
int pinned_cpu(int device, int devices, bool communication, const std::vector<int>& cpus);
// How the CPU backend runs one stream's thread: in SCHED_IDLE
// (CpuOptions::communication_first: the stream has a kernel task), pinned
// to `cpu` (CpuOptions::pin_devices; -1: not pinned).
struct StreamPlacement {
  bool idle = false;
  int cpu = -1;
};
// Every stream's placement, by StreamId, for a Program over `devices`
// devices on the CPUs `cpus` (usable_cpus()).
std::vector<StreamPlacement> cpu_stream_placement(const Program& program, int devices,
                                                  const CpuOptions& options,
                                                  const std::vector<int>& cpus);
// Applies a placement to the calling thread; false if the host refused
// part of it (the thread then runs as it was).
bool place_this_thread(const StreamPlacement& placement);
// Whether pinning gives each of `devices` devices a core for its
// communication apart from the one it computes on (two usable CPUs each);
// if not, communication takes the computing core (comm_compute_share 1).
bool communication_has_own_core(int devices, const std::vector<int>& cpus);

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
