#!/usr/bin/env bash
# Builds `vision` as a binary that travels: Swift's runtime and Foundation linked in
# (--static-swift-stdlib), packed with a README into dist/vision-linux-<arch>.tar.gz. The machine that
# runs it needs no Swift toolchain, only the system libraries the README names (found here with ldd),
# ffmpeg for videos, and the models (`vision models fetch`).
#
#   tools/package.sh                  release build, tarball in dist/
#   tools/package.sh --out DIR        tarball in DIR
#   SWIFT_BUILD_FLAGS="-c release -Xswiftc -enable-testing" tools/package.sh
#                                     the same flags as the tests' build, so nothing is recompiled (CI)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="$here/dist"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    *) echo "package.sh: unknown argument $1" >&2; exit 1 ;;
  esac
done
read -r -a flags <<< "${SWIFT_BUILD_FLAGS:--c release}"
# Foundation's URLSession (vision models fetch) is libcurl's: the static Foundation links the system's shared
# libcurl (-lcurl). Without the -dev package there is no libcurl.so, so one is made pointing at the library.
links="$(mktemp -d)"
stage="$(mktemp -d)"
trap 'rm -rf "$links" "$stage"' EXIT
if ! ldconfig -p | grep -q 'libcurl.so '; then
  curl_lib="$(ldconfig -p | awk '/libcurl.so.4 / { print $NF; exit }')"
  [ -n "$curl_lib" ] || { echo "package.sh: libcurl.so.4 not found (apt-get install libcurl4)" >&2; exit 1; }
  ln -s "$curl_lib" "$links/libcurl.so"
  flags+=(-Xlinker -L"$links")
fi
cd "$here"
swift build "${flags[@]}" --static-swift-stdlib --product vision
bin="$(swift build "${flags[@]}" --static-swift-stdlib --show-bin-path)/vision"

arch="$(uname -m)"
name="vision-linux-$arch"
mkdir -p "$stage/$name"
cp "$bin" "$stage/$name/vision"
strip "$stage/$name/vision" 2>/dev/null || true

# The shared libraries the binary names (NEEDED), and the Debian packages that hold them; ldd adds what
# those load in turn.
package_of() {
  local real; real="$(readlink -f "$1" 2>/dev/null || echo "$1")"
  dpkg -S "$real" 2>/dev/null | head -1 | cut -d: -f1 || true
}
needed=""
for lib in $(readelf -d "$stage/$name/vision" | awk '/NEEDED/ { gsub(/[\[\]]/, "", $NF); print $NF }'); do
  path="$(ldd "$stage/$name/vision" | awk -v l="$lib" '$1 == l { print ($3 != "" ? $3 : $1) }' | head -1)"
  pkg="$(package_of "${path:-$lib}")"
  needed+="  $lib${pkg:+  ($pkg)}"$'\n'
done
all="$(ldd "$stage/$name/vision" | awk '{ print $1 }' | sort -u | tr '\n' ' ')"
swift_version="$(swift --version 2>/dev/null | head -1)"
commit="$(git -C "$here" rev-parse --short HEAD 2>/dev/null || echo unknown)"

cat > "$stage/$name/README.md" <<README
# vision, packaged ($arch Linux)

The \`vision\` command line of TasksVision (commit $commit), built with \`--static-swift-stdlib\`
($swift_version): the Swift runtime and Foundation are inside the binary, so no Swift toolchain is needed.
It runs from any folder.

## What the machine needs

The shared libraries the binary names (\`readelf -d\` on the build machine; the Debian package in brackets):

\`\`\`
$needed\`\`\`

With what those load in turn (\`ldd\`):
$(echo "$all" | fold -s -w 110)

On Debian or Ubuntu: \`apt-get install libopenblas0 libcurl4 ffmpeg\` (libc, libstdc++ and libgcc are on every
system; libcurl is for \`vision models fetch\`'s downloads; ffmpeg only for video files, cameras and overlay
videos, run as a child process, not linked).

## Models

\`vision\` finds models in \`\$TASKSVISION_MODELS\`, the per-user folder (\`~/.local/share/tasksvision/models\`),
\`Models/\` in the working directory or \`Models/\` beside the binary. Install them once:

\`\`\`
./vision models fetch                 # into the per-user folder
./vision models fetch --to Models     # or beside the binary, for a self-contained folder
\`\`\`

\`models fetch\` unpacks the mediapipe 0.10.14 wheel from PyPI (or \`--wheel FILE\`) and copies the rest from
\`--shared DIR\` (a folder whose \`models/\` holds them); every file is checked against its sha256.

## Try it

\`\`\`
./vision faces --json photo.jpg
./vision pose --json --video clip.mp4
printf '%s\n' a.jpg b.jpg clip.mp4 | ./vision hands --stdin --json
\`\`\`

\`./vision --help\` lists the commands.
README

mkdir -p "$out"
tar -C "$stage" -czf "$out/$name.tar.gz" "$name"
echo "package: $out/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1)); libraries:"
printf '%s' "$needed"
