// executor.hpp's CUDA entry points, in every build: they open the CUDA
// backend's module on first use (cuda_module.hpp) and call it, or say why
// there is no backend: not built (no CUDA toolkit or NCCL at configure time),
// or built but its module could not be loaded (a file missing, or cuBLAS or
// NCCL missing on this machine).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "realexec/cuda_module.hpp"
#include "realexec/executor.hpp"

namespace brigade::realexec {
namespace {

constexpr const char* kModuleFile = "libbrigade_cuda.so";

#if defined(BRIGADE_HAVE_CUDA)
// The process's module, loaded once; never unloaded (executors it made may
// outlive any scope, and CUDA's runtime does not like being unloaded).
// A module named by $BRIGADE_CUDA_MODULE must exist (no falling back to
// another one behind the user's back).
const CudaModule& process_module() {
  static const CudaModule m = [] {
    const char* env = std::getenv("BRIGADE_CUDA_MODULE");
    if (env && *env && ::access(env, F_OK) != 0) {
      CudaModule none;
      none.why = std::string("BRIGADE_CUDA_MODULE names ") + env +
                 ", which does not exist; expected the path of a " + kModuleFile;
      return none;
    }
    return load_cuda_module(cuda_module_candidates());
  }();
  return m;
}
#endif

// The backend's table, or null with `why` set.
const CudaModuleApi* backend(std::string* why) {
#if defined(BRIGADE_HAVE_CUDA)
  const CudaModule& m = process_module();
  if (!m.api && why) *why = m.why;
  return m.api;
#else
  if (why)
    *why =
        "the CUDA backend was not built: configure where the CUDA toolkit and NCCL are found "
        "(BRIGADE_WITH_CUDA=ON, nvcc and nccl.h visible to CMake)";
  return nullptr;
#endif
}

std::string directory_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

}  // namespace

std::vector<std::string> cuda_module_candidates() {
  std::vector<std::string> c;
  if (const char* env = std::getenv("BRIGADE_CUDA_MODULE"); env && *env) c.emplace_back(env);
  std::string exe(4096, '\0');
  const ssize_t n = ::readlink("/proc/self/exe", exe.data(), exe.size() - 1);
  if (n > 0) {
    exe.resize(static_cast<size_t>(n));
    const std::string dir = directory_of(exe);
    c.push_back(dir + "/" + kModuleFile);
    c.push_back(dir + "/../lib/" + kModuleFile);
  }
#if defined(BRIGADE_CUDA_MODULE_BUILD_DIR)
  c.push_back(std::string(BRIGADE_CUDA_MODULE_BUILD_DIR) + "/" + kModuleFile);
#endif
  return c;
}

CudaModule load_cuda_module(const std::vector<std::string>& candidates) {
  CudaModule m;
  std::string tried;
  for (const std::string& path : candidates) {
    if (::access(path.c_str(), F_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + path;
      continue;
    }
    m.path = path;
    void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      const char* e = ::dlerror();
      const std::string error = e ? e : "dlopen failed";
      m.why = "the CUDA backend's module " + path + " could not be loaded: " + error;
      // A library it needs is missing (the message then names that one).
      if (error.rfind(path, 0) != 0 && error.find("cannot open shared object") != std::string::npos)
        m.why += " (the module needs cuBLAS and NCCL: put their folders on LD_LIBRARY_PATH)";
      return m;
    }
    using Entry = const CudaModuleApi* (*)();
    auto entry = reinterpret_cast<Entry>(::dlsym(handle, kBrigadeCudaModuleSymbol));
    if (!entry) {
      m.why = "the CUDA backend's module " + path + " has no " + kBrigadeCudaModuleSymbol +
              ": found a shared library that is not Brigade's CUDA module";
      ::dlclose(handle);
      return m;
    }
    const CudaModuleApi* api = entry();
    std::string mismatch;
    if (!api || !cuda_module_matches(*api, &mismatch)) {
      m.why = "the CUDA backend's module " + path + " is from another build of Brigade: " +
              (api ? mismatch : std::string("it returned no table")) +
              "; expected the module built with this program";
      return m;  // not closed: its static objects may have started CUDA
    }
    m.api = api;
    return m;
  }
  m.why = "the CUDA backend's module " + std::string(kModuleFile) + " was not found (looked at " +
          (tried.empty() ? std::string("no place") : tried) +
          "); expected it beside the brigade executable or named by BRIGADE_CUDA_MODULE";
  return m;
}

bool cuda_device_available(std::string* why) {
  const CudaModuleApi* api = backend(why);
  return api && api->device_available(why);
}

int cuda_device_count(std::string* why) {
  const CudaModuleApi* api = backend(why);
  return api ? api->device_count(why) : 0;
}

Result<std::string> cuda_device_name(int gpu) {
  std::string why;
  const CudaModuleApi* api = backend(&why);
  if (!api) return Status::error(why, ErrorKind::kRuntime);
  return api->device_name(gpu);
}

Result<std::unique_ptr<RealExecutor>> make_cuda_executor(const CudaOptions& options) {
  std::string why;
  const CudaModuleApi* api = backend(&why);
  if (!api) return Status::error(why, ErrorKind::kRuntime);
  return api->make_executor(options);
}

}  // namespace brigade::realexec
