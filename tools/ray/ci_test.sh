#!/usr/bin/env bash
# The Ray tests for CI: installs ray[data] into a virtual environment (reused when it already imports),
# builds `vision`, and runs tools/ray/test_tasksvision_ray.py on a local Ray cluster: a job equal to the
# sequential run, a killed vision child retried, a stopped job resumed.
#
#   bash tools/ray/ci_test.sh        (TASKSVISION_RAY_VENV: the environment, default .build/ray-venv)
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
cd "$here"
venv="${TASKSVISION_RAY_VENV:-$here/.build/ray-venv}"
start=$SECONDS
if ! "$venv/bin/python" -c "import ray.data, ray.data.checkpoint" >/dev/null 2>&1; then
  if ! python3 -m venv "$venv" >/dev/null 2>&1; then
    # Debian's python3 makes environments only with python3-venv.
    as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv "$venv"
  fi
  "$venv/bin/python" -m pip install -q --upgrade pip
  # Ray Data's checkpoint (CheckpointConfig with an id column) is in 2.60.
  "$venv/bin/python" -m pip install -q "ray[data]>=2.60,<3"
fi
echo "ray-ci: ray $("$venv/bin/python" -c 'import ray; print(ray.__version__)') ready in $((SECONDS - start)) s"
swift build -c release -Xswiftc -enable-testing --product vision
vision="$(swift build -c release -Xswiftc -enable-testing --show-bin-path)/vision"
# The local cluster keeps to the loopback address: on Linux Ray otherwise gives its node the machine's own network
# address, and the tests' traffic stays on this machine either way.
export RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0
RAY_DATA_DISABLE_PROGRESS_BARS=1 "$venv/bin/python" tools/ray/test_tasksvision_ray.py --vision "$vision" \
  --shared "${TASKSVISION_SHARED:-$here/../shared}"
echo "ray-ci: done in $((SECONDS - start)) s"
