// libFuzzer entry point for the profiler-record readers body (tests/fuzz/fuzz_bodies.hpp).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "tests/fuzz/fuzz_bodies.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  brigade::fuzz::kernel_summary_one(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
