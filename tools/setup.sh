#!/usr/bin/env bash
# Installs what TasksVision needs and fills Models/ (idempotent).
#
#   tools/setup.sh            install libopenblas-dev if missing, fetch and check every model, build the .task bundles
#
# Models come from: the mediapipe==0.10.14 wheel on PyPI (unpacked .tflite files),
# ../shared/models (or $TASKSVISION_SHARED/models), and, where neither has a file,
# the official MediaPipe model download URLs (outside this build environment).
# Every file is checked against Models/MANIFEST.sha256. A model none of them can give is named, one line each, with
# what needs it (and the wheel's file with the same weights the tasks use instead, if any); setup fails only when
# README's first command (`vision faces`) could not run.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
models="$here/Models"
shared="${TASKSVISION_SHARED:-$here/../shared}"
mkdir -p "$models"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

need_apt=()
dpkg -s libopenblas-dev >/dev/null 2>&1 || need_apt+=(libopenblas-dev)
command -v pkg-config >/dev/null 2>&1 || need_apt+=(pkg-config)
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
python3 -m pip --version >/dev/null 2>&1 || need_apt+=(python3-pip)
# vision --video FILE / --overlay out.mp4 run ffmpeg as a child process.
command -v ffmpeg >/dev/null 2>&1 || need_apt+=(ffmpeg)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

python3 "$here/tools/fetch_models.py" --models "$models" --shared "$shared"
