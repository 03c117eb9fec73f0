// The CPU backend: a Program run by host threads.
//
// Threads: one per stream (a device is the set of its streams' threads), so
// that the streams of one device run concurrently as CUDA streams do, and a
// rank blocked in a collective on its communication stream never stalls its
// compute stream. Each thread runs its stream's tasks in order; a task first
// waits for its cross-stream dependencies (per-task completion flags under
// one condition variable: the events of this backend). The threads live for
// the whole run (StreamWorkers), not one step.
//
// Memory: the Program's buffers are allocated for real (resident ones before
// the first step, the others when their task starts; a first allocation is
// touched page by page, later steps reuse freed blocks of the same size, as a
// caching allocator does) and freed when their task ends. Kernels work in
// per-stream workspaces allocated once per run. docs/executors.md has the rest.
#include <pthread.h>
#include <sched.h>
#include <unistd.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "core/profile.hpp"
#include "core/topology.hpp"
#include "core/units.hpp"
#include "realexec/cpu_kernels.hpp"
#include "realexec/executor.hpp"
#include "realexec/memory_ledger.hpp"
#include "realexec/pattern.hpp"
#include "realexec/ring.hpp"
#include "realexec/task_plan.hpp"

namespace brigade::realexec {
namespace {

using cpu::HostBuffer;

constexpr const char* kWho = "cpu backend";

// Holds the calling thread until `clock` reads `until`: the runtime
// conditions' extra time (docs/executors.md, "Runtime conditions"). `busy`:
// the device's processor is taken meanwhile (another job on a slowed
// device, a copy held back by a loaded link), so it spins; otherwise (the
// input pipeline) it sleeps while more than 0.2 ms remain, then spins.
void hold_until(Clock& clock, double until, bool busy) {
  for (double now = clock.now_seconds(); now < until; now = clock.now_seconds()) {
    if (!busy && until - now > 2e-4)
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(until - now - 1e-4, 1e-3)));
  }
}

// How much longer a copy takes when `load` of its link's bandwidth is taken:
// it gets (1 - load), so it lasts 1 / (1 - load) as long.
double load_stretch(double load) { return load > 0 ? load / (1 - load) : 0; }

// How long a thread that must wait for another (at a collective's barrier,
// for a cross-stream dependency) spins before it sleeps on a condition
// variable. Waking a sleeper costs 50-150 us on the development VM (a futex
// wake and a reschedule), more than a small collective's whole step; NCCL's
// kernels spin on their flags, and a rank here does the same for a while:
// briefly where another thread of the run shares its core (a device's
// compute thread, which the spin keeps from running), longer where none
// does (tensor parallelism's ranks, which arrive after GEMMs of some
// milliseconds that end up to a few hundred microseconds apart; after 300 us
// the early one slept, and its wake-up landed in the AllReduce's span).
constexpr auto kSpinBudget = std::chrono::microseconds(300);
constexpr auto kSpinBudgetAlone = std::chrono::microseconds(20000);

// How a thread spins before it sleeps.
enum class Spin {
  kNone,   // not at all: a thread it waits for runs on its core
  kYield,  // yielding its core: threads not pinned (the host places them)
  // With the CPU's pause instruction, keeping its core: pinned, and what it
  // waits for runs on another core. Not yielding: a yield hands the core to
  // the core's compute thread (SCHED_IDLE), which then keeps it until the
  // next scheduler tick (up to 4 ms), since a thread that spins never wakes
  // up to preempt it; a data-parallel bucket AllReduce of 0.7 ms took 4.2 ms
  // that way on the development VM.
  kPause,
  kPauseAlone,  // kPause, by a thread alone on its core: for kSpinBudgetAlone
};

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#else
  std::atomic_signal_fence(std::memory_order_seq_cst);
#endif
}

// How a thread of `device`'s, pinned to `cpu`, spins for a thread on
// another core: yielding where another device's threads share its core
// (more devices than CPUs: they have work of their own to do), for long if
// no other stream's thread is placed on its core, else briefly.
Spin pinned_spin(const Program& p, const std::vector<StreamPlacement>& placement, int cpu,
                 int device) {
  int on_cpu = 0;
  for (size_t s = 0; s < placement.size(); ++s) {
    if (placement[s].cpu != cpu) continue;
    if (p.streams()[s].device != device) return Spin::kYield;
    ++on_cpu;
  }
  return on_cpu <= 1 ? Spin::kPauseAlone : Spin::kPause;
}

// Spins (as `mode` says) until `ready()` or `kSpinBudget` has passed;
// ready()'s value.
template <class Ready>
bool spin_until(Spin mode, Ready&& ready) {
  if (mode == Spin::kNone) return ready();
  const auto until = std::chrono::steady_clock::now() +
                     (mode == Spin::kPauseAlone ? kSpinBudgetAlone : kSpinBudget);
  for (;;) {
    for (int i = 0; i < 16; ++i) {
      if (ready()) return true;
      if (mode == Spin::kYield) std::this_thread::yield();
      else cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= until) return ready();
  }
}

// A barrier that an aborting run can break. The last thread to arrive runs
// `on_complete` (under the lock, so what it writes is visible to every thread
// the barrier releases) before releasing the others. Waiters spin briefly
// (yielding) before they sleep: a step of a ring is often shorter than a
// futex wake-up.
class StepBarrier {
 public:
  explicit StepBarrier(int n) : n_(n) {}

  template <class F>
  bool arrive_and_wait(const std::atomic<bool>& abort, Spin spin, F&& on_complete) {
    std::unique_lock<std::mutex> lock(mu_);
    if (abort.load()) return false;
    const std::uint64_t gen = generation_.load();
    if (++arrived_ == n_) {
      on_complete();
      arrived_ = 0;
      generation_.store(gen + 1);
      lock.unlock();
      cv_.notify_all();
      return true;
    }
    lock.unlock();
    if (spin_until(spin, [&] { return generation_.load() != gen || abort.load(); }))
      return generation_.load() != gen;
    lock.lock();
    cv_.wait(lock, [&] { return generation_.load() != gen || abort.load(); });
    return generation_.load() != gen;
  }

  void wake_all() {
    { std::lock_guard<std::mutex> lock(mu_); }
    cv_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int n_;
  int arrived_ = 0;
  std::atomic<std::uint64_t> generation_{0};
};

bool gemm_in_f64(DType t) {
  return t == DType::kF64;
}

// Kernel workspaces of one stream, allocated once per run.
struct Workspace {
  HostBuffer gemm;
  int gemm_filled_as = 0;                 // 0: not yet, 4: f32 operands, 8: f64 operands
  HostBuffer scratch;                     // streaming kernels
  std::map<Element, HostBuffer> coll_in;  // filled with input_value(device, i)
  HostBuffer coll_out;
  HostBuffer xfer_src;
  std::map<int, HostBuffer> xfer_dst;  // by destination device (memory "of" that device)
};

// Physical blocks of the Program's buffers, reused across steps by size.
class BufferPool {
 public:
  Result<std::byte*> acquire(BufferId b, std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = free_.find(bytes);
    HostBuffer block;
    if (it != free_.end()) {
      block = std::move(it->second);
      free_.erase(it);
    } else {
      auto fresh = HostBuffer::allocate(bytes);
      if (!fresh.is_ok()) return fresh.status();
      block = std::move(fresh).value();
    }
    std::byte* p = block.data();
    live_[b] = std::move(block);
    return p;
  }
  void release(BufferId b) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(b);
    if (it == live_.end()) return;
    const std::size_t n = it->second.size();
    free_.emplace(n, std::move(it->second));
    live_.erase(it);
  }

 private:
  std::mutex mu_;
  std::multimap<std::size_t, HostBuffer> free_;
  std::map<BufferId, HostBuffer> live_;
};

struct CollectiveRun {
  explicit CollectiveRun(int n)
      : barrier(n), in(static_cast<size_t>(n)), out(static_cast<size_t>(n)) {}
  StepBarrier barrier;
  std::vector<const std::byte*> in;
  std::vector<std::byte*> out;
  double start_seconds = 0;
  std::vector<double> step_end_seconds;
};

// One thread per non-empty stream, started with the run's first step and
// kept for its later steps (a caching framework's workers persist too): a
// step then pays neither thread creation nor the scheduler's first placement
// of fresh threads (which may start on the same core and migrate only after
// a few milliseconds), only the wake-up from go(). The step's job is set by
// start() before go() and read by every thread after it.
class StreamWorkers {
 public:
  StreamWorkers() = default;
  StreamWorkers(const StreamWorkers&) = delete;
  StreamWorkers& operator=(const StreamWorkers&) = delete;
  ~StreamWorkers() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      quit_ = true;
    }
    go_cv_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  // Sets the step's job and starts the threads not yet running; an error
  // when the host refuses a thread (those started run the job all the same).
  // Each stream's thread runs as `placement` says (by stream).
  Status start(const Program& p, const std::vector<StreamPlacement>& placement,
               std::function<void(StreamId)> job) {
    job_ = std::move(job);
    if (started_) return Status::ok();
    started_ = true;
    try {
      for (StreamId s = 0; s < static_cast<StreamId>(p.streams().size()); ++s) {
        if (p.stream_tasks(s).empty()) continue;
        threads_.emplace_back([this, s, where = placement[static_cast<size_t>(s)]] {
          place_this_thread(where);
          loop(s);
        });
      }
    } catch (const std::system_error& e) {
      return Status::error(std::string(kWho) + ": could not start a thread for every stream (" +
                               std::to_string(threads_.size()) + " started): " + e.what(),
                           ErrorKind::kRuntime);
    }
    return Status::ok();
  }
  // Every thread runs the job once.
  void go() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      running_ = static_cast<int>(threads_.size());
      ++generation_;
    }
    go_cv_.notify_all();
  }
  // Until every thread has returned from the job.
  void wait() {
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [&] { return running_ == 0; });
  }

 private:
  void loop(StreamId s) {
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      go_cv_.wait(lock, [&] { return quit_ || generation_ != seen; });
      if (quit_) return;
      seen = generation_;
      lock.unlock();
      job_(s);
      lock.lock();
      if (--running_ == 0) done_cv_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable go_cv_, done_cv_;
  std::vector<std::thread> threads_;
  std::function<void(StreamId)> job_;
  std::uint64_t generation_ = 0;
  int running_ = 0;
  bool quit_ = false;
  bool started_ = false;
};

// What the threads of one step share.
struct StepState {
  explicit StepState(const Program& p)
      : done(static_cast<size_t>(p.num_tasks())), wanted(static_cast<size_t>(p.num_tasks())) {
    for (auto& d : done) d.store(0);
    for (auto& w : wanted) w.store(0);
    for (const Collective& c : p.collectives()) {
      colls.push_back(std::make_unique<CollectiveRun>(static_cast<int>(c.group.size())));
      colls.back()->step_end_seconds.assign(static_cast<size_t>(collective_shape(c).steps), 0.0);
    }
  }
  std::vector<std::atomic<std::uint8_t>> done;
  // Whether a thread sleeps (or is about to) until the task is done: only
  // then does finish() wake the sleepers. Waking every sleeper at every
  // task's end woke each device's communication threads at each kernel's
  // end; a woken thread preempts its core's compute thread (SCHED_IDLE),
  // and the kernels of a data-parallel step were 50-70 us apart.
  std::vector<std::atomic<std::uint8_t>> wanted;
  std::mutex mu;
  std::condition_variable cv;
  std::atomic<bool> abort{false};
  std::mutex error_mu;
  Status error;
  std::vector<std::unique_ptr<CollectiveRun>> colls;

  void fail(Status s) {
    {
      std::lock_guard<std::mutex> lock(error_mu);
      if (error.is_ok()) error = std::move(s);
    }
    abort.store(true);
    { std::lock_guard<std::mutex> lock(mu); }
    cv.notify_all();
    for (auto& c : colls) c->barrier.wake_all();
  }
  // Until task t is done; false if the run aborts. `spin`: how to spin for
  // a while first (only when t's thread runs on another core: one on this
  // core cannot progress while this thread spins, least of all a compute
  // thread in SCHED_IDLE).
  bool wait(TaskId t, Spin spin) {
    if (spin_until(spin, [&] {
          return done[static_cast<size_t>(t)].load(std::memory_order_acquire) != 0 || abort.load();
        }))
      return !abort.load();
    std::unique_lock<std::mutex> lock(mu);
    // Sequentially consistent with finish(): either it sees `wanted` and
    // wakes this thread, or this thread's predicate sees `done`.
    wanted[static_cast<size_t>(t)].store(1);
    cv.wait(lock, [&] { return done[static_cast<size_t>(t)].load() != 0 || abort.load(); });
    return !abort.load();
  }
  void finish(TaskId t) {
    done[static_cast<size_t>(t)].store(1);
    if (wanted[static_cast<size_t>(t)].load() == 0) return;
    { std::lock_guard<std::mutex> lock(mu); }
    cv.notify_all();
  }
};

// What one stream's thread records.
struct StreamRecord {
  std::vector<TraceSpan> spans;
  std::vector<TraceTransfer> transfers;
};

class CpuExecutor final : public RealExecutor {
 public:
  explicit CpuExecutor(CpuOptions options) : options_(std::move(options)) {
    if (!options_.clock) options_.clock = std::make_shared<SteadyClock>();
  }
  std::string name() const override { return "cpu"; }
  Result<std::vector<Trace>> run_steps(const Program& program, const Topology& topology,
                                       const HardwareProfile& profile,
                                       const RunOptions& options) override;

 private:
  // Everything one run holds; destroyed (freeing it all) when the run returns.
  struct Run {
    const Program* program = nullptr;
    const Topology* topology = nullptr;
    std::unique_ptr<MemoryLedger> ledger;
    BufferPool pool;
    std::vector<Workspace> ws;  // by stream
    std::string source = "cpu";
    // How each stream's thread runs (cpu_stream_placement), by stream.
    std::vector<StreamPlacement> placement;
    // The runtime conditions (RunOptions::runtime) and, by device, the
    // extra time per second of kernel, 1/f - 1 for a speed f.
    RuntimeConditions runtime;
    std::vector<double> kernel_stretch;
    StreamWorkers workers;  // last: its threads stop before the rest is freed
  };

  Status check_program(const Program& p, const Topology& topo);
  Status setup(Run& run);
  Result<Trace> run_step(Run& run, bool verify);
  void run_stream(Run& run, StepState& st, StreamId s, double t0, bool verify, StreamRecord& rec);
  Status run_collective(Run& run, StepState& st, TaskId t, double t0, bool verify, Spin spin,
                        StreamRecord& rec, double* start, double* end);

  CpuOptions options_;
  bool uses_16bit_ = false;
};

Status CpuExecutor::check_program(const Program& p, const Topology& topo) {
  warnings_.clear();
  uses_16bit_ = false;
  BRIGADE_RETURN_IF_ERROR(p.validate_against(topo));
#if defined(BRIGADE_CPU_ARCH) && (defined(__x86_64__) || defined(_M_X64))
  if (std::string_view(BRIGADE_CPU_ARCH) == "x86-64-v3" &&
      !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")))
    return Status::error(std::string(kWho) +
                             ": built for x86-64-v3 (AVX2 and FMA), which this CPU lacks; rebuild "
                             "with -DBRIGADE_CPU_ARCH= (empty)",
                         ErrorKind::kUnsupported);
#endif
  bool any_16bit = false;
  std::set<std::string> other_algorithms;
  for (TaskId t = 0; t < p.num_tasks(); ++t) {
    const Task& task = p.task(t);
    if (task.kind == TaskKind::kCompute) {
      const auto ck = static_cast<int>(task.compute);
      if (ck > static_cast<int>(ComputeKind::kFixed))
        return Status::error(std::string(kWho) + ": " + task_label(p, t) + " has compute kind " +
                             std::to_string(ck) + "; expected gemm, memory or fixed");
      if (!gemm_of(task, topo.device(task.device))) continue;
      switch (task.dtype) {
        case DType::kF64:
        case DType::kF32:
        case DType::kTF32:
          break;
        case DType::kF16:
        case DType::kBF16:
          if (options_.compute_16bit_in_f32) {
            any_16bit = true;
            break;
          }
          [[fallthrough]];
        default:
          return Status::error(
              std::string(kWho) + ": " + task_label(p, t) + " is a " +
              std::string(dtype_name(task.dtype)) + " " +
              (task.compute == ComputeKind::kGemm ? "GEMM" : "fixed kernel") +
              "; the CPU backend computes f64 and f32 (tf32 as f32), and f16 and bf16 only when "
              "allowed to compute them in f32");
      }
    } else if (task.kind == TaskKind::kTransfer) {
      if (task.peer < 0 || task.peer >= p.num_devices)
        return Status::error(std::string(kWho) + ": " + task_label(p, t) + " sends to device " +
                             std::to_string(task.peer) + ", which does not exist");
    }
  }
  for (size_t c = 0; c < p.collectives().size(); ++c) {
    const Collective& col = p.collectives()[c];
    Element e;
    if (!collective_element(col.dtype, &e))
      return Status::error(std::string(kWho) + ": collective " + std::to_string(c) + " (" +
                           task_label(p, col.tasks.front()) + ") reduces " +
                           std::string(dtype_name(col.dtype)) +
                           "; the CPU backend reduces f64, f32, tf32, f16, bf16 and i32");
    if (col.algorithm != CollectiveAlgorithm::kRing && col.algorithm != CollectiveAlgorithm::kAuto)
      other_algorithms.insert(std::string(collective_algorithm_name(col.algorithm)));
  }
  const int cores = options_.hardware_threads > 0 ? options_.hardware_threads
                                                  : static_cast<int>(usable_cpus().size());
  if (cores > 0 && p.num_devices > cores)
    warnings_.push_back("program '" + p.name + "' has " + std::to_string(p.num_devices) +
                        " devices and this process " + std::to_string(cores) +
                        " CPUs to run on: devices share cores, so measured times include "
                        "time-slicing");
  if (!other_algorithms.empty()) {
    std::string names;
    for (const auto& a : other_algorithms) names += (names.empty() ? "" : ", ") + a;
    warnings_.push_back("collectives asking for " + names +
                        " run with the CPU backend's ring, chain and pairwise algorithms "
                        "(realexec/ring.hpp)");
  }
  if (any_16bit) warnings_.push_back("f16/bf16 GEMMs and fixed kernels were computed in f32");
  uses_16bit_ = any_16bit;
  return Status::ok();
}

Status CpuExecutor::setup(Run& run) {
  const Program& p = *run.program;
  const Topology& topo = *run.topology;
  run.ws.resize(p.streams().size());
  // Sizes first, so that the host limit is checked before anything is touched.
  struct Need {
    std::size_t gemm = 0;
    bool f32 = false, f64 = false;
    std::size_t scratch = 0;
    bool values = false;  // a norm or activation task reads the scratch's values
    CommunicationNeed comm;
  };
  std::vector<Need> need(p.streams().size());
  for (TaskId t = 0; t < p.num_tasks(); ++t) {
    const Task& task = p.task(t);
    Need& n = need[static_cast<size_t>(task.stream)];
    if (task.kind == TaskKind::kCompute) {
      if (const auto g = gemm_of(task, topo.device(task.device))) {
        const bool f64 = gemm_in_f64(task.dtype);
        (f64 ? n.f64 : n.f32) = true;
        n.gemm = std::max(n.gemm, cpu::gemm_workspace_bytes(f64, g->m, g->n, g->k, g->batch));
      } else {
        const double half = std::min(task.bytes / 2.0, options_.stream_scratch_cap_bytes);
        n.scratch = std::max(n.scratch, static_cast<std::size_t>(half / 4.0) * 4);
        n.values = n.values || is_norm(task.kernel) || is_activation(task.kernel);
      }
    } else {
      n.comm.add(p, task, /*equal_parts=*/false);
    }
  }
  for (size_t s = 0; s < need.size(); ++s) {
    const Need& n = need[s];
    const int dev = p.streams()[s].device;
    const std::string of = " of stream '" + p.streams()[s].name + "'";
    std::size_t coll = n.comm.collective_out;
    for (const auto& [e, b] : n.comm.collective_in) coll += b;
    std::size_t dst = 0;
    for (const auto& [d, b] : n.comm.receive) dst += b;
    BRIGADE_RETURN_IF_ERROR(
        run.ledger->reserve_workspace(dev, static_cast<double>(n.gemm), "GEMM operands" + of));
    BRIGADE_RETURN_IF_ERROR(run.ledger->reserve_workspace(dev, static_cast<double>(n.scratch),
                                                          "streaming scratch" + of));
    BRIGADE_RETURN_IF_ERROR(
        run.ledger->reserve_workspace(dev, static_cast<double>(coll), "collective buffers" + of));
    BRIGADE_RETURN_IF_ERROR(run.ledger->reserve_workspace(
        dev, static_cast<double>(n.comm.send + dst), "transfer buffers" + of));
  }
  for (size_t s = 0; s < need.size(); ++s) {
    const Need& n = need[s];
    Workspace& w = run.ws[s];
    const int dev = p.streams()[s].device;
    BRIGADE_ASSIGN_OR_RETURN(w.gemm, HostBuffer::allocate(n.gemm));
    BRIGADE_ASSIGN_OR_RETURN(w.scratch, HostBuffer::allocate(n.scratch));
    // Values, as a plan's activations hold, where a norm or activation task
    // will read them (their arithmetic on zeros would not be theirs); the
    // plain stream's x = -x runs alike on any value, so its scratch
    // holds the allocation's zeros, spared a second pass at set-up.
    if (n.values) cpu::fill_scratch(w.scratch.as<float>(), n.scratch / 4);
    for (const auto& [e, b] : n.comm.collective_in) {
      BRIGADE_ASSIGN_OR_RETURN(HostBuffer in, HostBuffer::allocate(b));
      cpu::fill_input(e, in.data(),
                      static_cast<std::int64_t>(b / static_cast<std::size_t>(element_bytes(e))),
                      dev);
      w.coll_in.emplace(e, std::move(in));
    }
    BRIGADE_ASSIGN_OR_RETURN(w.coll_out, HostBuffer::allocate(n.comm.collective_out));
    BRIGADE_ASSIGN_OR_RETURN(w.xfer_src, HostBuffer::allocate(n.comm.send));
    for (std::size_t i = 0; i < n.comm.send; ++i)
      w.xfer_src.data()[i] =
          static_cast<std::byte>((i * 131 + static_cast<std::size_t>(dev) * 17) & 0xff);
    for (const auto& [d, b] : n.comm.receive) {
      BRIGADE_ASSIGN_OR_RETURN(HostBuffer buf, HostBuffer::allocate(b));
      w.xfer_dst.emplace(d, std::move(buf));
    }
  }
  // Resident buffers live from the start.
  for (BufferId b = 0; b < static_cast<BufferId>(p.buffers().size()); ++b) {
    const Buffer& buf = p.buffers()[static_cast<size_t>(b)];
    if (!buf.resident) continue;
    BRIGADE_RETURN_IF_ERROR(run.ledger->reserve(b, -1, 0.0));
    auto block = run.pool.acquire(b, static_cast<std::size_t>(buf.bytes));
    if (!block.is_ok()) return block.status();
  }
  return Status::ok();
}

Status CpuExecutor::run_collective(Run& run, StepState& st, TaskId t, double t0, bool verify,
                                   Spin spin, StreamRecord& rec, double* start, double* end) {
  const Program& p = *run.program;
  const Task& task = p.task(t);
  const Collective& c = p.collectives()[static_cast<size_t>(task.collective)];
  CollectiveRun& cr = *st.colls[static_cast<size_t>(task.collective)];
  const CollectiveShape cs = collective_shape(c);
  const int n = static_cast<int>(c.group.size());
  int rank = 0;
  while (rank < n && c.tasks[static_cast<size_t>(rank)] != t) ++rank;
  Workspace& w = run.ws[static_cast<size_t>(task.stream)];
  cr.in[static_cast<size_t>(rank)] = w.coll_in.at(cs.element).data();
  cr.out[static_cast<size_t>(rank)] = w.coll_out.data();
  Clock& clock = *options_.clock;
  // How this rank waits for the others: as its stream waits (`spin`), but not
  // at all if one of them runs on its core.
  const int my_cpu = run.placement[static_cast<size_t>(task.stream)].cpu;
  for (int r = 0; r < n && my_cpu >= 0; ++r)
    if (r != rank &&
        run.placement[static_cast<size_t>(p.task(c.tasks[static_cast<size_t>(r)]).stream)].cpu ==
            my_cpu)
      spin = Spin::kNone;
  // The collective starts when every rank has arrived (communication is synchronisation).
  if (!cr.barrier.arrive_and_wait(st.abort, spin,
                                  [&] { cr.start_seconds = clock.now_seconds() - t0; }))
    return Status::ok();
  const double eb = static_cast<double>(element_bytes(cs.element));
  std::vector<RingOp> ops;
  std::vector<std::pair<int, double>> moved;  // (source rank, bytes) of this step
  for (int step = 0; step < cs.steps; ++step) {
    ring_step_ops(c.kind, n, rank, c.root, cs.count, cs.chunks, step, ops);
    moved.clear();
    const double ops_start = clock.now_seconds();
    double step_load = 0;  // the most loaded route this rank copies from in this step
    for (const RingOp& op : ops) {
      if (!run.runtime.link_load.empty() && op.src_rank != rank)
        step_load = std::max(step_load, route_load(*run.topology, run.runtime,
                                                   c.group[static_cast<size_t>(op.src_rank)],
                                                   task.device));
      const std::byte* src = op.src == RingSource::kInput
                                 ? cr.in[static_cast<size_t>(op.src_rank)]
                                 : cr.out[static_cast<size_t>(op.src_rank)];
      cpu::apply_ring_op(cs.element, op, cr.out[static_cast<size_t>(rank)],
                         cr.in[static_cast<size_t>(rank)], src);
      if (op.src_rank != rank && op.count > 0)
        moved.emplace_back(op.src_rank, static_cast<double>(op.count) * eb);
    }
    if (step_load > 0) {
      const double copied = clock.now_seconds() - ops_start;
      hold_until(clock, ops_start + copied * (1 + load_stretch(step_load)), true);
    }
    if (!cr.barrier.arrive_and_wait(st.abort, spin, [&] {
          cr.step_end_seconds[static_cast<size_t>(step)] = clock.now_seconds() - t0;
        }))
      return Status::ok();
    const double s0 =
        step == 0 ? cr.start_seconds : cr.step_end_seconds[static_cast<size_t>(step) - 1];
    for (const auto& [q, bytes] : moved)
      rec.transfers.push_back(TraceTransfer{t, c.group[static_cast<size_t>(q)], task.device, bytes,
                                            s0, cr.step_end_seconds[static_cast<size_t>(step)],
                                            -1});
  }
  *start = cr.start_seconds;
  *end = cr.step_end_seconds.back();
  if (!verify) return Status::ok();
  if (cs.element == Element::kBF16 && 3 * n > 256)
    return Status::ok();  // sums not exact; see pattern.hpp
  ExpectedOutput e;
  e.kind = c.kind;
  e.group = c.group.data();
  e.ranks = n;
  e.rank = rank;
  e.root = c.root;
  e.count = cs.count;
  if (task.collective == options_.corrupt_collective && rank == 0) {
    std::int64_t begin = 0, stop = 0;
    checked_range(e, &begin, &stop);
    if (begin < stop) cpu::add_to_element(cs.element, w.coll_out.data(), begin, 1.0);
  }
  double got = 0, want = 0;
  const std::int64_t bad = cpu::check_output(cs.element, w.coll_out.data(), e, &got, &want);
  if (bad >= 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, ": element %lld is %g; expected %g", static_cast<long long>(bad),
                  got, want);
    return Status::error(std::string(kWho) + ": " + std::string(collective_kind_name(c.kind)) +
                             " " + task_label(p, t) + " (collective " +
                             std::to_string(task.collective) + ") on " +
                             device_label(*run.topology, task.device) + ", rank " +
                             std::to_string(rank) + " of " + std::to_string(n) + buf,
                         ErrorKind::kRuntime);
  }
  return Status::ok();
}

void CpuExecutor::run_stream(Run& run, StepState& st, StreamId s, double t0, bool verify,
                             StreamRecord& rec) {
  const Program& p = *run.program;
  const Topology& topo = *run.topology;
  Clock& clock = *options_.clock;
  Workspace& w = run.ws[static_cast<size_t>(s)];
  const int my_cpu = run.placement[static_cast<size_t>(s)].cpu;
  // How this thread waits for one on another core (Spin).
  const int my_device = p.streams()[static_cast<size_t>(s)].device;
  const Spin spin = my_cpu < 0 ? Spin::kYield : pinned_spin(p, run.placement, my_cpu, my_device);
  auto on_my_cpu = [&](TaskId d) {
    return my_cpu >= 0 && run.placement[static_cast<size_t>(p.task(d).stream)].cpu == my_cpu;
  };
  // The input pipeline: nothing of the step starts before the batch is there.
  if (run.runtime.input_seconds > 0) hold_until(clock, t0 + run.runtime.input_seconds, false);
  const double stretch = run.kernel_stretch.empty()
                             ? 0
                             : run.kernel_stretch[static_cast<size_t>(my_device)];
  for (TaskId t : p.stream_tasks(s)) {
    for (TaskId d : p.deps(t))
      if (!st.wait(d, on_my_cpu(d) ? Spin::kNone : spin)) return;
    const Task& task = p.task(t);
    const double alloc_at = clock.now_seconds() - t0;
    for (BufferId b : p.allocs(t)) {
      Status ok = run.ledger->reserve(b, t, alloc_at);
      if (ok.is_ok()) {
        auto block = run.pool.acquire(
            b, static_cast<std::size_t>(p.buffers()[static_cast<size_t>(b)].bytes));
        if (!block.is_ok()) ok = block.status();
      }
      if (!ok.is_ok()) return st.fail(ok);
    }
    double start = clock.now_seconds() - t0, end = start;
    Status result;
    if (task.kind == TaskKind::kCompute) {
      if (const auto g = gemm_of(task, topo.device(task.device))) {
        const std::int64_t m = g->m, n = g->n, k = g->k, batch = g->batch;
        const bool f64 = gemm_in_f64(task.dtype);
        // Fused gradient accumulation: the GEMM adds into its output.
        const bool accumulate = accumulate_width(p, task) > 0;
        if (w.gemm_filled_as != (f64 ? 8 : 4) || verify) {
          // The workspace is filled per element type, and member 0's
          // operands (and the C an accumulating GEMM adds into) again for
          // each checked GEMM (outside the span).
          // (The whole workspace's pattern puts the same values there.)
          if (w.gemm_filled_as != (f64 ? 8 : 4))
            cpu::fill_gemm_workspace(f64, w.gemm.data(), w.gemm.size());
          else
            cpu::fill_gemm_operands(f64, w.gemm.data(), m, n, k, accumulate);
          w.gemm_filled_as = f64 ? 8 : 4;
          start = clock.now_seconds() - t0;
        }
        cpu::gemm(f64, w.gemm.data(), m, n, k, batch, accumulate);
        end = clock.now_seconds() - t0;
        if (verify) {
          const cpu::GemmCheck c = cpu::check_gemm(f64, w.gemm.data(), m, n, k, accumulate);
          if (!c.ok) {
            char buf[160];
            std::snprintf(buf, sizeof buf, ": C(%lld,%lld) is %g; expected %g",
                          static_cast<long long>(c.i), static_cast<long long>(c.j), c.got, c.want);
            result = Status::error(std::string(kWho) + ": " + task_label(p, t) + " (" +
                                       std::string(dtype_name(task.dtype)) + " GEMM " +
                                       std::to_string(m) + "x" + std::to_string(n) + "x" +
                                       std::to_string(k) + ") on " +
                                       device_label(topo, task.device) + buf,
                                   ErrorKind::kRuntime);
          }
        }
      } else {
        float* x = w.scratch.as<float>();
        const std::size_t n = w.scratch.size() / 4;
        if (is_norm(task.kernel))
          cpu::layer_norm(x, n, task.bytes);
        else if (is_gated_activation(task.kernel))
          cpu::swiglu(x, n, task.bytes);
        else if (is_activation(task.kernel))
          cpu::gelu(x, n, task.bytes);
        else
          cpu::stream(x, n, task.bytes);
        end = clock.now_seconds() - t0;
      }
      if (stretch > 0) {  // a slowed device: another job holds it that much longer
        hold_until(clock, t0 + end + (end - start) * stretch, true);
        end = clock.now_seconds() - t0;
      }
    } else if (task.kind == TaskKind::kTransfer) {
      const auto bytes = static_cast<std::size_t>(task.bytes);
      std::byte* dst = w.xfer_dst.at(task.peer).data();
      std::memcpy(dst, w.xfer_src.data(), bytes);
      end = clock.now_seconds() - t0;
      if (const double load = route_load(topo, run.runtime, task.device, task.peer); load > 0) {
        hold_until(clock, t0 + end + (end - start) * load_stretch(load), true);
        end = clock.now_seconds() - t0;
      }
      rec.transfers.push_back(TraceTransfer{t, task.device, task.peer, task.bytes, start, end, -1});
      if (verify && bytes > 0 && std::memcmp(dst, w.xfer_src.data(), bytes) != 0)
        result = Status::error(std::string(kWho) + ": transfer " + task_label(p, t) + " from " +
                                   device_label(topo, task.device) + " to " +
                                   device_label(topo, task.peer) +
                                   ": the destination differs from the source after the copy",
                               ErrorKind::kRuntime);
    } else {
      result = run_collective(run, st, t, t0, verify, spin, rec, &start, &end);
      if (st.abort.load()) return;
    }
    for (BufferId b : p.frees(t)) {
      run.ledger->release(b, end);
      run.pool.release(b);
    }
    rec.spans.push_back(TraceSpan{t, task.device, task.stream, start, end, task.name, task.kind,
                                  task.phase, task.collective});
    st.finish(t);
    if (!result.is_ok()) return st.fail(result);
  }
}

Result<Trace> CpuExecutor::run_step(Run& run, bool verify) {
  const Program& p = *run.program;
  StepState st(p);
  std::vector<StreamRecord> records(p.streams().size());
  double t0 = 0;
  Status spawn_error = run.workers.start(p, run.placement, [&](StreamId s) {
    if (st.abort.load()) return;
    try {
      run_stream(run, st, s, t0, verify, records[static_cast<size_t>(s)]);
    } catch (const std::bad_alloc&) {
      st.fail(Status::error(std::string(kWho) + ": the host ran out of memory on stream '" +
                                p.streams()[static_cast<size_t>(s)].name + "'",
                            ErrorKind::kRuntime));
    } catch (const std::exception& e) {
      st.fail(Status::error(std::string(kWho) + ": " + e.what(), ErrorKind::kInternal));
    }
  });
  if (!spawn_error.is_ok()) st.abort.store(true);
  run.ledger->restart_samples(0.0);
  t0 = options_.clock->now_seconds();
  run.workers.go();
  run.workers.wait();
  const double step_end = options_.clock->now_seconds() - t0;
  // Buffers the Program never frees die with the step.
  for (BufferId b = 0; b < static_cast<BufferId>(p.buffers().size()); ++b)
    if (!p.buffers()[static_cast<size_t>(b)].resident && run.ledger->is_live(b)) {
      run.ledger->release(b, step_end);
      run.pool.release(b);
    }
  if (!spawn_error.is_ok()) return spawn_error;
  if (!st.error.is_ok()) return st.error;

  Trace trace;
  trace.source = run.source;
  trace.program = p.name;
  for (int d = 0; d < p.num_devices; ++d)
    trace.device_names.push_back(run.topology->device(d).name);
  trace.streams = p.streams();
  trace.names = p.names();
  for (StreamRecord& r : records) {
    trace.spans.insert(trace.spans.end(), r.spans.begin(), r.spans.end());
    trace.transfers.insert(trace.transfers.end(), r.transfers.begin(), r.transfers.end());
  }
  trace.memory = run.ledger->take_samples();
  finish_trace(trace);
  return trace;
}

Result<std::vector<Trace>> CpuExecutor::run_steps(const Program& program, const Topology& topology,
                                                  const HardwareProfile& /*profile*/,
                                                  const RunOptions& options) {
  if (options.repeat < 1)
    return Status::error("found repeat " + std::to_string(options.repeat) +
                         "; expected repeat >= 1");
  BRIGADE_RETURN_IF_ERROR(check_program(program, topology));
  double host_limit = options_.host_memory_limit_bytes;
  if (!(host_limit > 0)) {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    host_limit =
        pages > 0 && page > 0 ? 0.5 * static_cast<double>(pages) * static_cast<double>(page) : 0;
  }
  Run run;
  run.program = &program;
  run.topology = &topology;
  run.ledger = std::make_unique<MemoryLedger>(program, topology, kWho, host_limit, true);
  if (uses_16bit_) run.source = "cpu (f16/bf16 computed in f32)";
  run.placement = cpu_stream_placement(program, topology.num_devices(), options_,
                                       options_.pin_devices ? usable_cpus() : std::vector<int>{});
  run.runtime = options.runtime;
  for (const auto& [dev, f] : options.runtime.device_speeds(program.num_devices)) {
    if (!(f > 0) || !(f <= 1)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%g", f);
      return Status::error(std::string(kWho) + ": runtime speed " + buf + " for device " +
                           std::to_string(dev) + "; expected a factor in (0, 1]");
    }
    if (dev < 0 || dev >= program.num_devices) continue;
    run.kernel_stretch.resize(static_cast<size_t>(program.num_devices), 0.0);
    run.kernel_stretch[static_cast<size_t>(dev)] = 1 / f - 1;
  }
  BRIGADE_RETURN_IF_ERROR(setup(run));
  return run_repeated(options, options_.verify,
                      [&](bool verify) { return run_step(run, verify); });
}

}  // namespace

std::vector<int> usable_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  if (cpus.empty())
    for (int c = 0; c < static_cast<int>(std::thread::hardware_concurrency()); ++c) cpus.push_back(c);
  return cpus;
}

std::vector<StreamPlacement> cpu_stream_placement(const Program& program, int devices,
                                                  const CpuOptions& options,
                                                  const std::vector<int>& cpus) {
  std::vector<StreamPlacement> out(program.streams().size());
  for (StreamId s = 0; s < static_cast<StreamId>(out.size()); ++s) {
    bool computes = false;
    for (TaskId t : program.stream_tasks(s)) computes |= program.task(t).kind == TaskKind::kCompute;
    StreamPlacement& where = out[static_cast<size_t>(s)];
    where.idle = computes && options.communication_first;
    if (options.pin_devices)
      where.cpu = pinned_cpu(program.streams()[static_cast<size_t>(s)].device, devices, !computes, cpus);
  }
  return out;
}

bool place_this_thread(const StreamPlacement& placement) {
  bool ok = true;
  if (placement.idle) {
    sched_param none{};
    none.sched_priority = 0;
    ok &= ::pthread_setschedparam(::pthread_self(), SCHED_IDLE, &none) == 0;
  }
  if (placement.cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(placement.cpu, &set);
    ok &= ::pthread_setaffinity_np(::pthread_self(), sizeof set, &set) == 0;
  }
  return ok;
}

bool communication_has_own_core(int devices, const std::vector<int>& cpus) {
  return devices > 0 && cpus.size() >= 2 * static_cast<size_t>(devices);
}

int pinned_cpu(int device, int devices, bool communication, const std::vector<int>& cpus) {
  if (cpus.empty() || device < 0) return -1;
  const auto d = static_cast<size_t>(device);
  if (communication_has_own_core(devices, cpus)) return cpus[2 * d + (communication ? 1 : 0)];
  return cpus[d % cpus.size()];
}

std::unique_ptr<RealExecutor> make_cpu_executor(const CpuOptions& options) {
  return std::make_unique<CpuExecutor>(options);
}

}  // namespace brigade::realexec
