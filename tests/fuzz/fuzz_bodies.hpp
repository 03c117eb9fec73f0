// What each fuzz target does with one input, shared by the libFuzzer
// programs (tests/fuzz/*_fuzzer.cpp, the `fuzz` preset) and the normal test
// that runs every file under tests/data/fuzz/ (fuzz_regression_test.cpp),
// so a crash once found stays a test in every build.
//
// A body returns for any input. It aborts (via check(), below) when one of
// Brigade's promises is broken, so libFuzzer reports it as a crash:
//   - an error is one line "FILE:LINE:COL: error: ..." (or "FILE: error:
//     ..."), in valid UTF-8, and never an internal error;
//   - a result holds no NaN and no infinity (docs/RELIABILITY.md).
// Sanitizers (ASan, UBSan without recovery) catch the rest.
#pragma once

#include <string_view>

namespace brigade::fuzz {

// The scenario reader (parse_scenario), then check_plan and estimate_plan,
// and planner::lower for plans small enough to lower in milliseconds.
void scenario_one(std::string_view data);
// The profile reader (parse_profile).
void profile_one(std::string_view data);
// The Chrome trace reader (read_chrome_trace).
void trace_one(std::string_view data);
// The unit parser (parse_quantity, every dimension) and the formatters.
void units_one(std::string_view data);
// The Hugging Face config.json reader (parse_hf_config: model.huggingface's
// file), then the transformer it gives checked against the limits as a
// scenario's would be.
void hf_config_one(std::string_view data);
// The nccl-tests output reader (parse_nccl_tests: calibrate --nccl-tests's
// file).
void nccl_tests_one(std::string_view data);

// The profiler-record readers (parse_nsys_kernel_summary and
// read_kineto_kernels: brigade kernels --measured's file), each given the
// input, and the groups of what they read.
void kernel_summary_one(std::string_view data);

// Aborts with `what` on stderr unless `ok`.
void check(bool ok, std::string_view what, std::string_view detail = {});

}  // namespace brigade::fuzz
