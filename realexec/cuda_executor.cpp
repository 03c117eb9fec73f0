// The CUDA backend: a Program run on the GPUs present, from one host thread.
//
// Mapping: Program device d runs on GPU d mod G (G GPUs used); each Program
// stream is one CUDA stream of that GPU. With as many GPUs as devices the
// mapping is one to one and collectives go to NCCL (one communicator per
// distinct group, ncclCommInitAll in this process, one rank per GPU). With
// more devices than GPUs ("virtual devices") collectives run Brigade's own
// schedules (realexec/ring.hpp) over device-to-device copies, because NCCL
// refuses two ranks on one GPU.
//
// Issue: the host walks the Program in a topological order (stream order plus
// dependencies, a collective's rank tasks as one node) and enqueues each task
// on its stream: cudaStreamWaitEvent on the end event of every dependency,
// stream-ordered allocation of its buffers (cudaMallocAsync), a start event,
// the work, an end event, stream-ordered frees. Every event a wait names was
// recorded before, because of the order. Times come from cudaEventElapsedTime
// against a reference event per GPU recorded when all GPUs were idle.
//
// Built into the module libbrigade_cuda.so, which the programs open on first
// use of the backend (cuda_module.hpp).
//
// Untested on a GPU at the time of writing (the development machines have
// none); scripts/gpu-check.sh runs its tests where one is lent.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

#include "core/profile.hpp"
#include "core/topology.hpp"
#include "core/units.hpp"
#include "realexec/cuda_check.hpp"
#include "realexec/cuda_fp8_gemm.hpp"
#include "realexec/cuda_gemm.hpp"
#include "realexec/cuda_kernels.hpp"
#include "realexec/cuda_module.hpp"
#include "realexec/executor.hpp"
#include "realexec/memory_ledger.hpp"
#include "realexec/pattern.hpp"
#include "realexec/ring.hpp"
#include "realexec/task_plan.hpp"

namespace brigade::realexec {
namespace {

constexpr const char* kWho = "cuda backend";
constexpr double kScratchCapBytes = 1024.0 * 1024.0 * 1024.0;

// GPUs this process can use, or why none.
int count_gpus(std::string* why) {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    if (why) *why = std::string("no CUDA device: ") + cudaGetErrorString(e);
    cudaGetLastError();  // reset the runtime's last-error state
    return 0;
  }
  if (n == 0 && why) *why = "no CUDA device: cudaGetDeviceCount found none";
  return n;
}

ncclDataType_t nccl_type(Element e) {
  switch (e) {
    case Element::kF64:
      return ncclFloat64;
    case Element::kF32:
      return ncclFloat32;
    case Element::kF16:
      return ncclFloat16;
    case Element::kBF16:
      return ncclBfloat16;
    case Element::kI32:
      return ncclInt32;
  }
  return ncclFloat32;
}

// `st` naming the task it came from: "cuda backend: task 7 'wgrad': ...".
Status for_task(const Program& p, TaskId t, Status st) {
  if (st.is_ok()) return st;
  const std::string who = std::string(kWho) + ": ";
  std::string m = st.message();
  if (m.rfind(who, 0) == 0) m.erase(0, who.size());
  return Status::error(who + task_label(p, t) + ": " + m, st.kind());
}

// A GEMM task's FP8 fast accumulation: on but in the gradients' GEMMs
// (KernelClass::kGemmSplitAccumulator, cuda_fp8_gemm.hpp).
bool fp8_fast_accumulation(const Task& task) {
  return task.kernel != KernelClass::kGemmSplitAccumulator;
}

// Device memory owned by the run (freed on the GPU it came from).
struct DevicePtr {
  void* p = nullptr;
  int gpu = 0;
};

class CudaExecutor;

// Everything one run holds. The destructor waits for the GPUs and frees it
// all, so every return path (errors included) leaves nothing behind.
struct CudaRun {
  const Program* program = nullptr;
  const Topology* topology = nullptr;
  int gpus = 0;
  bool virtual_devices = false;
  std::vector<int> gpu_of;            // by Program device
  std::vector<cudaStream_t> streams;  // by Program stream
  std::vector<int> stream_gpu;        // by Program stream
  // One cuBLAS handle per stream: a handle's default workspace must not be
  // shared by GEMMs running at once on different streams.
  std::vector<cublasHandle_t> blas;                           // by Program stream
  cuda::Fp8Gemms fp8;  // cuBLASLt's FP8 GEMMs (their plans, handles and scales)
  std::vector<DevicePtr> owned;                               // workspaces and resident buffers
  std::map<BufferId, DevicePtr> buffers;                      // non-resident Program buffers, live
  std::map<std::vector<int>, std::vector<ncclComm_t>> comms;  // by GPU list in rank order
  std::vector<cudaEvent_t> events;                            // all of them, for destruction
  std::vector<cudaEvent_t> start, end;                        // by task
  std::vector<cudaEvent_t> reference;                         // by GPU
  std::vector<std::vector<std::vector<cudaEvent_t>>> step_events;  // [collective][rank][step]
  std::vector<cuda::CheckSlot*> slots;  // by collective task (device memory of its GPU)
  std::unique_ptr<MemoryLedger> ledger;

  struct StreamWork {
    std::map<DType, cuda::GemmRegions> gemm;  // by dtype (cuda_gemm.hpp)
    void* fp8_workspace = nullptr;  // cuda::kFp8WorkspaceBytes where the stream runs FP8 GEMMs
    void* scratch = nullptr;
    std::int64_t scratch_elements = 0;
    std::map<Element, void*> coll_in;
    void* coll_out = nullptr;
    void* staging = nullptr;
    void* xfer_src = nullptr;
    std::map<int, void*> xfer_dst;
  };
  std::vector<StreamWork> work;

  ~CudaRun() {
    for (int g = 0; g < gpus; ++g) {
      cudaSetDevice(g);
      cudaDeviceSynchronize();
    }
    for (auto& [b, ptr] : buffers) {
      cudaSetDevice(ptr.gpu);
      cudaFree(ptr.p);
    }
    for (const DevicePtr& ptr : owned) {
      cudaSetDevice(ptr.gpu);
      cudaFree(ptr.p);
    }
    for (auto& [group, cs] : comms)
      for (ncclComm_t c : cs) ncclCommDestroy(c);
    for (cudaEvent_t e : events) cudaEventDestroy(e);
    for (size_t s = 0; s < blas.size(); ++s) {
      cudaSetDevice(stream_gpu[s]);
      if (blas[s]) cublasDestroy(blas[s]);
    }
    for (cudaStream_t s : streams)
      if (s) cudaStreamDestroy(s);
    cudaGetLastError();
  }
};

class CudaExecutor final : public RealExecutor {
 public:
  CudaExecutor(CudaOptions options, int gpus) : options_(options), gpus_(gpus) {}
  std::string name() const override { return "cuda"; }
  Result<std::vector<Trace>> run_steps(const Program& program, const Topology& topology,
                                       const HardwareProfile& profile,
                                       const RunOptions& options) override;

 private:
  Status check_program(const Program& p, const Topology& topo);
  Status setup(CudaRun& run);
  Status alloc(CudaRun& run, int gpu, std::size_t bytes, const std::string& what, void** p);
  Status enqueue_task(CudaRun& run, TaskId t, bool verify);
  Status enqueue_collective(CudaRun& run, CollectiveId c, bool verify);
  Status wait_deps(CudaRun& run, TaskId t);
  Status alloc_buffers(CudaRun& run, TaskId t);
  Status free_buffers(CudaRun& run, TaskId t);
  Result<Trace> run_step(CudaRun& run, bool verify);

  CudaOptions options_;
  int gpus_;
};

Status CudaExecutor::check_program(const Program& p, const Topology& topo) {
  warnings_.clear();
  BRIGADE_RETURN_IF_ERROR(p.validate_against(topo));
  const int g = gpus_;
  if (p.num_devices > g) {
    if (!options_.allow_virtual_devices)
      return Status::error(std::string(kWho) + ": program '" + p.name + "' has " +
                           std::to_string(p.num_devices) + " devices and " + std::to_string(g) +
                           " GPU" + (g == 1 ? "" : "s") + " are present; expected at most " +
                           std::to_string(g) + " devices (or allow virtual devices)");
    warnings_.push_back("program '" + p.name + "' has " + std::to_string(p.num_devices) +
                        " devices and " + std::to_string(g) + " GPU" + (g == 1 ? "" : "s") +
                        " are present: device d runs on GPU d mod " + std::to_string(g) +
                        " as streams of it, and collectives use Brigade's ring over "
                        "device-to-device copies, not NCCL");
  }
  cuda::Fp8Check fp8;  // the program's FP8 GEMMs: the GPUs' support, the padded shapes
  for (TaskId t = 0; t < p.num_tasks(); ++t) {
    const Task& task = p.task(t);
    if (task.kind != TaskKind::kCompute) continue;
    const auto ck = static_cast<int>(task.compute);
    if (ck > static_cast<int>(ComputeKind::kFixed))
      return Status::error(std::string(kWho) + ": " + task_label(p, t) + " has compute kind " +
                           std::to_string(ck) + "; expected gemm, memory or fixed");
    cudaDataType data;
    cublasComputeType_t compute;
    const auto shape = gemm_of(task, topo.device(task.device));
    if (shape && task.dtype == DType::kFP8) {
      BRIGADE_RETURN_IF_ERROR(fp8.check(p, t, *shape, task.device % std::max(1, g)));
    } else if (shape && !cuda::gemm_types(task.dtype, &data, &compute)) {
      return Status::error(std::string(kWho) + ": " + task_label(p, t) + " is a " +
                           std::string(dtype_name(task.dtype)) +
                           (task.compute == ComputeKind::kGemm ? " GEMM" : " fixed kernel") +
                           "; the CUDA backend computes f64, f32, tf32, f16, bf16 and fp8");
    }
  }
  if (!fp8.warning().empty()) warnings_.push_back(fp8.warning());
  for (size_t c = 0; c < p.collectives().size(); ++c) {
    const Collective& col = p.collectives()[c];
    Element e;
    if (!collective_element(col.dtype, &e))
      return Status::error(std::string(kWho) + ": collective " + std::to_string(c) + " (" +
                           task_label(p, col.tasks.front()) + ") reduces " +
                           std::string(dtype_name(col.dtype)) +
                           "; the CUDA backend reduces f64, f32, tf32, f16, bf16 and i32");
  }
  return Status::ok();
}

Status CudaExecutor::alloc(CudaRun& run, int gpu, std::size_t bytes, const std::string& what,
                           void** p) {
  *p = nullptr;
  if (bytes == 0) return Status::ok();
  BRIGADE_CUDA_CHECK(cudaSetDevice(gpu));
  const cudaError_t e = cudaMalloc(p, bytes);
  if (e != cudaSuccess) {
    cudaGetLastError();
    std::size_t free_bytes = 0, total = 0;
    cudaMemGetInfo(&free_bytes, &total);
    return Status::error(std::string(kWho) + ": out of memory on GPU " + std::to_string(gpu) +
                             ": " + what + " need " + format_bytes(static_cast<double>(bytes)) +
                             "; " + format_bytes(static_cast<double>(free_bytes)) + " of " +
                             format_bytes(static_cast<double>(total)) + " are free (" +
                             cudaGetErrorString(e) + ")",
                         ErrorKind::kBadInput);
  }
  run.owned.push_back(DevicePtr{*p, gpu});
  return Status::ok();
}

Status CudaExecutor::setup(CudaRun& run) {
  const Program& p = *run.program;
  const Topology& topo = *run.topology;
  run.gpus = std::min(gpus_, std::max(1, p.num_devices));
  run.virtual_devices = p.num_devices > run.gpus;
  for (int d = 0; d < p.num_devices; ++d) run.gpu_of.push_back(d % run.gpus);
  for (int g = 0; g < run.gpus; ++g) {
    BRIGADE_CUDA_CHECK(cudaSetDevice(g));
    // Keep freed stream-ordered memory in the pool across steps (a caching
    // allocator's behaviour): later steps do not pay for allocation.
    cudaMemPool_t pool;
    BRIGADE_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, g));
    std::uint64_t keep = UINT64_MAX;
    BRIGADE_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    for (int h = 0; h < run.gpus; ++h) {
      int can = 0;
      if (h != g && cudaDeviceCanAccessPeer(&can, g, h) == cudaSuccess && can) {
        const cudaError_t e = cudaDeviceEnablePeerAccess(h, 0);
        if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) BRIGADE_CUDA_CHECK(e);
        cudaGetLastError();
      }
    }
  }
  run.streams.assign(p.streams().size(), nullptr);
  run.blas.assign(p.streams().size(), nullptr);
  for (size_t s = 0; s < p.streams().size(); ++s) {
    const int gpu = run.gpu_of[static_cast<size_t>(p.streams()[s].device)];
    run.stream_gpu.push_back(gpu);
    BRIGADE_CUDA_CHECK(cudaSetDevice(gpu));
    BRIGADE_CUDA_CHECK(cudaStreamCreateWithFlags(&run.streams[s], cudaStreamNonBlocking));
    BRIGADE_CUDA_CHECK(cublasCreate(&run.blas[s]));
    BRIGADE_CUDA_CHECK(cublasSetStream(run.blas[s], run.streams[s]));
  }
  auto make_event = [&](cudaEvent_t* e) -> Status {
    BRIGADE_CUDA_CHECK(cudaEventCreate(e));
    run.events.push_back(*e);
    return Status::ok();
  };
  run.start.assign(static_cast<size_t>(p.num_tasks()), nullptr);
  run.end.assign(static_cast<size_t>(p.num_tasks()), nullptr);
  for (TaskId t = 0; t < p.num_tasks(); ++t) {
    BRIGADE_CUDA_CHECK(cudaSetDevice(run.gpu_of[static_cast<size_t>(p.task(t).device)]));
    BRIGADE_RETURN_IF_ERROR(make_event(&run.start[static_cast<size_t>(t)]));
    BRIGADE_RETURN_IF_ERROR(make_event(&run.end[static_cast<size_t>(t)]));
  }
  run.reference.assign(static_cast<size_t>(run.gpus), nullptr);
  for (int g = 0; g < run.gpus; ++g) {
    BRIGADE_CUDA_CHECK(cudaSetDevice(g));
    BRIGADE_RETURN_IF_ERROR(make_event(&run.reference[static_cast<size_t>(g)]));
  }

  // Workspaces per stream, sized by the largest task of each kind on it.
  struct Need {
    std::map<DType, cuda::GemmSpace> gemm;  // kFP8's: E4M3 operands, BF16 or FP32 outputs
    std::size_t scratch = 0;
    CommunicationNeed comm;
  };
  std::vector<Need> need(p.streams().size());
  for (TaskId t = 0; t < p.num_tasks(); ++t) {
    const Task& task = p.task(t);
    Need& n = need[static_cast<size_t>(task.stream)];
    if (task.kind == TaskKind::kCompute) {
      if (const auto g = gemm_of(task, topo.device(task.device))) {
        n.gemm[task.dtype].grow(*g, task.dtype, accumulate_width(p, task));
        if (task.dtype == DType::kFP8) {  // cuBLASLt's handle, scale and plan, before timing
          const int gpu = run.gpu_of[static_cast<size_t>(task.device)];
          BRIGADE_CUDA_CHECK(cudaSetDevice(gpu));
          BRIGADE_RETURN_IF_ERROR(
              for_task(p, t,
                       run.fp8.prepare(gpu, cuda::fp8_shape(*g), fp8_fast_accumulation(task),
                                       accumulate_width(p, task))));
        }
      } else {  // half the bytes are read, half written, in place, in passes over
                // at most 1 GiB (far past any L2); float4 granules
        n.scratch = std::max(
            n.scratch,
            static_cast<std::size_t>(std::min(task.bytes / 2.0, kScratchCapBytes) / 16.0) * 16 +
                16);
      }
    } else {
      n.comm.add(p, task, /*equal_parts=*/!run.virtual_devices);
    }
  }
  run.work.resize(p.streams().size());
  for (size_t s = 0; s < need.size(); ++s) {
    const Need& n = need[s];
    CudaRun::StreamWork& w = run.work[s];
    const int dev = p.streams()[s].device;
    const int gpu = run.gpu_of[static_cast<size_t>(dev)];
    const std::string of =
        " of stream '" + p.streams()[s].name + "' (device " + std::to_string(dev) + ")";
    cudaStream_t st = run.streams[s];
    for (const auto& [t, space] : n.gemm) {
      void* ptr = nullptr;
      BRIGADE_RETURN_IF_ERROR(
          alloc(run, gpu, space.bytes(), std::string(dtype_name(t)) + " GEMM operands" + of, &ptr));
      cuda::launch_fill_operands(
          t, ptr,
          static_cast<std::int64_t>(space.inputs / static_cast<std::size_t>(dtype_bytes(t))), st);
      BRIGADE_CUDA_CHECK(cudaMemsetAsync(static_cast<char*>(ptr) + space.outputs_offset(), 0,
                                         space.bytes() - space.outputs_offset(), st));
      w.gemm[t] = cuda::GemmRegions(static_cast<char*>(ptr), space);
      if (t == DType::kFP8)
        BRIGADE_RETURN_IF_ERROR(
            alloc(run, gpu, cuda::kFp8WorkspaceBytes, "fp8 GEMM workspace" + of, &w.fp8_workspace));
    }
    BRIGADE_RETURN_IF_ERROR(alloc(run, gpu, n.scratch, "streaming scratch" + of, &w.scratch));
    w.scratch_elements = static_cast<std::int64_t>(n.scratch / 4);
    // Values in [-1, 1), as a plan's activations hold: the norm's and GeLU's
    // arithmetic on zeros would not be theirs.
    if (w.scratch_elements > 0)
      cuda::launch_fill_operands(DType::kF32, w.scratch, w.scratch_elements, st);
    for (const auto& [e, bytes] : n.comm.collective_in) {
      void* ptr = nullptr;
      BRIGADE_RETURN_IF_ERROR(alloc(run, gpu, bytes, "collective inputs" + of, &ptr));
      cuda::launch_fill_input(
          e, ptr, static_cast<std::int64_t>(bytes / static_cast<std::size_t>(element_bytes(e))),
          dev, st);
      w.coll_in[e] = ptr;
    }
    BRIGADE_RETURN_IF_ERROR(alloc(run, gpu, n.comm.collective_out, "collective outputs" + of, &w.coll_out));
    if (run.virtual_devices)
      BRIGADE_RETURN_IF_ERROR(alloc(run, gpu, n.comm.collective_out, "ring staging" + of, &w.staging));
    BRIGADE_RETURN_IF_ERROR(alloc(run, gpu, n.comm.send, "transfer sources" + of, &w.xfer_src));
    for (const auto& [peer, bytes] : n.comm.receive) {
      void* ptr = nullptr;
      BRIGADE_RETURN_IF_ERROR(alloc(run, run.gpu_of[static_cast<size_t>(peer)], bytes,
                                    "transfer destinations" + of, &ptr));
      w.xfer_dst[peer] = ptr;
    }
    BRIGADE_CUDA_CHECK(cudaGetLastError());
  }

  // Check slots (one per collective rank task) and, for the own ring, step events.
  run.slots.assign(static_cast<size_t>(p.num_tasks()), nullptr);
  run.step_events.resize(p.collectives().size());
  for (size_t c = 0; c < p.collectives().size(); ++c) {
    const Collective& col = p.collectives()[c];
    const CollectiveShape cs = collective_shape(col, /*equal_parts=*/!run.virtual_devices);
    run.step_events[c].resize(col.group.size());
    for (size_t r = 0; r < col.group.size(); ++r) {
      const int gpu = run.gpu_of[static_cast<size_t>(col.group[r])];
      void* slot = nullptr;
      BRIGADE_RETURN_IF_ERROR(alloc(run, gpu, sizeof(cuda::CheckSlot), "check slot", &slot));
      run.slots[static_cast<size_t>(col.tasks[r])] = static_cast<cuda::CheckSlot*>(slot);
      if (!run.virtual_devices) continue;
      BRIGADE_CUDA_CHECK(cudaSetDevice(gpu));
      run.step_events[c][r].resize(static_cast<size_t>(cs.steps));
      for (cudaEvent_t& e : run.step_events[c][r]) BRIGADE_RETURN_IF_ERROR(make_event(&e));
    }
  }

  // NCCL: one communicator per distinct group, ranks in group order.
  if (!run.virtual_devices) {
    for (const Collective& col : p.collectives()) {
      std::vector<int> gpus;
      for (std::int32_t d : col.group) gpus.push_back(run.gpu_of[static_cast<size_t>(d)]);
      if (run.comms.count(gpus)) continue;
      std::vector<ncclComm_t> cs(gpus.size(), nullptr);
      BRIGADE_CUDA_CHECK(ncclCommInitAll(cs.data(), static_cast<int>(gpus.size()), gpus.data()));
      run.comms.emplace(gpus, std::move(cs));
    }
  }

  // Resident buffers.
  for (BufferId b = 0; b < static_cast<BufferId>(p.buffers().size()); ++b) {
    const Buffer& buf = p.buffers()[static_cast<size_t>(b)];
    if (!buf.resident) continue;
    BRIGADE_RETURN_IF_ERROR(run.ledger->reserve(b, -1, 0.0));
    void* ptr = nullptr;
    BRIGADE_RETURN_IF_ERROR(
        alloc(run, run.gpu_of[static_cast<size_t>(buf.device)], static_cast<std::size_t>(buf.bytes),
              "resident buffer '" + buf.name + "' of device " + std::to_string(buf.device) + " '" +
                  topo.device(buf.device).name + "'",
              &ptr));
  }
  for (int g = 0; g < run.gpus; ++g) {
    BRIGADE_CUDA_CHECK(cudaSetDevice(g));
    BRIGADE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  return Status::ok();
}

Status CudaExecutor::wait_deps(CudaRun& run, TaskId t) {
  const Program& p = *run.program;
  cudaStream_t s = run.streams[static_cast<size_t>(p.task(t).stream)];
  for (TaskId d : p.deps(t))
    if (p.task(d).stream != p.task(t).stream)
      BRIGADE_CUDA_CHECK(cudaStreamWaitEvent(s, run.end[static_cast<size_t>(d)], 0));
  return Status::ok();
}

Status CudaExecutor::alloc_buffers(CudaRun& run, TaskId t) {
  const Program& p = *run.program;
  cudaStream_t s = run.streams[static_cast<size_t>(p.task(t).stream)];
  for (BufferId b : p.allocs(t)) {
    BRIGADE_RETURN_IF_ERROR(run.ledger->reserve(b, t, 0.0));
    const Buffer& buf = p.buffers()[static_cast<size_t>(b)];
    const int gpu = run.gpu_of[static_cast<size_t>(buf.device)];
    BRIGADE_CUDA_CHECK(cudaSetDevice(gpu));
    void* ptr = nullptr;
    const cudaError_t e = cudaMallocAsync(&ptr, static_cast<std::size_t>(buf.bytes), s);
    if (e != cudaSuccess) {
      cudaGetLastError();
      return Status::error(std::string(kWho) + ": out of memory on GPU " + std::to_string(gpu) +
                               " (device " + std::to_string(buf.device) + " '" +
                               run.topology->device(buf.device).name + "'): buffer '" + buf.name +
                               "' (" + task_label(p, t) + ") needs " + format_bytes(buf.bytes) +
                               " (" + cudaGetErrorString(e) + ")",
                           ErrorKind::kBadInput);
    }
    run.buffers[b] = DevicePtr{ptr, gpu};
  }
  return Status::ok();
}

Status CudaExecutor::free_buffers(CudaRun& run, TaskId t) {
  const Program& p = *run.program;
  cudaStream_t s = run.streams[static_cast<size_t>(p.task(t).stream)];
  for (BufferId b : p.frees(t)) {
    auto it = run.buffers.find(b);
    if (it == run.buffers.end()) continue;
    BRIGADE_CUDA_CHECK(cudaSetDevice(it->second.gpu));
    BRIGADE_CUDA_CHECK(cudaFreeAsync(it->second.p, s));
    run.buffers.erase(it);
    run.ledger->release(b, 0.0);
  }
  return Status::ok();
}

Status CudaExecutor::enqueue_task(CudaRun& run, TaskId t, bool verify) {
  (void)verify;  // transfers are trusted to the copy engine; GEMMs to cuBLAS (docs/executors.md)
  const Program& p = *run.program;
  const Task& task = p.task(t);
  const int gpu = run.gpu_of[static_cast<size_t>(task.device)];
  cudaStream_t s = run.streams[static_cast<size_t>(task.stream)];
  CudaRun::StreamWork& w = run.work[static_cast<size_t>(task.stream)];
  BRIGADE_CUDA_CHECK(cudaSetDevice(gpu));
  BRIGADE_RETURN_IF_ERROR(wait_deps(run, t));
  BRIGADE_RETURN_IF_ERROR(alloc_buffers(run, t));
  BRIGADE_CUDA_CHECK(cudaSetDevice(gpu));
  BRIGADE_CUDA_CHECK(cudaEventRecord(run.start[static_cast<size_t>(t)], s));
  if (task.kind == TaskKind::kCompute) {
    const auto shape = gemm_of(task, run.topology->device(task.device));
    // Fused gradient accumulation: the GEMM adds into its output (beta 1),
    // an FP32 one for Megatron's main_grad (task_plan.hpp, accumulate_width).
    const int accumulate = shape ? accumulate_width(p, task) : 0;
    if (shape && task.dtype == DType::kFP8) {
      // cuBLASLt, fast accumulation but in the gradients' GEMMs (cuda_fp8_gemm.hpp).
      const cuda::GemmRegions& space = w.gemm.at(task.dtype);
      const GemmShape g = cuda::fp8_shape(*shape);
      const char* a = space.inputs;
      BRIGADE_RETURN_IF_ERROR(
          for_task(p, t,
                   run.fp8.run(gpu, s, g, fp8_fast_accumulation(task), a, a + g.m * g.k * g.batch,
                               space.output(task.dtype, accumulate), w.fp8_workspace, accumulate)));
    } else if (shape) {
      const cuda::GemmRegions& space = w.gemm.at(task.dtype);
      const auto eb = static_cast<std::int64_t>(dtype_bytes(task.dtype));
      const char* a = space.inputs;
      BRIGADE_RETURN_IF_ERROR(
          for_task(p, t,
                   cuda::run_gemm(run.blas[static_cast<size_t>(task.stream)], task.dtype, *shape,
                                  accumulate, a, a + shape->m * shape->k * shape->batch * eb,
                                  space.output(task.dtype, accumulate))));
    } else {
      float* x = static_cast<float*>(w.scratch);
      if (is_norm(task.kernel))
        cuda::launch_layer_norm(x, w.scratch_elements, task.bytes, s);
      else if (is_gated_activation(task.kernel))
        cuda::launch_swiglu(x, w.scratch_elements, task.bytes, s);
      else if (is_activation(task.kernel))
        cuda::launch_gelu(x, w.scratch_elements, task.bytes, s);
      else
        cuda::launch_stream(x, w.scratch_elements, task.bytes, s);
      BRIGADE_CUDA_CHECK(cudaGetLastError());
    }
  } else if (task.kind == TaskKind::kTransfer) {
    const auto bytes = static_cast<std::size_t>(task.bytes);
    if (bytes > 0)
      BRIGADE_CUDA_CHECK(cudaMemcpyPeerAsync(w.xfer_dst.at(task.peer),
                                             run.gpu_of[static_cast<size_t>(task.peer)], w.xfer_src,
                                             gpu, bytes, s));
  }
  BRIGADE_CUDA_CHECK(cudaEventRecord(run.end[static_cast<size_t>(t)], s));
  return free_buffers(run, t);
}

Status CudaExecutor::enqueue_collective(CudaRun& run, CollectiveId cid, bool verify) {
  const Program& p = *run.program;
  const Collective& c = p.collectives()[static_cast<size_t>(cid)];
  const int n = static_cast<int>(c.group.size());
  const CollectiveShape cs = collective_shape(c, /*equal_parts=*/!run.virtual_devices);
  const auto eb = static_cast<std::size_t>(element_bytes(cs.element));
  auto rank_task = [&](int r) { return c.tasks[static_cast<size_t>(r)]; };
  auto rank_stream = [&](int r) {
    return run.streams[static_cast<size_t>(p.task(rank_task(r)).stream)];
  };
  auto rank_gpu = [&](int r) {
    return run.gpu_of[static_cast<size_t>(c.group[static_cast<size_t>(r)])];
  };
  auto rank_work = [&](int r) -> CudaRun::StreamWork& {
    return run.work[static_cast<size_t>(p.task(rank_task(r)).stream)];
  };
  for (int r = 0; r < n; ++r) {
    BRIGADE_CUDA_CHECK(cudaSetDevice(rank_gpu(r)));
    BRIGADE_RETURN_IF_ERROR(wait_deps(run, rank_task(r)));
    BRIGADE_RETURN_IF_ERROR(alloc_buffers(run, rank_task(r)));
    BRIGADE_CUDA_CHECK(cudaSetDevice(rank_gpu(r)));
    BRIGADE_CUDA_CHECK(
        cudaEventRecord(run.start[static_cast<size_t>(rank_task(r))], rank_stream(r)));
  }
  if (!run.virtual_devices) {
    const std::vector<int> gpus = [&] {
      std::vector<int> g;
      for (int r = 0; r < n; ++r) g.push_back(rank_gpu(r));
      return g;
    }();
    const std::vector<ncclComm_t>& comms = run.comms.at(gpus);
    const ncclDataType_t type = nccl_type(cs.element);
    const std::size_t part = static_cast<std::size_t>(cs.count / n);
    // Every rank's call inside one group (one thread drives all GPUs); the
    // group is closed even when a call fails, so that NCCL stays usable.
    auto issue = [&](int r) -> Status {
      CudaRun::StreamWork& w = rank_work(r);
      const void* in = w.coll_in.at(cs.element);
      char* out = static_cast<char*>(w.coll_out);
      ncclComm_t comm = comms[static_cast<size_t>(r)];
      cudaStream_t s = rank_stream(r);
      const auto count = static_cast<std::size_t>(cs.count);
      switch (c.kind) {
        case CollectiveKind::kAllReduce:
          BRIGADE_CUDA_CHECK(ncclAllReduce(in, out, count, type, ncclSum, comm, s));
          break;
        case CollectiveKind::kAllGather:
          BRIGADE_CUDA_CHECK(ncclAllGather(in, out, part, type, comm, s));
          break;
        case CollectiveKind::kReduceScatter:
          // The result at the rank's own part of the output, as the ring leaves it.
          BRIGADE_CUDA_CHECK(ncclReduceScatter(in, out + static_cast<std::size_t>(r) * part * eb,
                                               part, type, ncclSum, comm, s));
          break;
        case CollectiveKind::kBroadcast:
          BRIGADE_CUDA_CHECK(ncclBroadcast(in, out, count, type, c.root, comm, s));
          break;
        case CollectiveKind::kReduce:
          BRIGADE_CUDA_CHECK(ncclReduce(in, out, count, type, ncclSum, c.root, comm, s));
          break;
        case CollectiveKind::kAllToAll:
          for (int q = 0; q < n; ++q) {
            BRIGADE_CUDA_CHECK(
                ncclSend(static_cast<const char*>(in) + static_cast<std::size_t>(q) * part * eb,
                         part, type, q, comm, s));
            BRIGADE_CUDA_CHECK(
                ncclRecv(out + static_cast<std::size_t>(q) * part * eb, part, type, q, comm, s));
          }
          break;
      }
      return Status::ok();
    };
    BRIGADE_CUDA_CHECK(ncclGroupStart());
    Status issued;
    for (int r = 0; r < n && issued.is_ok(); ++r) issued = issue(r);
    const Status ended = cuda::check(ncclGroupEnd(), "ncclGroupEnd()", __FILE__, __LINE__);
    BRIGADE_RETURN_IF_ERROR(issued);
    BRIGADE_RETURN_IF_ERROR(ended);
  } else {
    // Brigade's own schedule: after each step every rank waits for every
    // rank's end of that step (a barrier of events), as the CPU backend's
    // barrier does; the first step waits for every rank's arrival.
    auto& ev = run.step_events[static_cast<size_t>(cid)];
    std::vector<RingOp> ops;
    for (int step = 0; step < cs.steps; ++step) {
      for (int r = 0; r < n; ++r) {
        cudaStream_t s = rank_stream(r);
        BRIGADE_CUDA_CHECK(cudaSetDevice(rank_gpu(r)));
        for (int q = 0; q < n; ++q) {
          cudaEvent_t before = step == 0
                                   ? run.start[static_cast<size_t>(rank_task(q))]
                                   : ev[static_cast<size_t>(q)][static_cast<size_t>(step - 1)];
          if (q != r) BRIGADE_CUDA_CHECK(cudaStreamWaitEvent(s, before, 0));
        }
        ring_step_ops(c.kind, n, r, c.root, cs.count, cs.chunks, step, ops);
        CudaRun::StreamWork& w = rank_work(r);
        char* out = static_cast<char*>(w.coll_out);
        const char* in_self = static_cast<const char*>(w.coll_in.at(cs.element));
        for (const RingOp& op : ops) {
          if (op.count <= 0) continue;
          CudaRun::StreamWork& src_w = rank_work(op.src_rank);
          const char* src = op.src == RingSource::kInput
                                ? static_cast<const char*>(src_w.coll_in.at(cs.element))
                                : static_cast<const char*>(src_w.coll_out);
          src += static_cast<std::size_t>(op.src_begin) * eb;
          const std::size_t bytes = static_cast<std::size_t>(op.count) * eb;
          const std::size_t dst_off = static_cast<std::size_t>(op.dst_begin) * eb;
          if (!op.reduce) {
            BRIGADE_CUDA_CHECK(cudaMemcpyPeerAsync(out + dst_off, rank_gpu(r), src,
                                                   rank_gpu(op.src_rank), bytes, s));
          } else {
            char* staging = static_cast<char*>(w.staging) + dst_off;
            BRIGADE_CUDA_CHECK(
                cudaMemcpyPeerAsync(staging, rank_gpu(r), src, rank_gpu(op.src_rank), bytes, s));
            cuda::launch_reduce(cs.element, out + dst_off, in_self + dst_off, staging, op.count, s);
            BRIGADE_CUDA_CHECK(cudaGetLastError());
          }
        }
        BRIGADE_CUDA_CHECK(
            cudaEventRecord(ev[static_cast<size_t>(r)][static_cast<size_t>(step)], s));
      }
    }
    // Exit barrier: no rank moves on while a peer may still read its output.
    for (int r = 0; r < n; ++r) {
      BRIGADE_CUDA_CHECK(cudaSetDevice(rank_gpu(r)));
      for (int q = 0; q < n; ++q)
        if (q != r)
          BRIGADE_CUDA_CHECK(
              cudaStreamWaitEvent(rank_stream(r), ev[static_cast<size_t>(q)].back(), 0));
    }
  }
  for (int r = 0; r < n; ++r) {
    const TaskId t = rank_task(r);
    cudaStream_t s = rank_stream(r);
    BRIGADE_CUDA_CHECK(cudaSetDevice(rank_gpu(r)));
    BRIGADE_CUDA_CHECK(cudaEventRecord(run.end[static_cast<size_t>(t)], s));
    if (verify && n <= cuda::kMaxCheckedGroup) {
      ExpectedOutput e;
      e.kind = c.kind;
      e.group = c.group.data();
      e.ranks = n;
      e.rank = r;
      e.root = c.root;
      e.count = cs.count;
      cuda::launch_check(cs.element, rank_work(r).coll_out, e, run.slots[static_cast<size_t>(t)],
                         s);
      BRIGADE_CUDA_CHECK(cudaGetLastError());
    }
    BRIGADE_RETURN_IF_ERROR(free_buffers(run, t));
  }
  return Status::ok();
}

Result<Trace> CudaExecutor::run_step(CudaRun& run, bool verify) {
  const Program& p = *run.program;
  const Topology& topo = *run.topology;
  // Reference events while every GPU is idle.
  for (int g = 0; g < run.gpus; ++g) {
    BRIGADE_CUDA_CHECK(cudaSetDevice(g));
    BRIGADE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  for (int g = 0; g < run.gpus; ++g) {
    BRIGADE_CUDA_CHECK(cudaSetDevice(g));
    BRIGADE_CUDA_CHECK(cudaEventRecord(run.reference[static_cast<size_t>(g)], nullptr));
  }
  run.ledger->restart_samples(0.0);
  std::vector<MemorySample> baseline = run.ledger->take_samples();  // resident buffers at 0

  // Topological order over tasks, a collective's ranks merged into one node.
  const int nt = p.num_tasks();
  std::vector<TaskId> rep(static_cast<size_t>(nt));
  std::iota(rep.begin(), rep.end(), 0);
  for (const Collective& c : p.collectives())
    for (TaskId t : c.tasks) rep[static_cast<size_t>(t)] = c.tasks[0];
  std::vector<std::vector<TaskId>> succ(static_cast<size_t>(nt));
  std::vector<int> indeg(static_cast<size_t>(nt), 0);
  auto edge = [&](TaskId from, TaskId to) {
    const TaskId a = rep[static_cast<size_t>(from)], b = rep[static_cast<size_t>(to)];
    if (a == b) return;
    succ[static_cast<size_t>(a)].push_back(b);
    ++indeg[static_cast<size_t>(b)];
  };
  for (StreamId s = 0; s < static_cast<StreamId>(p.streams().size()); ++s) {
    auto ts = p.stream_tasks(s);
    for (size_t i = 1; i < ts.size(); ++i) edge(ts[i - 1], ts[i]);
  }
  for (TaskId t = 0; t < nt; ++t)
    for (TaskId d : p.deps(t)) edge(d, t);
  std::set<TaskId> ready;
  for (TaskId t = 0; t < nt; ++t)
    if (rep[static_cast<size_t>(t)] == t && indeg[static_cast<size_t>(t)] == 0) ready.insert(t);
  // Memory effects with the task whose events time them.
  struct Effect {
    TaskId task;
    BufferId buffer;
    bool alloc;
  };
  std::vector<Effect> effects;
  while (!ready.empty()) {
    const TaskId t = *ready.begin();
    ready.erase(ready.begin());
    const Task& task = p.task(t);
    if (task.kind == TaskKind::kCollective) {
      BRIGADE_RETURN_IF_ERROR(enqueue_collective(run, task.collective, verify));
      for (TaskId r : p.collectives()[static_cast<size_t>(task.collective)].tasks) {
        for (BufferId b : p.allocs(r)) effects.push_back(Effect{r, b, true});
        for (BufferId b : p.frees(r)) effects.push_back(Effect{r, b, false});
      }
    } else {
      BRIGADE_RETURN_IF_ERROR(enqueue_task(run, t, verify));
      for (BufferId b : p.allocs(t)) effects.push_back(Effect{t, b, true});
      for (BufferId b : p.frees(t)) effects.push_back(Effect{t, b, false});
    }
    for (TaskId u : succ[static_cast<size_t>(t)])
      if (--indeg[static_cast<size_t>(u)] == 0) ready.insert(u);
  }
  for (int g = 0; g < run.gpus; ++g) {
    BRIGADE_CUDA_CHECK(cudaSetDevice(g));
    BRIGADE_CUDA_CHECK(cudaDeviceSynchronize());
  }

  // Collective checks.
  if (verify) {
    for (size_t cid = 0; cid < p.collectives().size(); ++cid) {
      const Collective& c = p.collectives()[cid];
      for (size_t r = 0; r < c.group.size(); ++r) {
        const TaskId t = c.tasks[r];
        cuda::CheckSlot slot{};
        BRIGADE_CUDA_CHECK(cudaMemcpy(&slot, run.slots[static_cast<size_t>(t)], sizeof slot,
                                      cudaMemcpyDeviceToHost));
        if (slot.first_bad == UINT64_MAX ||
            c.group.size() > static_cast<size_t>(cuda::kMaxCheckedGroup))
          continue;
        const CollectiveShape cs = collective_shape(c, /*equal_parts=*/!run.virtual_devices);
        ExpectedOutput e{
            c.kind, c.group.data(), static_cast<int>(c.group.size()), static_cast<int>(r),
            c.root, cs.count};
        const int want = expected_value(e, static_cast<std::int64_t>(slot.first_bad));
        char buf[160];
        std::snprintf(buf, sizeof buf, ": element %llu is %g; expected %d", slot.first_bad,
                      slot.got, want);
        return Status::error(std::string(kWho) + ": " + std::string(collective_kind_name(c.kind)) +
                                 " " + task_label(p, t) + " (collective " + std::to_string(cid) +
                                 ") on device " + std::to_string(c.group[r]) + " '" +
                                 topo.device(c.group[r]).name + "', rank " + std::to_string(r) +
                                 " of " + std::to_string(c.group.size()) + buf,
                             ErrorKind::kRuntime);
      }
    }
  }

  // Times.
  auto seconds = [&](cudaEvent_t e, int device) -> Result<double> {
    float ms = 0;
    BRIGADE_CUDA_CHECK(cudaEventElapsedTime(
        &ms, run.reference[static_cast<size_t>(run.gpu_of[static_cast<size_t>(device)])], e));
    return static_cast<double>(ms) * 1e-3;
  };
  Trace trace;
  trace.source = run.virtual_devices ? "cuda (virtual devices)" : "cuda";
  trace.program = p.name;
  for (int d = 0; d < p.num_devices; ++d) trace.device_names.push_back(topo.device(d).name);
  trace.streams = p.streams();
  trace.names = p.names();
  std::vector<double> t_start(static_cast<size_t>(nt)), t_end(static_cast<size_t>(nt));
  for (TaskId t = 0; t < nt; ++t) {
    BRIGADE_ASSIGN_OR_RETURN(t_start[static_cast<size_t>(t)],
                             seconds(run.start[static_cast<size_t>(t)], p.task(t).device));
    BRIGADE_ASSIGN_OR_RETURN(t_end[static_cast<size_t>(t)],
                             seconds(run.end[static_cast<size_t>(t)], p.task(t).device));
  }
  // A collective starts when its last rank arrives and ends with its last rank.
  for (const Collective& c : p.collectives()) {
    double s = 0, e = 0;
    for (TaskId t : c.tasks) {
      s = std::max(s, t_start[static_cast<size_t>(t)]);
      e = std::max(e, t_end[static_cast<size_t>(t)]);
    }
    for (TaskId t : c.tasks) t_start[static_cast<size_t>(t)] = s, t_end[static_cast<size_t>(t)] = e;
  }
  for (TaskId t = 0; t < nt; ++t) {
    const Task& task = p.task(t);
    trace.spans.push_back(TraceSpan{t, task.device, task.stream, t_start[static_cast<size_t>(t)],
                                    t_end[static_cast<size_t>(t)], task.name, task.kind, task.phase,
                                    task.collective});
    if (task.kind == TaskKind::kTransfer)
      trace.transfers.push_back(TraceTransfer{t, task.device, task.peer, task.bytes,
                                              t_start[static_cast<size_t>(t)],
                                              t_end[static_cast<size_t>(t)], -1});
  }
  if (run.virtual_devices) {
    // The own ring's steps as transfers: what each rank read from a peer.
    std::vector<RingOp> ops;
    for (size_t cid = 0; cid < p.collectives().size(); ++cid) {
      const Collective& c = p.collectives()[cid];
      const CollectiveShape cs = collective_shape(c);
      const int n = static_cast<int>(c.group.size());
      for (int r = 0; r < n; ++r) {
        const int dev = c.group[static_cast<size_t>(r)];
        double prev = t_start[static_cast<size_t>(c.tasks[static_cast<size_t>(r)])];
        for (int step = 0; step < cs.steps; ++step) {
          BRIGADE_ASSIGN_OR_RETURN(
              const double at,
              seconds(run.step_events[cid][static_cast<size_t>(r)][static_cast<size_t>(step)],
                      dev));
          ring_step_ops(c.kind, n, r, c.root, cs.count, cs.chunks, step, ops);
          for (const RingOp& op : ops)
            if (op.src_rank != r && op.count > 0) {
              const int src = c.group[static_cast<size_t>(op.src_rank)];
              trace.transfers.push_back(TraceTransfer{
                  c.tasks[static_cast<size_t>(r)], src, dev,
                  static_cast<double>(op.count) * element_bytes(cs.element), prev, at, -1});
            }
          prev = at;
        }
      }
    }
  }
  // Memory: resident at 0, then each allocation at its task's start and each
  // free at its task's end, in time order.
  trace.memory = std::move(baseline);
  std::vector<std::pair<double, Effect>> timed;
  for (const Effect& e : effects)
    timed.emplace_back(
        e.alloc ? t_start[static_cast<size_t>(e.task)] : t_end[static_cast<size_t>(e.task)], e);
  std::stable_sort(timed.begin(), timed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::map<std::pair<int, int>, double> live;
  for (const MemorySample& m : trace.memory)
    live[{m.device, static_cast<int>(m.category)}] = m.bytes;
  for (const auto& [at, e] : timed) {
    const Buffer& b = p.buffers()[static_cast<size_t>(e.buffer)];
    double& v = live[{b.device, static_cast<int>(b.category)}];
    v += e.alloc ? b.bytes : -b.bytes;
    trace.memory.push_back(MemorySample{b.device, b.category, at, v});
  }
  // Buffers the Program never frees die with the step.
  for (auto it = run.buffers.begin(); it != run.buffers.end();) {
    cudaSetDevice(it->second.gpu);
    BRIGADE_CUDA_CHECK(cudaFree(it->second.p));
    run.ledger->release(it->first, 0.0);
    it = run.buffers.erase(it);
  }
  run.ledger->take_samples();  // the enqueue-time book-keeping, timed above instead
  finish_trace(trace);
  return trace;
}

Result<std::vector<Trace>> CudaExecutor::run_steps(const Program& program, const Topology& topology,
                                                   const HardwareProfile& /*profile*/,
                                                   const RunOptions& options) {
  if (options.repeat < 1)
    return Status::error("found repeat " + std::to_string(options.repeat) +
                         "; expected repeat >= 1");
  BRIGADE_RETURN_IF_ERROR(check_program(program, topology));
  if (!options.runtime.empty())
    warnings_.push_back("the scenario's runtime: conditions (" +
                        describe_runtime(options.runtime, topology) +
                        ") are not injected on GPUs: this run measures the GPUs as they are "
                        "(the simulator and the CPU executor honour them)");
  CudaRun run;
  run.program = &program;
  run.topology = &topology;
  run.ledger = std::make_unique<MemoryLedger>(program, topology, kWho, 0.0, false);
  BRIGADE_RETURN_IF_ERROR(setup(run));
  return run_repeated(options, options_.verify,
                      [&](bool verify) { return run_step(run, verify); });
}

bool device_available(std::string* why) {
  return count_gpus(why) > 0;
}

Result<std::string> device_name(int gpu) {
  cudaDeviceProp prop{};
  const cudaError_t e = cudaGetDeviceProperties(&prop, gpu);
  if (e != cudaSuccess) {
    cudaGetLastError();
    return Status::error(std::string("no CUDA device: ") + cudaGetErrorString(e),
                         ErrorKind::kRuntime);
  }
  return std::string(prop.name);
}

Result<std::unique_ptr<RealExecutor>> make_executor(const CudaOptions& options) {
  std::string why;
  int gpus = count_gpus(&why);
  if (gpus <= 0) return Status::error(why, ErrorKind::kRuntime);
  if (options.max_gpus > 0) gpus = std::min(gpus, options.max_gpus);
  return std::unique_ptr<RealExecutor>(std::make_unique<CudaExecutor>(options, gpus));
}

}  // namespace
}  // namespace brigade::realexec

// The module's entry (cuda_module.hpp): executor.hpp's CUDA entry points in
// the loader call these through the table.
extern "C" __attribute__((visibility("default"))) const brigade::realexec::CudaModuleApi*
brigade_cuda_module_api() {
  using namespace brigade::realexec;
  static const CudaModuleApi api = [] {
    CudaModuleApi a;
    a.device_available = &device_available;
    a.device_count = &count_gpus;
    a.device_name = &device_name;
    a.make_executor = &make_executor;
    return a;
  }();
  return &api;
}
