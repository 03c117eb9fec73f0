# Two commands for a newcomer on a fresh Debian bookworm machine:
#   make demo   install missing packages, configure, build, run a bundled scenario
#   make test   the same set-up, then the whole test suite
BUILD_DIR ?= build/default
JOBS ?= 2
BRIGADE := $(BUILD_DIR)/cli/brigade
DEMO_SCENARIO ?= scenarios/llm_13b_128gpu.yaml

.PHONY: all deps configure build demo test bench clean

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

bench: build
	@for b in $(BUILD_DIR)/bench/*_bench; do echo "== $$b"; $$b; done

clean:
	rm -rf build
