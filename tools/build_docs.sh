#!/usr/bin/env bash
# Builds the DocC archive of the TasksVision library's public API, offline, with the toolchain's own docc:
# symbol graphs from a debug build in its own scratch folder (so the release build is untouched), then
# `docc convert` of Sources/TasksVision/TasksVision.docc. Fails on any DocC warning.
#
#   tools/build_docs.sh [OUT]      (default .build-docs/TasksVision.doccarchive)
#
# Browse the archive with any static web server: `python3 -m http.server -d OUT`, then /documentation/tasksvision.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
cd "$here"
scratch="$here/.build-docs"
out="${1:-$scratch/TasksVision.doccarchive}"
graphs="$scratch/symbol-graphs"
docc="$(command -v docc || true)"
[ -n "$docc" ] || docc="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
[ -x "$docc" ] || { echo "build_docs: no docc beside swift" >&2; exit 1; }
rm -rf "$graphs"
mkdir -p "$graphs"
swift build --scratch-path "$scratch" --target TasksVision \
  -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
  -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public 2>&1 | grep -v '^\[' || true
# The library's own graphs (TasksVision.symbols.json and its extensions of other modules, TasksVision@*.json).
mkdir -p "$graphs/TasksVision"
find "$graphs" -maxdepth 1 -name 'TasksVision.symbols.json' -o -maxdepth 1 -name 'TasksVision@*.symbols.json' \
  | xargs -r mv -t "$graphs/TasksVision"
if [ ! -s "$graphs/TasksVision/TasksVision.symbols.json" ]; then
  echo "build_docs: no symbol graph for TasksVision" >&2
  exit 1
fi
log="$scratch/docc.log"
rm -rf "$out"
"$docc" convert Sources/TasksVision/TasksVision.docc \
  --additional-symbol-graph-dir "$graphs/TasksVision" \
  --fallback-display-name TasksVision --fallback-bundle-identifier org.tasksvision.TasksVision \
  --output-path "$out" 2>&1 | tee "$log"
if grep -q "warning:" "$log"; then
  echo "build_docs: DocC printed $(grep -c 'warning:' "$log") warning(s) (above)" >&2
  exit 1
fi
echo "build_docs: $out"
