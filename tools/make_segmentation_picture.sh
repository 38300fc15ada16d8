#!/usr/bin/env bash
# Draws the README's segmentation picture: pose_standing_1.png (../shared/testdata/images) as it is, with its
# background blurred, and with it replaced by negative_outdoor_1.png, by `vision segment --background`, scaled to
# one height and set side by side with ffmpeg into docs/images/background.png.
#
#   tools/make_segmentation_picture.sh        (after tools/setup.sh and swift build -c release --product vision)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
shared="${TASKSVISION_SHARED:-$here/../shared}"
vision="$here/.build/release/vision"
if [ ! -x "$vision" ]; then
  echo "make_segmentation_picture: build vision first (swift build -c release --product vision)" >&2
  exit 1
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
photo="$shared/testdata/images/pose_standing_1.png"
"$vision" segment "$photo" --background blur=16 --overlay "$work/blur" >/dev/null
"$vision" segment "$photo" --background "$shared/testdata/images/negative_outdoor_1.png" \
  --overlay "$work/image" >/dev/null
ffmpeg -hide_banner -loglevel error -y -i "$photo" -i "$work/blur/pose_standing_1.png" \
  -i "$work/image/pose_standing_1.png" \
  -filter_complex "[0:v]scale=-2:400[a];[1:v]scale=-2:400[b];[2:v]scale=-2:400[c];[a][b][c]hstack=inputs=3" \
  -frames:v 1 "$here/docs/images/background.png"
echo "wrote docs/images/background.png"
