#!/bin/bash
# Every figure a kernels note gives, on this machine, into one folder: the CPU (model name, vendor, family, flags),
# the FMA peak per kernel set, bit parity against TFLite-XNNPACK (a fresh seed), engine speed per set at 1 and 2
# threads, per-layer ratios of two GEMM-heavy models per set, task speed and peak memory.
#
#   bash tools/measure_kernels.sh [OUT_DIR] [--quick]
#
# Builds with `swift build -c release` first (no benchmark runs while anything builds). --quick takes fewer rounds
# and models, to check the script itself. Needs what tools/setup.sh installs and `pip install mediapipe==1.2.3
# ai-edge-litert pillow flatbuffers`. About 30 minutes on two cores without --quick.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$repo/.build/measurements/$(date +%Y%m%d-%H%M%S)}
quick=false
for a in "$@"; do [ "$a" = --quick ] && quick=true; done
[ "$out" = --quick ] && out=$repo/.build/measurements/$(date +%Y%m%d-%H%M%S)
mkdir -p "$out"
cd "$repo"
if ! swift build -c release >"$out/build.log" 2>&1; then
    echo "measure_kernels: the build failed, see $out/build.log" >&2
    exit 1
fi
bench=.build/release/vision-bench
quiet() { grep -v -E "INFO|WARNING|W0000|I0000" || true; }

{
    grep -m1 "model name" /proc/cpuinfo || true
    grep -m1 "vendor_id" /proc/cpuinfo || true
    grep -m1 "cpu family" /proc/cpuinfo || true
    grep -m1 "^model\s" /proc/cpuinfo || true
    grep -m1 "^flags" /proc/cpuinfo | tr ' ' '\n' | grep -E "^(avx|fma|f16c|asimd)" | tr '\n' ' ' || true
    echo
    nproc
} >"$out/cpu.txt"
sets=$(.build/release/vision kernels | sed -n 's/.*supported: *\([a-z0-9, ]*\).*/\1/p' | tr -d ',' | head -1)
[ -n "$sets" ] || sets="portable"
echo "sets: $sets" >>"$out/cpu.txt"
cat "$out/cpu.txt"

if $quick; then rounds=2; runs=5; models="hand_landmark_lite.tflite face_detection_short_range.tflite"
else rounds=10; runs=20; models=""; fi

for s in $sets; do
    [ "$s" = portable ] || "$bench" --kernels "$s" --peak | tail -1 | tee -a "$out/peak.txt"
done
seed=$((RANDOM * 32768 + RANDOM))
python3 tools/compare_engine.py --seed "$seed" ${models:+--models $models} 2>&1 | quiet >"$out/parity.txt"
tail -n 4 "$out/parity.txt"
for s in $sets; do
    [ "$s" = portable ] && continue
    TASKSVISION_KERNELS=$s python3 tools/bench_engine.py --threads 1 2 --runs "$runs" --rounds "$rounds" \
        ${models:+--models $models} 2>&1 | quiet >"$out/engine-$s.txt"
    echo "engine, $s:"; cat "$out/engine-$s.txt"
    for m in ${models:-hand_landmark_full.tflite pose_detection.tflite}; do
        TASKSVISION_KERNELS=$s python3 tools/bench_layers.py "$m" --runs $((runs * 5)) --rounds 2 2>&1 \
            | quiet >"$out/layers-$s-${m%.tflite}.txt"
        tail -n 1 "$out/layers-$s-${m%.tflite}.txt"
    done
done
if $quick; then python3 tools/bench_tasks.py --runs 3 --rounds 1 --tasks faces pose 2>&1 | quiet >"$out/tasks.txt"
else python3 tools/bench_tasks.py --runs 20 --rounds 8 2>&1 | quiet >"$out/tasks.txt"; fi
cat "$out/tasks.txt"
python3 tools/bench_memory.py 2>&1 | quiet >"$out/memory.txt"
python3 tools/bench_memory.py --tasks 2>&1 | quiet >"$out/memory-tasks.txt"
cat "$out/memory.txt" "$out/memory-tasks.txt"
echo "measure_kernels: everything is in $out"
