# Two commands for a newcomer on a fresh Debian bookworm machine:
#   make demo   install missing packages, configure, build, run a bundled scenario
#   make test   the same set-up, then the whole test suite
BUILD_DIR ?= build/default
ASAN_DIR ?= build/asan
FUZZ_DIR ?= build/fuzz
FUZZ_SECONDS ?= 60
JOBS ?= 2
BRIGADE := $(BUILD_DIR)/cli/brigade
DEMO_SCENARIO ?= scenarios/llm_13b_128gpu.yaml

.PHONY: all deps configure build demo test test-asan fuzz bench clean

all: build

deps:
	@scripts/install-deps

$(BUILD_DIR)/build.ninja: CMakeLists.txt CMakePresets.json | deps
	cmake --preset default

configure: deps $(BUILD_DIR)/build.ninja

build: configure
	cmake --build $(BUILD_DIR) -j$(JOBS)

demo: build
	@echo "== brigade cost $(DEMO_SCENARIO)   (closed form)"
	@$(BRIGADE) cost $(DEMO_SCENARIO)
	@echo
	@echo "== brigade simulate $(DEMO_SCENARIO)   (discrete-event, contended links)"
	@$(BRIGADE) simulate $(DEMO_SCENARIO)

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(JOBS) --timeout 600

# The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer
# (clang-14, -fno-sanitize-recover: the first report fails its test).
$(ASAN_DIR)/build.ninja: CMakeLists.txt CMakePresets.json | deps
	cmake --preset asan

test-asan: deps $(ASAN_DIR)/build.ninja
	cmake --build $(ASAN_DIR) -j$(JOBS)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --test-dir $(ASAN_DIR) --output-on-failure -j$(JOBS) --timeout 1200

# Every libFuzzer target for FUZZ_SECONDS each, JOBS at once (tests/fuzz/run).
$(FUZZ_DIR)/build.ninja: CMakeLists.txt CMakePresets.json | deps
	cmake --preset fuzz

fuzz: deps $(FUZZ_DIR)/build.ninja
	cmake --build $(FUZZ_DIR) -j$(JOBS) --target fuzz_scenario fuzz_profile fuzz_trace fuzz_units fuzz_hf_config fuzz_nccl_tests fuzz_kernel_summary
	FUZZ_JOBS=$(JOBS) tests/fuzz/run $(FUZZ_DIR) $(FUZZ_SECONDS)

bench: build
	@for b in $(BUILD_DIR)/bench/*_bench; do echo "== $$b"; $$b; done

clean:
	rm -rf build
