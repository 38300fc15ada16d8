#!/usr/bin/env bash
# The NEON kernel set on arm64, from an x86-64 Debian machine (as root): `vision` cross-compiled for
# aarch64-unknown-linux-gnu, then run under qemu-user beside TFLite-XNNPACK's own arm64 build, on the same
# emulated processor, through tools/compare_engine.py --sets neon. qemu emulates each fused multiply-add
# exactly, so the bits are those of a real arm64 processor; the times are not.
#
#   bash tools/arm64_check.sh [WORK_DIR] [compare_engine.py arguments]     # WORK_DIR defaults to ../arm64-check
#   bash tools/arm64_check.sh WORK_DIR --tests [XCTest filter]              # the test suite instead, e.g.
#       --tests TasksVisionEngineTests.ModelParityTests,TasksVisionTests.PoseLandmarkerParityTests (all without one)
#
# What it sets up in WORK_DIR (once; about 20 minutes and 3 GB, then about 5 minutes a run):
#   - qemu-user-static, registered with binfmt_misc with the fix-binary flag, so the arm64 root runs as a chroot;
#   - arm64/: Debian sid for arm64 with swiftlang (the Swift runtime), libopenblas-dev and python3, and
#     ai-edge-litert, numpy, pillow and flatbuffers from PyPI's aarch64 wheels (downloaded here, installed there);
#   - amd64/: Debian sid for x86-64 with swiftlang 6.2.3, the same Swift as the arm64 root's, as cross compiler;
#   - repo/: a clone of this repository's HEAD, built with TASKSVISION_NO_TARGET_CPU=1: the manifest adds the x86
#     `-target-cpu` flags by the build machine's architecture (`#if arch(x86_64)`), not the target's.
# The emulated processor has Neoverse N1's features (QEMU_CPU) and a /proc/cpuinfo naming CPU part
# ${ARM64_CPU_PART:-0xd40} (Neoverse V1), from which XNNPACK picks its kernels; some of its choices depend on
# the core (its one-row GEMM, for one), so name the part you compared against.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mkdir -p "${1:-$here/../arm64-check}" && cd "${1:-$here/../arm64-check}" && pwd)"
shift $(( $# > 0 ? 1 : 0 ))
part="${ARM64_CPU_PART:-0xd40}"
mirror=http://deb.debian.org/debian
apt_opts=(-o Acquire::Check-Valid-Until=false)
[ "$(id -u)" = 0 ] || { echo "arm64_check: run as root (chroot, mount, binfmt_misc)" >&2; exit 1; }

command -v qemu-aarch64-static >/dev/null && command -v debootstrap >/dev/null || {
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user-static binfmt-support debootstrap >/dev/null
}
mountpoint -q /proc/sys/fs/binfmt_misc || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
binfmt=/proc/sys/fs/binfmt_misc/qemu-aarch64
if ! grep -q "flags: .*F" "$binfmt" 2>/dev/null; then
  [ -e "$binfmt" ] && echo -1 > "$binfmt"
  # An arm64 ELF executable's header (magic and mask as Debian's qemu-user-static registers it), F: fix the binary.
  magic='\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x02\x00\xb7\x00'
  mask='\xff\xff\xff\xff\xff\xff\xff\x00\xff\xff\xff\xff\xff\xff\xff\xff\xfe\xff\xff\xff'
  echo ":qemu-aarch64:M::$magic:$mask:/usr/bin/qemu-aarch64-static:FPC" > /proc/sys/fs/binfmt_misc/register
fi

# The clone, with the models and ../shared mounted into WORK_DIR, which both roots see.
repo="$work/repo"
[ -d "$repo/.git" ] || git clone -q "$here" "$repo"
git -C "$repo" fetch -q "$here" HEAD && git -C "$repo" checkout -q -f FETCH_HEAD
mountpoint -q "$repo/Models" || mount --bind "$here/Models" "$repo/Models"
mkdir -p "$work/shared"
mountpoint -q "$work/shared" || mount --bind "$(cd "$here/../shared" && pwd)" "$work/shared"

# A Debian sid root for `arch` with `packages`, /proc, /sys, /dev and `work` mounted inside.
make_root() {
  local arch=$1 root=$2; shift 2
  if [ ! -x "$root/usr/bin/swift" ]; then
    [ -e "$root/etc/debian_version" ] || debootstrap --arch="$arch" --variant=minbase --include=ca-certificates sid \
      "$root" "$mirror" >"$work/debootstrap-$arch.log"
    cp /etc/resolv.conf "$root/etc/"
    chroot "$root" apt-get "${apt_opts[@]}" update -qq
    chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends \
      swiftlang "$@" >"$work/apt-$arch.log"
  fi
  for d in proc sys dev; do mountpoint -q "$root/$d" || mount --bind "/$d" "$root/$d"; done
  mkdir -p "$root$work"
  umount -R "$root$work" 2>/dev/null || true
  mount --rbind "$work" "$root$work"
}
arm="$work/arm64" amd="$work/amd64"
make_root arm64 "$arm" libopenblas-dev libc6-dev python3 python3-venv
make_root amd64 "$amd" binutils libc6-dev pkg-config

# XNNPACK reads the core from /proc/cpuinfo; qemu-user passes the host's through, so give the root its own.
for i in 0 1; do
  printf 'processor\t: %d\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp ' "$i"
  printf 'asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs\nCPU implementer\t: 0x41\nCPU architecture: 8\n'
  printf 'CPU variant\t: 0x1\nCPU part\t: %s\nCPU revision\t: 1\n\n' "$part"
done >"$work/cpuinfo"
mountpoint -q "$arm/proc/cpuinfo" && umount "$arm/proc/cpuinfo"
mount --bind "$work/cpuinfo" "$arm/proc/cpuinfo"
export QEMU_CPU=neoverse-n1

if [ ! -x "$arm/opt/venv/bin/python" ]; then
  python_version=$(chroot "$arm" python3 -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
  mkdir -p "$work/wheels"
  python3 -m pip download -q --only-binary=:all: --python-version "$python_version" -d "$work/wheels" \
    --platform manylinux_2_27_aarch64 --platform manylinux_2_28_aarch64 --platform manylinux2014_aarch64 \
    ai-edge-litert numpy pillow flatbuffers
  chroot "$arm" python3 -m venv /opt/venv
  chroot "$arm" /opt/venv/bin/pip install -q --no-index --find-links "$work/wheels" ai-edge-litert numpy pillow \
    flatbuffers
fi

blas_include=$(dirname "$(find "$arm/usr/include" -path '*openblas-pthread/cblas.h' | head -1)")
blas_lib=$(dirname "$(find "$arm/usr/lib" -path '*openblas-pthread/libopenblas.so' | head -1)")
cat >"$work/toolset.json" <<EOF
{"schemaVersion": "1.0",
 "swiftCompiler": {"extraCLIOptions": ["-resource-dir", "$arm/usr/libexec/swift/lib/swift", "-sdk", "$arm",
                                       "-use-ld=lld", "-Xclang-linker", "--sysroot=$arm", "-Xcc", "-I$blas_include",
                                       "-L$blas_lib"]},
 "cCompiler": {"extraCLIOptions": ["--sysroot=$arm", "-I$blas_include"]}}
EOF
cross=(chroot "$amd" env HOME=/root TASKSVISION_NO_TARGET_CPU=1 bash -c)
"${cross[@]}" "cd '$repo' && swift build -c release --product vision \
  --scratch-path .build-arm64 --triple aarch64-unknown-linux-gnu --sdk '$arm' --toolset '$work/toolset.json' 2>&1 \
  | grep -v '^\[' | tail -3"
mkdir -p "$repo/.build/release"
ln -sfn "$repo/.build-arm64/release/vision" "$repo/.build/release/vision"

chroot "$arm" "$repo/.build/release/vision" kernels
echo "arm64_check: CPU part $part (QEMU_CPU=$QEMU_CPU)"

if [ "${1:-}" = --tests ]; then
  # Debian's swiftlang 6.2.3 ships Swift Testing's Foundation overlay without its library, which a test bundle
  # links (no symbol of it is used): an empty stand-in in the arm64 root.
  overlay="$arm/usr/lib/swift/linux/lib_Testing_Foundation.so"
  if [ ! -e "$overlay" ]; then
    : >"$work/empty.c"
    chroot "$amd" /usr/libexec/swift/bin/clang --target=aarch64-linux-gnu -shared -nostdlib -fuse-ld=lld \
      -o "$work/lib_Testing_Foundation.so" "$work/empty.c"
    cp "$work/lib_Testing_Foundation.so" "$overlay"
  fi
  "${cross[@]}" "cd '$repo' && swift build -c release -Xswiftc -enable-testing --build-tests \
    --scratch-path .build-arm64 --triple aarch64-unknown-linux-gnu --sdk '$arm' --toolset '$work/toolset.json' 2>&1 \
    | grep -v '^\[' | tail -3"
  chroot "$arm" env HOME=/root bash -c "cd '$repo' && .build-arm64/release/TasksVisionPackageTests.xctest ${2:-}"
  exit
fi
chroot "$arm" env HOME=/root /opt/venv/bin/python "$repo/tools/compare_engine.py" --sets neon "$@" 2>&1 \
  | grep -v "^INFO: Created TensorFlow Lite"
