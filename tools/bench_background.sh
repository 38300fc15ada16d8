#!/usr/bin/env bash
# Frames per second of the whole `vision segment --background` path on a 640x480 video: decoding (ffmpeg),
# segmentation, compositing and encoding (ffmpeg), with one inference thread and with two.
#   swift build -c release && bash tools/bench_background.sh [--frames N] [--background SPEC] [--rounds R]
# The video is ../shared/testdata/sequences/pose_dance_1 scaled to 640x480 at 30 fps, looped to N frames (300).
# Run on a quiet machine: the figure is wall-clock time.
set -euo pipefail
cd "$(dirname "$0")/.."
frames=300 background=blur rounds=3
while [ $# -gt 0 ]; do
    case "$1" in
        --frames) frames=$2; shift 2 ;;
        --background) background=$2; shift 2 ;;
        --rounds) rounds=$2; shift 2 ;;
        *) echo "usage: $0 [--frames N] [--background SPEC] [--rounds R]" >&2; exit 2 ;;
    esac
done
shared=${TASKSVISION_SHARED:-../shared}
[ -x .build/release/vision ] || { echo "build first: swift build -c release" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ffmpeg -hide_banner -loglevel error -y -stream_loop -1 -framerate 30 \
    -i "$shared/testdata/sequences/pose_dance_1/%04d.png" \
    -vf scale=640:480 -frames:v "$frames" -c:v libx264 -pix_fmt yuv420p "$work/in.mp4"
for threads in 1 2; do
    for round in $(seq "$rounds"); do
        start=$(date +%s.%N)
        .build/release/vision segment --video "$work/in.mp4" --background "$background" --threads "$threads" \
            --overlay "$work/out.mp4" >/dev/null
        end=$(date +%s.%N)
        echo "threads $threads round $round: $(echo "$frames / ($end - $start)" | bc -l | xargs printf '%.1f') frames/s"
    done
done
