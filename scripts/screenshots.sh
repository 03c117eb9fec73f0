#!/usr/bin/env bash
# Makes the README's pictures of the app with `brigade-gui --screenshot`
# (offscreen: no display needed) into docs/screenshots/, and checks that
# each is under 300 KB (what the repository accepts).
#   scripts/screenshots.sh [BUILD_DIR]      (default build/default)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build/default}
gui="$build/gui/brigade-gui"
if [ ! -x "$gui" ]; then
  echo "screenshots: error: found no $gui; expected a build (cmake --build $build --target brigade-gui)" >&2
  exit 2
fi
export QT_QPA_PLATFORM=offscreen
out=docs/screenshots
mkdir -p "$out"
views=$("$gui" --help | sed -n 's/.*the view to render: \(.*\)/\1/p' | tr -d ',')

# name  view  size  extra options  file
shots=(
  "window|window|1400x1050|--time 5us|scenarios/pmap_train_step.yaml"
  "timeline|timeline|1400x760||scenarios/llm_13b_128gpu.yaml"
  "timeline_host|timeline|1400x470|--window 0:1.5ms|scenarios/host_bound_gpt.yaml"
  "timeline_shared_host|timeline|1400x560|--window 0:1.5ms|scenarios/lessons/more/14-one-host-for-eight.yaml"
  "topology|topology|1400x760|--granularity step --time 9s|scenarios/gpt3_175b_1024.yaml"
  "topology_pmap|topology|1000x560|--time 5us|scenarios/pmap_train_step.yaml"
  "memory|memory|1400x700|--granularity step|scenarios/gpt3_175b_1024.yaml"
  "scaling|scaling|1400x700||scenarios/llm_13b_128gpu.yaml"
  "calibration|calibration|1400x800||scenarios/profiles/h200_measured.yaml"
  "whatif|whatif|1400x420||scenarios/llm_13b_128gpu.yaml"
  "teach_pmap|teach|1400x800|--step 13|scenarios/pmap_train_step.yaml"
  "teach_transfer|teach|1400x800|--step 3|scenarios/lessons/05-sauce-bowl.yaml"
  "compare|compare|1400x760|--compare tests/data/compare/validation-pipeline-transformer.sim.json.gz|tests/data/compare/validation-pipeline-transformer.measured.json.gz"
)
status=0
for s in "${shots[@]}"; do
  IFS='|' read -r name view size extra file <<<"$s"
  if ! grep -qw "$view" <<<"$views window"; then
    echo "screenshots: skipping $name: this build has no '$view' view"
    continue
  fi
  # shellcheck disable=SC2086
  "$gui" --screenshot "$out/$name.png" --view "$view" --size "$size" $extra "$file"
  bytes=$(stat -c %s "$out/$name.png")
  echo "screenshots: $out/$name.png ($((bytes / 1024)) KB)"
  if [ "$bytes" -ge 307200 ]; then
    echo "screenshots: error: $out/$name.png is $((bytes / 1024)) KB; expected < 300 KB" >&2
    status=1
  fi
done
exit $status
