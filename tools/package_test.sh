#!/usr/bin/env bash
# Tests tools/package.sh's tarball as a machine without Swift would use it: unpacked into an empty
# folder outside the build tree, with no models but those `vision models fetch` installs there, and
# run from that folder (the package's own Models/ lookup, not the repository's).
#
#   tools/package_test.sh [TARBALL]   (default: builds one with tools/package.sh)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
shared="$(cd "${TASKSVISION_SHARED:-$here/../shared}" && pwd)"
# The wheel cache stays the user's, so the mediapipe wheel is downloaded once.
cache="${XDG_CACHE_HOME:-$HOME/.cache}"
work="$(mktemp -d /tmp/vision-package-test.XXXXXX)"
trap 'rm -rf "$work"' EXIT
tarball="${1:-}"
if [ -z "$tarball" ]; then
  tools_out="$work/dist"
  bash "$here/tools/package.sh" --out "$tools_out"
  tarball="$(ls "$tools_out"/vision-linux-*.tar.gz)"
fi
mkdir "$work/run"
cd "$work/run"
tar -xzf "$tarball"
pkg="$(ls -d "$work/run"/vision-linux-*)"
test -x "$pkg/vision"
# Nothing of the build tree: no inherited model folder, a fresh user folder.
export HOME="$work/home" XDG_DATA_HOME="$work/home/data"
unset TASKSVISION_MODELS TASKSVISION_SHARED
mkdir -p "$HOME"
export XDG_CACHE_HOME="$cache"
"$pkg/vision" models fetch --to "$pkg/Models" --shared "$shared"
# The official hand, gesture and full pose bundles were installed (not their assembled fallbacks).
verify="$("$pkg/vision" models --verify)"
for m in hand_landmarker.task gesture_recognizer.task pose_landmarker_full.task; do
  if ! echo "$verify" | grep -E "^$m .*\(sha256 ok\)$" >/dev/null; then
    echo "package_test: $m is not the official bundle: $(echo "$verify" | grep "^$m ")" >&2; exit 1
  fi
done
cd "$work"
out="$("$pkg/vision" faces --json "$shared/testdata/images/faces_two_1.png")"
echo "$out" | python3 -c '
import json, sys
line = json.loads(sys.stdin.read())
n = len(line["result"]["detections"])
assert n == 2, f"expected 2 faces, got {n}"
'
hands="$(printf '%s\n' "$shared/testdata/images/hand_open_palm_1.png" | "$pkg/vision" hands --stdin --json)"
echo "$hands" | python3 -c '
import json, sys
records = [json.loads(l) for l in sys.stdin.read().splitlines()]
assert records[-1] == {"input": records[-1]["input"], "done": True, "frames": 1}, records[-1]
assert len(records[0]["result"]["landmarks"]) == 1, records[0]
'
# The binary names no library of the Swift toolchain.
if ldd "$pkg/vision" | grep -E "libswift|libFoundation|libdispatch"; then
  echo "package_test: the binary still loads Swift's libraries" >&2; exit 1
fi
echo "package_test: ok ($(basename "$tarball") runs from $work/run with its fetched models)"
