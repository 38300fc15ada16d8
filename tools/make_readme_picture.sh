#!/usr/bin/env bash
# Draws the README's picture: `vision gestures --overlay` on three of Model Maker's gesture test photos
# (../shared/testdata/gesture_training, Apache License 2.0), scaled to one height and set side by side with ffmpeg,
# into docs/images/overlays.png.
#
#   tools/make_readme_picture.sh        (after tools/setup.sh and swift build -c release --product vision)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
shared="${TASKSVISION_SHARED:-$here/../shared}"
photos="$shared/testdata/gesture_training"
vision="$here/.build/release/vision"
if [ ! -x "$vision" ]; then
  echo "make_readme_picture: build vision first (swift build -c release --product vision)" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
picks=(call/0413d5c5-f5ba-476f-a921-ea5e967692a9.jpg four/06aa70cc-a12a-4b1e-85cf-e54d44c19a3a.jpg
       rock/026fd791-8f64-4fae-8cb0-0e01dc4362ce.jpg)
inputs=()
for p in "${picks[@]}"; do
  cp "$photos/$p" "$work/$(basename "$(dirname "$p")").jpg"
  inputs+=("$work/$(basename "$(dirname "$p")").jpg")
done
mkdir -p "$work/out"
"$vision" gestures --overlay "$work/out" "${inputs[@]}"
args=() filter="" n=0
for f in "$work"/out/*.png; do
  args+=(-i "$f")
  filter+="[$n:v]scale=-2:360[v$n];"
  n=$((n + 1))
done
for i in $(seq 0 $((n - 1))); do filter+="[v$i]"; done
filter+="hstack=inputs=$n"
mkdir -p "$here/docs/images"
ffmpeg -loglevel error -y "${args[@]}" -filter_complex "$filter" -frames:v 1 "$here/docs/images/overlays.png"
echo "make_readme_picture: docs/images/overlays.png from ${picks[*]}"
