#!/usr/bin/env bash
# The GPU check of the real executor, in one go (issue 5, item 7).
#
#   scripts/gpu-check.sh prepare   on a development machine (no GPU needed):
#                                  configure with CUDA, build the CUDA tests and
#                                  the CLI, and gather them with the shared
#                                  libraries they need into carry/gpu-check/
#   scripts/gpu-check.sh run       on the GPU machine: run the GPU tests,
#                                  calibrate, validate the GPU scenarios and
#                                  print a summary; results go to $OUT (the
#                                  device tool's output folder) or ./gpu-check-out
#   scripts/gpu-check.sh           both, on a machine that has a GPU and the
#                                  build dependencies
#
# The lent GPU machine has CUDA 13, CMake and ninja but none of the Debian
# packages (yaml-cpp, fmt, CBC, ...) and no network, so the build happens
# here. The CUDA backend is a module (libbrigade_cuda.so, carried beside the
# programs, which open it on first use). cudart is linked into it statically;
# cuBLAS and NCCL (hundreds of MB) are not
# carried but found there (/usr/local/cuda, or the nvidia-* Python wheels of
# its image); everything else the binaries load is copied beside them.
# Through the device tool (see docs/VALIDATION.md):
#   scripts/gpu-check.sh prepare        # here
#   run: command "scripts/gpu-check.sh run", carry ["carry/gpu-check"], timeout_s 420
# `run` keeps to one deadline, GPU_CHECK_BUDGET_S seconds (default 400,
# under the tool's timeout_s): each step's timeout is capped at what is
# left of it, and a step is skipped (the summary says so) when under 20 s
# are left, so that the summary and logs.tgz are always written.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CARRY="$ROOT/carry/gpu-check"
BUILD="$ROOT/build/gpu"
MODE="${1:-all}"

say() { printf '== %s\n' "$*" >&2; }

prepare() {
  say "configure $BUILD (CUDA on, sm_80 and sm_90)"
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(dirname "$ROOT")}"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBRIGADE_WITH_CUDA=ON -DBRIGADE_WITH_GUI=OFF -DBRIGADE_WITH_BENCH=OFF \
    -DCMAKE_CUDA_ARCHITECTURES="80;90" >/dev/null
  grep -q 'BRIGADE_HAVE_CUDA=1' "$BUILD/build.ninja" ||
    { echo "gpu-check: the CUDA backend is not enabled in $BUILD (CUDA toolkit or NCCL missing)" >&2; exit 1; }
  say "build realexec_tests, brigade and the CUDA backend's module"
  cmake --build "$BUILD" -j"${JOBS:-2}" --target realexec_tests brigade brigade_cuda brigade-fp8-probe
  rm -rf "$CARRY"
  mkdir -p "$CARRY/bin" "$CARRY/lib" "$CARRY/lib-fallback"
  # The module beside the programs, where they look for it first.
  cp "$BUILD/tests/realexec_tests" "$BUILD/cli/brigade" "$BUILD/lib/libbrigade_cuda.so" \
    "$BUILD/realexec/brigade-fp8-probe" "$CARRY/bin/"
  # Shared libraries: everything ldd resolves except glibc's own (the GPU
  # machine's glibc is newer) and the CUDA libraries found there. libstdc++ and
  # libgcc_s go to a fallback folder searched last, so a newer system copy wins.
  for exe in "$CARRY"/bin/*; do
    ldd "$exe" | awk '/=> \// {print $3}'
  done | sort -u | while read -r lib; do
    base="$(basename "$lib")"
    case "$base" in
      libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|ld-linux*|libresolv.so*) ;;
      libcuda.so*|libcudart*|libcublas*|libnccl*|libnvidia*) ;;
      libstdc++.so*|libgcc_s.so*) cp -L "$lib" "$CARRY/lib-fallback/" ;;
      *) cp -L "$lib" "$CARRY/lib/" ;;
    esac
  done
  cat >"$CARRY/MANIFEST" <<EOF
built $(date -u '+%Y-%m-%d %H:%M UTC') on $(hostname) from $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
$(cd "$CARRY" && find . -type f | sort | xargs ls -l | awk '{print $5, $9}')
EOF
  local bytes
  bytes=$(du -sb "$CARRY" | cut -f1)
  say "carry/gpu-check: $((bytes / 1024 / 1024)) MiB (the device tool carries at most 64 MiB in all)"
  if [ "$bytes" -gt $((60 * 1024 * 1024)) ]; then
    echo "gpu-check: carry/gpu-check is larger than 60 MiB; strip the binaries or carry less" >&2
    exit 1
  fi
}

# Folders holding libcublas.so.13, libcublasLt.so.13 and libnccl.so.2 on this machine.
find_cuda_libs() {
  local dirs=() d
  for d in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda/targets/x86_64-linux/lib \
           /usr/lib/x86_64-linux-gnu /usr/local/nvidia/lib64; do
    [ -d "$d" ] && dirs+=("$d")
  done
  # The nvidia-* wheels of the image's Python (nvidia/cublas/lib, nvidia/nccl/lib).
  local py
  for py in python3 /opt/torch/.venv/bin/python3; do
    command -v "$py" >/dev/null 2>&1 || continue
    while read -r d; do [ -n "$d" ] && dirs+=("$d"); done < <("$py" - <<'PY' 2>/dev/null || true
import glob, os, site, sys
roots = set(site.getsitepackages() + [site.getusersitepackages()] + sys.path)
for r in roots:
    for d in glob.glob(os.path.join(r, "nvidia", "*", "lib")):
        print(d)
PY
)
  done
  local found=()
  for lib in libcublas.so.13 libcublasLt.so.13 libnccl.so.2; do
    for d in "${dirs[@]}"; do
      if [ -e "$d/$lib" ]; then found+=("$d"); break; fi
    done
  done
  printf '%s\n' "${found[@]}" | awk '!seen[$0]++' | paste -sd: -
}

# The deadline: BUDGET seconds from T0 (set by run_checks).
BUDGET="${GPU_CHECK_BUDGET_S:-400}"
T0=$SECONDS
SKIPPED=()

# step_timeout NAME SECONDS: STEP_TO = min(SECONDS, seconds left of the
# budget), or 0 (and NAME noted as skipped for time) when under 20 s are
# left. It sets variables, so call it in this shell, never in $(...).
STEP_TO=0
step_timeout() {
  local left=$((BUDGET - (SECONDS - T0)))
  if [ "$left" -lt 20 ]; then
    SKIPPED+=("$1")
    STEP_TO=0
  elif [ "$2" -lt "$left" ]; then
    STEP_TO=$2
  else
    STEP_TO=$left
  fi
}

# How a step ended, from its exit status: -2 skipped for time, -1 not wired,
# 124 its (capped) timeout.
outcome() {
  case "$1" in
    0) echo "${2:-passed}" ;;
    -1) echo "not wired" ;;
    -2) echo "skipped for time (budget ${BUDGET} s)" ;;
    124) echo "FAILED (timed out, rc 124)" ;;
    *) echo "FAILED (rc $1)" ;;
  esac
}

run_checks() {
  local out="${OUT:-$ROOT/gpu-check-out}"
  mkdir -p "$out"
  T0=$SECONDS
  local t0=$T0
  SKIPPED=()
  [ -x "$CARRY/bin/realexec_tests" ] || { echo "gpu-check: $CARRY/bin is missing: run 'scripts/gpu-check.sh prepare' first" >&2; exit 1; }
  say "machine"
  { nvidia-smi -L || true; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv || true; } | tee "$out/machine.txt"
  local cuda_dirs
  cuda_dirs="$(find_cuda_libs)"
  export LD_LIBRARY_PATH="$CARRY/lib:${cuda_dirs}:${LD_LIBRARY_PATH:-}:$CARRY/lib-fallback"
  echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH" | tee -a "$out/machine.txt"
  if ldd "$CARRY/bin/realexec_tests" "$CARRY/bin/libbrigade_cuda.so" | grep -q "not found"; then
    ldd "$CARRY/bin/realexec_tests" "$CARRY/bin/libbrigade_cuda.so" | grep "not found" | tee -a "$out/machine.txt"
    echo "gpu-check: shared libraries missing (above)" >&2
    exit 1
  fi

  say "GPU tests (realexec_tests, CUDA and calibration suites) [budget $BUDGET s]"
  # The test that no CUDA library is mapped before the backend is asked for
  # must run in a process of its own (ctest runs every test alone; one
  # gtest process runs the CUDA tests before it).
  local lonely='CudaModule.NoCudaLibraryIsMappedUntilTheBackendIsAskedFor'
  local gpu_tests='CudaModule*:CudaExecutor*:*CudaCollective*:Calibrate*'
  local tests_rc=-2
  step_timeout "GPU tests" 30
  if [ "$STEP_TO" -gt 0 ]; then
    tests_rc=0
    timeout "$STEP_TO" "$CARRY/bin/realexec_tests" --gtest_filter="$lonely" 2>&1 |
      tee "$out/gpu-tests.log" || tests_rc=$?
    if [ "$tests_rc" -eq 0 ]; then
      step_timeout "GPU tests" 150
      if [ "$STEP_TO" -gt 0 ]; then
        timeout "$STEP_TO" "$CARRY/bin/realexec_tests" --gtest_filter="$gpu_tests:-$lonely" 2>&1 |
          tee -a "$out/gpu-tests.log" || tests_rc=$?
      else
        tests_rc=-2
      fi
    fi
  fi
  # The rest of the suite (the CPU backend's and the fits' tests): the GPU
  # tests above are not run twice.
  say "the rest of the realexec suite [$((SECONDS - t0)) s]"
  local all_rc=-2
  step_timeout "the rest of realexec" 60
  if [ "$STEP_TO" -gt 0 ]; then
    all_rc=0
    timeout "$STEP_TO" "$CARRY/bin/realexec_tests" --gtest_brief=1 --gtest_filter="-$gpu_tests" \
      >"$out/all-tests.log" 2>&1 || all_rc=$?
    tail -3 "$out/all-tests.log"
  fi

  # The GPU's clock, power and temperature through calibrate and validate,
  # every 100 ms (GEMM rates follow the clock, which the power cap sets).
  local smi_pid=""
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu,clocks_throttle_reasons.active \
      --format=csv -lms 100 >"$out/smi.csv" 2>/dev/null &
    smi_pid=$!
  fi
  # The profile named after the GPU ("NVIDIA H100 80GB HBM3": h100-profile.yaml).
  local gpu_name profile
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
  gpu_name=$(printf '%s' "$gpu_name" | sed 's/^NVIDIA //' | awk '{print $1}' | cut -d- -f1 |
    tr 'A-Z' 'a-z' | tr -cd 'a-z0-9')
  profile="$out/${gpu_name:-gpu}-profile.yaml"
  say "calibrate --backend cuda [$((SECONDS - t0)) s]"
  local cal_rc=-2
  step_timeout "calibrate" 150
  if [ "$STEP_TO" -gt 0 ]; then
    cal_rc=0
    timeout "$STEP_TO" "$CARRY/bin/brigade" calibrate --backend cuda --out "$profile" \
      >"$out/calibrate.txt" 2>"$out/calibrate.err" || cal_rc=$?
    cat "$out/calibrate.txt"
    [ "$cal_rc" -eq 0 ] || tail -5 "$out/calibrate.err"
  fi

  # cuBLASLt's FP8 GEMMs with fast accumulation on and off: the profile key
  # fp8_split_accumulator_efficiency (docs/costmodel.md, "Split accumulation
  # in the gradients' GEMMs"); then weight gradients adding into the
  # gradient buffer against plain ones (docs/FIDELITY.md, "What the errors
  # say": the fused gradient accumulation). Both tables go into the summary.
  say "FP8 GEMMs, fast and split accumulation; accumulating weight gradients [$((SECONDS - t0)) s]"
  local fp8_rc=-2
  if [ ! -x "$CARRY/bin/brigade-fp8-probe" ]; then
    echo "brigade-fp8-probe is not in this carry" >"$out/fp8-accum.txt"
    fp8_rc=-1
  else
    step_timeout "fp8 probe" 100
    if [ "$STEP_TO" -gt 0 ]; then
      fp8_rc=0
      timeout "$STEP_TO" "$CARRY/bin/brigade-fp8-probe" >"$out/fp8-accum.txt" 2>&1 || fp8_rc=$?
      cat "$out/fp8-accum.txt"
    fi
  fi

  say "validate the GPU scenarios [$((SECONDS - t0)) s]"
  local val_rc=-2
  if ! "$CARRY/bin/brigade" validate --help >/dev/null 2>&1; then
    echo "brigade validate is not in this build yet: GPU scenarios not validated" | tee "$out/validate.err"
    val_rc=-1
  else
    local profile_flag=()
    [ -s "$profile" ] && profile_flag=(--profile "$profile")
    local traces="${TMPDIR:-/tmp}/gpu-check-traces"
    rm -rf "$traces" && mkdir -p "$traces"
    step_timeout "validate" 100
    if [ "$STEP_TO" -gt 0 ]; then
      val_rc=0
      timeout "$STEP_TO" "$CARRY/bin/brigade" validate "$ROOT"/scenarios/validation/gpu/*.yaml --backend cuda \
        "${profile_flag[@]}" --repeat 5 --kernels --trace-dir "$traces" >"$out/validate.txt" 2>"$out/validate.err" || val_rc=$?
      cat "$out/validate.txt"
      [ "$val_rc" -eq 0 ] || tail -5 "$out/validate.err"
      # The traces (simulated and measured) in one file: the device tool
      # brings back at most 8 files.
      tar -C "$traces" -czf "$out/traces.tgz" . 2>/dev/null || true
    fi
    say "validate --json [$((SECONDS - t0)) s]"
    step_timeout "validate --json" 100
    if [ "$STEP_TO" -gt 0 ]; then
      [ "$val_rc" -eq -2 ] && val_rc=0
      timeout "$STEP_TO" "$CARRY/bin/brigade" validate "$ROOT"/scenarios/validation/gpu/*.yaml --backend cuda \
        "${profile_flag[@]}" --repeat 5 --json --quiet >"$out/validate.json" 2>>"$out/validate.err" || val_rc=$?
    fi
    # Each measured step by kernel group beside its simulation (brigade
    # kernels takes Brigade's own traces since stop 67): which groups carry
    # validate's error, and the profile keys that time them.
    say "kernels by group [$((SECONDS - t0)) s]"
    step_timeout "kernels" 60
    if [ "$STEP_TO" -gt 0 ] && "$CARRY/bin/brigade" kernels --help >/dev/null 2>&1; then
      local scen name
      for scen in "$ROOT"/scenarios/validation/gpu/*.yaml; do
        name=$(sed -n 's/^name: *//p' "$scen" | head -1)
        [ -s "$traces/$name.measured.json" ] || continue
        echo "== $name" >>"$out/kernels.txt"
        timeout "$STEP_TO" "$CARRY/bin/brigade" kernels "$scen" "${profile_flag[@]}" \
          --measured "$traces/$name.measured.json" >>"$out/kernels.txt" 2>&1 || true
      done
      cat "$out/kernels.txt" 2>/dev/null || true
    fi
  fi

  [ -n "$smi_pid" ] && kill "$smi_pid" 2>/dev/null || true
  say "summary ($((SECONDS - t0)) s)"
  {
    echo "gpu-check $(date -u '+%Y-%m-%d %H:%M UTC')"
    head -1 "$CARRY/MANIFEST"
    grep -m1 "^GPU " "$out/machine.txt" || echo "no GPU listed by nvidia-smi"
    echo "GPU tests:      $(outcome "$tests_rc"): $(grep -E '^\[ +(PASSED|SKIPPED|FAILED) +\] [0-9]+ test' "$out/gpu-tests.log" 2>/dev/null | sed 's/^\[ *\([A-Z]*\) *\] \([0-9]*\).*/\2 \1/' | paste -sd, - | tr 'A-Z' 'a-z')"
    echo "other realexec: $(outcome "$all_rc")"
    echo "calibrate cuda: $(outcome "$cal_rc" "ok ($profile)")"
    # calibrate's own FP8 split/fast (square GEMMs), beside the probe's (the rows' shapes)
    echo "calibrate fp8:  $(grep -m1 'split / fast' "$out/calibrate.txt" 2>/dev/null | sed 's/^ *//' || true)"
    # calibrate's own accumulation pairs (gemm_accumulate_exposed), beside the probe's
    echo "calibrate acc.: $(grep -m1 '^  exposed: ' "$out/calibrate.txt" 2>/dev/null | sed 's/^ *//' || true)"
    echo "validate:       $(outcome "$val_rc" ok)"
    echo "fp8 probe:      $([ $fp8_rc -eq 0 ] && grep -m1 '^fp8_split_accumulator_efficiency' "$out/fp8-accum.txt" || outcome "$fp8_rc")"
    echo "accumulation:   $([ $fp8_rc -eq 0 ] && grep '^gemm_accumulate_exposed' "$out/fp8-accum.txt" | paste -sd';' - || outcome "$fp8_rc")"
    if [ "${#SKIPPED[@]}" -gt 0 ]; then
      echo "skipped for time (under 20 s left of the ${BUDGET} s budget): $(printf '%s\n' "${SKIPPED[@]}" | awk '!seen[$0]++' | paste -sd, - | sed 's/,/, /g')"
    fi
    cat "$out/fp8-accum.txt" 2>/dev/null || true
    echo "next, on the development machine: scripts/gpu-leads <this folder> (the two keys as the fidelity table's what-ifs)"
  } | tee "$out/summary.txt"
  # The device tool brings back at most 8 files: the logs go in one.
  local logs=() f
  for f in machine.txt gpu-tests.log all-tests.log calibrate.err validate.err smi.csv fp8-accum.txt kernels.txt; do
    [ -e "$out/$f" ] && logs+=("$f")
  done
  tar -C "$out" -czf "$out/logs.tgz" "${logs[@]}" && (cd "$out" && rm -f "${logs[@]}")
  [ "$tests_rc" -eq 0 ] && [ "$all_rc" -eq 0 ] && [ "$cal_rc" -eq 0 ]
}

case "$MODE" in
  prepare) prepare ;;
  run) run_checks ;;
  all) prepare && run_checks ;;
  *) echo "usage: scripts/gpu-check.sh [prepare|run]" >&2; exit 2 ;;
esac
