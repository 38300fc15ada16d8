#!/bin/bash
# Checks the engine's copies of XNNPACK's x86 sigmoid and softmax-exponential kernels
# (Sources/TasksVisionEngine/Layers/XNNPACKElementwise.swift) against XNNPACK's own, compiled
# from its source: every one of the 2^32 sigmoid inputs, every exp input <= 0, and the softmax
# sums' order on random rows. Needs gcc, swiftc and an AVX-512F CPU (it runs both kernels).
# usage: tools/xnnpack_elementwise/check.sh /path/to/XNNPACK   (a checkout or a bare git dir)
set -euo pipefail
xnn=${1:?usage: check.sh /path/to/XNNPACK}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
grep -qw avx512f /proc/cpuinfo || { echo "check.sh: this CPU has no AVX-512F" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
show() {  # a file of the XNNPACK checkout, or of its HEAD in a bare git directory
    if [ -f "$xnn/$1" ]; then cat "$xnn/$1"; else git -C "$xnn" show "HEAD:$1"; fi
}
mkdir -p "$work/src/xnnpack" "$work/r"
cat > "$work/src/xnnpack/common.h" <<'H'
#define XNN_UNLIKELY(c) (__builtin_expect(!!(c), 0))
#define XNN_FORCE_REALIZATION(x) __asm volatile("" ::"m"(x));
#define XNN_ALIGN(n) __attribute__((aligned(n)))
#define XNN_LOG2_SIZEOF_FLOAT 2
H
echo 'struct xnn_f32_default_params { int unused; };' > "$work/src/xnnpack/microparams.h"
touch "$work/src/xnnpack/vunary.h" "$work/src/xnnpack/intrinsics-polyfill.h" "$work/src/xnnpack/raddstoreexpminusmax.h"
cflags="-O2 -mavx512f -mavx512dq -mavx2 -mfma -I$work"
for k in f32-vsigmoid/gen/f32-vsigmoid-avx2-rr1-p5-div-u16 \
         f32-vsigmoid/gen/f32-vsigmoid-avx512f-rr2-lut32-p2-perm2-scalef-div-u64 \
         f32-raddstoreexpminusmax/gen/f32-raddstoreexpminusmax-avx2-rr2-p5-u32-acc2 \
         f32-raddstoreexpminusmax/gen/f32-raddstoreexpminusmax-avx512f-rr2-p5-u64-acc2; do
    show "src/$k.c" > "$work/$(basename "$k").c"
    gcc $cflags -c "$work/$(basename "$k").c" -o "$work/$(basename "$k").o"
done
sed -e '/^import TasksVision/d' "$repo/Sources/TasksVisionEngine/Layers/XNNPACKElementwise.swift" > "$work/ours.swift"
cp "$repo/Sources/TasksVisionKernels/CPUFeatures.swift" "$work/features.swift"
cp "$here/sigmoid.swift" "$work/main.swift"
cp "$here/softmax.swift" "$work/r/main.swift"
swiftc -O "$work/main.swift" "$work/ours.swift" "$work/features.swift" "$work"/f32-vsigmoid-*.o -o "$work/sigmoid"
swiftc -O "$work/r/main.swift" "$work/ours.swift" "$work/features.swift" "$work"/f32-raddstoreexpminusmax-*.o \
  -o "$work/softmax"
"$work/sigmoid"
"$work/softmax"
