// The CUDA backend as a module loaded on first use.
//
// The backend (cuda_*.cpp, *.cu) is built into a shared module,
// libbrigade_cuda.so, that links cuBLAS and NCCL; the brigade programs link
// only the loader (load_cuda.cpp), which implements executor.hpp's CUDA entry
// points by opening the module with dlopen the first time one of them is
// called. A program that never asks for the CUDA backend then never maps
// cuBLAS and NCCL (about 0.4 s and 200 MB of every start, measured on the
// development VM: docs/PERFORMANCE.md), and a binary built with CUDA still
// runs for the CPU on a machine without those libraries, saying why
// `--backend cuda` cannot be had.
//
// The module carries its own copies of the static libraries it uses
// (brigade_core, brigade_costmodel, brigade_realexec), hidden; it exports one
// C function returning the table below. The loader and the module must come
// from the same build: the table starts with the ABI number and the sizes of
// the types that cross, and a mismatch is refused with a message.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/profile.hpp"
#include "core/program.hpp"
#include "core/status.hpp"
#include "core/trace.hpp"
#include "realexec/executor.hpp"

namespace brigade::realexec {

// Bumped whenever the table or a type crossing it changes.
inline constexpr int kCudaModuleAbi = 1;

struct CudaModuleApi {
  int abi = kCudaModuleAbi;
  // sizeof of the types that cross, as the module was built.
  std::size_t sizeof_program = sizeof(Program);
  std::size_t sizeof_trace = sizeof(Trace);
  std::size_t sizeof_options = sizeof(CudaOptions);
  std::size_t sizeof_profile = sizeof(HardwareProfile);
  bool (*device_available)(std::string* why) = nullptr;
  int (*device_count)(std::string* why) = nullptr;
  Result<std::string> (*device_name)(int gpu) = nullptr;
  Result<std::unique_ptr<RealExecutor>> (*make_executor)(const CudaOptions& options) = nullptr;
};

// Whether a table built elsewhere agrees with this build; if not, why not
// (one sentence naming what differs).
inline bool cuda_module_matches(const CudaModuleApi& m, std::string* why) {
  const CudaModuleApi here;
  auto differs = [&](const char* what, std::size_t there, std::size_t mine) {
    if (why)
      *why = std::string(what) + " is " + std::to_string(there) + " in the module and " +
             std::to_string(mine) + " in this program";
    return false;
  };
  if (m.abi != here.abi) return differs("the module ABI", static_cast<std::size_t>(m.abi),
                                        static_cast<std::size_t>(here.abi));
  if (m.sizeof_program != here.sizeof_program)
    return differs("sizeof(Program)", m.sizeof_program, here.sizeof_program);
  if (m.sizeof_trace != here.sizeof_trace)
    return differs("sizeof(Trace)", m.sizeof_trace, here.sizeof_trace);
  if (m.sizeof_options != here.sizeof_options)
    return differs("sizeof(CudaOptions)", m.sizeof_options, here.sizeof_options);
  if (m.sizeof_profile != here.sizeof_profile)
    return differs("sizeof(HardwareProfile)", m.sizeof_profile, here.sizeof_profile);
  if (!m.device_available || !m.device_count || !m.device_name || !m.make_executor) {
    if (why) *why = "the module's table has an empty entry";
    return false;
  }
  return true;
}

// What the loader found: the module's table, or why there is none (a whole
// sentence: the paths tried and what each said).
struct CudaModule {
  const CudaModuleApi* api = nullptr;
  std::string path;   // the file loaded
  std::string why;    // when api is null
};

// Opens the first candidate path that exists as the module (paths that do
// not exist are skipped and listed in `why` if none does). Not cached: the
// entry points of executor.hpp cache the process's own (load_cuda.cpp).
CudaModule load_cuda_module(const std::vector<std::string>& candidates);

// Where the programs look for the module, in order: $BRIGADE_CUDA_MODULE;
// beside the running executable; ../lib/ from it; the build tree's lib/.
std::vector<std::string> cuda_module_candidates();

}  // namespace brigade::realexec

// The module's one exported symbol.
extern "C" const brigade::realexec::CudaModuleApi* brigade_cuda_module_api();
inline constexpr const char* kBrigadeCudaModuleSymbol = "brigade_cuda_module_api";
