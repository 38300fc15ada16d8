#!/usr/bin/env bash
# Fault injection for the command line (issue 45: nothing lost, nothing hung). Runs the commands of `vision` under
# SIGINT/SIGTERM at random moments (seeded), with standard output on /dev/full and on a pipe that closes, with
# outputs that are folders, devices, FIFOs, sockets, symbolic links or read-only, on a full disk (a small tmpfs),
# and killed with SIGKILL mid-write, and asserts what docs/command-line.md promises:
#   - a signal ends a run within 2.5 s (1.5 s of grace, and a loaded machine), status 130, no ffmpeg child left,
#     no partial file left, an overlay video playable, worker inputs in progress ending in an `interrupted` record;
#   - a failed write to standard output is an error: EPIPE quiet (status 141), ENOSPC named (status 1);
#   - an output that is a folder, device, FIFO or socket (or, for a folder to fill, a file) is refused before any
#     work and left as it was; a link is followed; a read-only place is refused before the work;
#   - a full disk is named and exits non-zero, leaving no partial file;
#   - after SIGKILL no file under a result's name is half written, and the next run removes the stale partials;
#   - (issue 48) no output replaces an input and no two outputs share a file, for every command: each command of
#     `vision --help --json` is covered, a task command by the loop, another by its line in `commands_table` (a
#     command with outputs and no line fails the run); `--jobs 2` keeps every record made at Ctrl-C.
# Every case is deterministic: a run that ends before its signal must say so (exit 0, no "interrupted"), a pipe that
# closes is checked against the size of the output (all of it may fit the pipe's buffer), a full disk is full.
# It writes its table into docs/robustness.md (between the fault-injection markers) and exits 1 if a case failed.
#
#   bash tools/fault_injection.sh [VISION]     (default: the release build's vision; FAULT_SEED=N for other moments)
#
# Mounting a tmpfs needs root (CI runs as root); without it the full-disk and read-only cases are skipped, each
# named "skipped: mount not permitted" in the table.
set -uo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
vision="${1:-$here/.build/release/vision}"
vision="$(cd "$(dirname "$vision")" && pwd)/$(basename "$vision")"
shared="${TASKSVISION_SHARED:-$here/../shared}"
images="$shared/testdata/images"
frames="$shared/testdata/sequences/hand_asl_1"
gestures="$shared/testdata/gesture_training"
poses="$shared/testdata/pose_classification"
RANDOM=${FAULT_SEED:-45}
work="$(mktemp -d /tmp/vision-faults.XXXXXX)"
mounts=()
cleanup() {
  for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
cd "$here"
[ -x "$vision" ] || { echo "fault_injection: no vision at $vision (swift build -c release --product vision)"; exit 1; }
command -v ffmpeg >/dev/null || { echo "fault_injection: ffmpeg is needed (tools/setup.sh installs it)"; exit 1; }

rows=()
failures=0
# record GROUP CASE EXPECTED OUTCOME: OUTCOME "ok" passes, "skipped: why" is named, anything else fails.
record() {
  rows+=("| $1 | $2 | $3 | $4 |")
  case "$4" in
    ok) echo "ok    $1: $2" ;;
    skipped*) echo "skip  $1: $2 ($4)" ;;
    *) echo "FAIL  $1: $2: $4"; failures=$((failures + 1)) ;;
  esac
}

# Inputs: a clip of 10 s (the 40 frames looped), a folder of 30 photos, a pose dataset, a gesture dataset.
ffmpeg -hide_banner -loglevel error -y -framerate 30 -i "$frames/%04d.png" -c:v libx264 -pix_fmt yuv420p \
  "$work/short.mp4"
ffmpeg -hide_banner -loglevel error -y -stream_loop 7 -i "$work/short.mp4" -c copy "$work/clip.mp4"
mkdir -p "$work/photos"
n=0
for f in "$images"/*.png; do n=$((n + 1)); [ $n -le 30 ] && ln -s "$f" "$work/photos/"; done
mkdir -p "$work/poses/standing" "$work/poses/yoga"
for f in "$images"/pose_standing_1.png "$images"/pose_walking_back_1.png; do ln -s "$f" "$work/poses/standing/"; done
for f in "$images"/pose_yoga_1.png "$images"/pose_yoga_2.png; do ln -s "$f" "$work/poses/yoga/"; done
mkdir -p "$work/gestures"
for label in none rock; do
  mkdir -p "$work/gestures/$label"
  for f in $(ls "$gestures/$label" | head -4); do ln -s "$gestures/$label/$f" "$work/gestures/$label/"; done
done
"$vision" gestures landmarks "$work/gestures" --out "$work/landmarks.csv" >/dev/null 2>&1
"$vision" gestures train --landmarks "$work/landmarks.csv" --epochs 2 --batch-size 2 --out "$work/g-eval.task" \
  >/dev/null 2>&1
# hand_detector.tflite's input, 1x192x192x3 float32 zeros, as .npy.
python3 - "$work/in.npy" <<'EOF'
import sys
header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 192, 192, 3), }"
header += " " * (63 - (10 + len(header)) % 64) + "\n"
with open(sys.argv[1], "wb") as f:
    f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + bytes(4 * 192 * 192 * 3))
EOF
model_bundle="$(dirname "$vision")/../../Models/gesture_recognizer.task"
[ -f "$model_bundle" ] || model_bundle="$here/Models/gesture_recognizer.task"

now() { date +%s%N; }
# elapsed T0: milliseconds since T0 (from now).
elapsed() { echo $(( ($(now) - $1) / 1000000 )); }
# partials DIR: this program's partial files left in DIR.
partials() { find "$1" -name '*.vision-partial-*' 2>/dev/null | wc -l; }
# ffmpeg_pids MARK: ffmpeg processes running on a path holding MARK (read from /proc: no procps needed).
ffmpeg_pids() {
  local f c
  for f in /proc/[0-9]*/cmdline; do
    { c="$(tr '\0' ' ' <"$f")"; } 2>/dev/null || continue
    case "$c" in
      */ffmpeg\ *"$1"*|ffmpeg\ *"$1"*) f="${f#/proc/}"; echo "${f%/cmdline}" ;;
    esac
  done
}
children() { ffmpeg_pids "$1" | wc -l; }
kill_children() { local p; for p in $(ffmpeg_pids "$1"); do kill -KILL "$p" 2>/dev/null; done; }

# ---- Signals at random moments -------------------------------------------------------------------------------
# signal_case NAME SIGNAL INPUT_DESCRIPTION -- ARGS...: runs vision with ARGS in a case folder ($case), sends SIGNAL
# after a random 0.3-3 s, and checks the end.
signal_case() {
  local name="$1" sig="$2"; shift 3
  case="$work/sig-$RANDOM"; mkdir -p "$case"
  local delay; delay="$(printf '%d.%d' $((RANDOM % 3)) $((3 + RANDOM % 7)))"
  local args=("${@//@CASE@/$case}")
  "$vision" "${args[@]}" >"$case/out" 2>"$case/err" <"${stdin_file:-/dev/null}" &
  local pid=$!
  sleep "$delay"
  kill -"$sig" $pid 2>/dev/null
  local t0; t0="$(now)"
  wait $pid; local status=$?
  local took; took="$(elapsed "$t0")"
  sleep 0.2
  local problems=()
  # A run that ended before the signal reached it exits 0 without the word "interrupted"; any other end is the
  # signal's and must be status 130, soon. (No race: the run's own words say which.)
  local alive=1
  if [ $status = 0 ] && ! grep -q interrupted "$case/err"; then alive=0; fi
  if [ $alive = 1 ]; then
    [ $status = 130 ] || problems+=("status $status")
    (( took < 2500 )) || problems+=("took ${took} ms")
  fi
  [ "$(children "$case")" = 0 ] || problems+=("ffmpeg left running")
  if [ "$(children "$work/clip.mp4")" != 0 ]; then
    kill_children "$work/clip.mp4"
    problems+=("decoder left running")
  fi
  [ "$(partials "$case")" = 0 ] || problems+=("partial files left")
  if [ -f "$case/o.mp4" ] && ! ffprobe -v error -show_entries format=duration "$case/o.mp4" >/dev/null 2>&1; then
    problems+=("overlay video not playable")
  fi
  if [ -n "${records:-}" ] && [ $alive = 1 ]; then
    # Every input that started has its last record, done or interrupted, counting every result record written;
    # the inputs' records come in input order (issue 48: --jobs 2 lost them all at Ctrl-C).
    python3 - "$case/out" <<'EOF' || problems+=("records lost or out of order")
import json, sys
last, results, order = {}, {}, []
for line in open(sys.argv[1]):
    r = json.loads(line)
    key = (r["input"], r.get("id"))
    if not order or order[-1] != key:
        order.append(key)
    last[key] = r
    results[key] = results.get(key, 0) + (1 if "result" in r else 0)
ok = all((r.get("done") or r.get("interrupted")) and r.get("frames") == results[k] for k, r in last.items())
sys.exit(0 if ok and len(order) == len(set(order)) else 1)
EOF
  fi
  local outcome="ok"
  [ ${#problems[@]} = 0 ] || outcome="$(IFS=,; echo "${problems[*]}")"
  record "SIG$sig at ${delay} s" "$name" "exit 130 within 2.5 s, no ffmpeg child, no partial file" "$outcome"
}

for sig in INT TERM; do
  signal_case "hands, photos" $sig - hands --json "$work/photos"
  signal_case "faces, photo folder with --overlay DIR" $sig - faces "$work/photos" --overlay @CASE@/ov
  signal_case "palms, folder of frames (video mode)" $sig - palms --json --video "$frames"
  signal_case "hands, video file with --overlay o.mp4" $sig - hands --json --video "$work/clip.mp4" \
    --overlay @CASE@/o.mp4
  signal_case "gestures, video file --live" $sig - gestures --json --video "$work/clip.mp4" --live
  signal_case "pose, video file with --masks DIR" $sig - pose --json --video "$work/clip.mp4" --masks @CASE@/m
  signal_case "hands --jobs 2 (videos)" $sig - hands --jobs 2 "$work/clip.mp4" "$work/clip.mp4" "$work/clip.mp4"
  printf '1\t%s\n2\t%s\n3\t%s\n' "$work/clip.mp4" "$work/photos" "$work/clip.mp4" >"$work/list"
  stdin_file="$work/list" records=1 signal_case "pose --stdin (videos, folder)" $sig - pose --json --stdin
  stdin_file="$work/list" records=1 signal_case "hands --stdin --jobs 2" $sig - hands --json --stdin --jobs 2
  mkfifo "$work/idle-$sig"
  ( exec 3>"$work/idle-$sig"; sleep 6 ) &
  stdin_file="$work/idle-$sig" records=1 signal_case "faces --stdin waiting for input" $sig - faces --json --stdin
  signal_case "gestures landmarks" $sig - gestures landmarks "$work/gestures" --out @CASE@/l.csv
  signal_case "gestures train" $sig - gestures train --landmarks "$work/landmarks.csv" --epochs 100000 --batch-size 2 \
    --out @CASE@/g.task
  signal_case "pose samples" $sig - pose samples "$work/poses" --out @CASE@/s.csv
done
if ls /dev/video* >/dev/null 2>&1; then
  signal_case "hands, camera" INT - hands --json --video "$(ls /dev/video* | head -1)"
else
  record "SIGINT" "hands, camera (/dev/videoN)" "as a video file" "skipped: no camera on this machine"
fi

# A second Ctrl-C ends at once (during the grace of the first).
case="$work/second"; mkdir -p "$case"
"$vision" hands --json --video "$work/clip.mp4" --overlay "$case/o.mp4" >/dev/null 2>&1 &
pid=$!; sleep 2; kill -INT $pid; kill -INT $pid; t0="$(now)"; wait $pid; status=$?; took="$(elapsed "$t0")"
outcome=ok
[ $status = 130 ] || outcome="status $status"
(( took < 1000 )) || outcome="took ${took} ms"
[ "$(partials "$case")" = 0 ] || outcome="partial files left"
record "SIGINT twice" "hands, video with --overlay o.mp4" "exit 130 at once, partial video removed" "$outcome"

# ---- Every command: no output replaces an input, no two outputs share a file (issue 48) -------------------------
# The commands come from `vision --help --json`: a task command is covered by the loop below, any other by its line
# in commands_table (how to make it write over an input); one with outputs and no line fails the run.
# same_after NAME EXPECTED PATTERN -- ARGS: the run must exit 1 at once with one line matching PATTERN, and leave
# every file of $case as it was.
same_after() {
  local group="$1" name="$2" pattern="$3"; shift 4
  local before; before="$(cd "$case" && find . -print0 | sort -z | xargs -0 -r md5sum 2>/dev/null; ls -laR)"
  local t0; t0="$(now)"
  (cd "$case" && timeout 20 "$vision" "$@" >"$work/out" 2>"$work/err"); local status=$?
  local took; took="$(elapsed "$t0")"
  local after; after="$(cd "$case" && find . -print0 | sort -z | xargs -0 -r md5sum 2>/dev/null; ls -laR)"
  local outcome=ok
  [ $status = 1 ] || outcome="status $status"
  [ "$(wc -l <"$work/err")" = 1 ] || outcome="$outcome; $(wc -l <"$work/err") lines on stderr"
  grep -q -- "$pattern" "$work/err" || outcome="$outcome; not said: $(head -c 200 "$work/err")"
  [ ! -s "$work/out" ] || outcome="$outcome; work was done"
  [ "$before" = "$after" ] || outcome="$outcome; files changed"
  (( took < 3000 )) || outcome="$outcome; refused only after ${took} ms"
  record "$group" "$name" "refused before any work, one line, every file as it was" "$outcome"
}
commands="$("$vision" --help --json | python3 -c '
import json, sys
for c in json.load(sys.stdin)["commands"]:
    outputs = ",".join(o["option"] for o in c.get("outputs", []))
    print(c["command"].replace(" ", "_"), "task" if c["task"] else "other", outputs or "-")
')"
ffmpeg -hide_banner -loglevel error -y -i "$work/short.mp4" -frames:v 3 -c:v libx264 -pix_fmt yuv420p \
  "$work/tiny.mp4"
# A non-task command's line: its words (with _), then the arguments that make its output an input of the run
# ($case holds in/a.png, in/l.csv, in/0.npy, data/none/a.png, data/rock/a.png, models/<a catalog model>).
commands_table() {
  case "$1" in
    gestures_train) echo "gestures train --landmarks in/l.csv --out ./in/../in/l.csv" ;;
    gestures_landmarks) echo "gestures landmarks data --out data/rock/a.png" ;;
    pose_samples) echo "pose samples data --out data/none/a.png" ;;
    model_run) echo "model run $here/Models/hand_landmarker.task:hand_detector.tflite --input in/0.npy --out in" ;;
    models_fetch) echo "models fetch --shared . --out models" ;;
    gestures_evaluate | model_info | models | kernels) echo "-" ;;
    *) echo "" ;;
  esac
}
while read -r words kind outputs; do
  command_words=(${words//_/ })
  case="$work/rule-$words"; mkdir -p "$case/in" "$case/data/none" "$case/data/rock" "$case/models" "$case/c1" "$case/c2"
  cp "$images/face_frontal_1.png" "$case/in/a.png"
  cp "$images/hand_victory_1.png" "$case/data/none/a.png"; cp "$images/hand_open_palm_1.png" "$case/data/rock/a.png"
  cp "$work/landmarks.csv" "$case/in/l.csv"; cp "$work/in.npy" "$case/in/0.npy"
  cp "$here/Models/canned_gesture_classifier.tflite" "$case/models/" 2>/dev/null
  cp "$work/tiny.mp4" "$case/in/clip.mp4"
  cp "$images/face_frontal_1.png" "$case/c1/a.png"; cp "$images/face_frontal_1.png" "$case/c2/a.png"
  if [ "$kind" = task ]; then
    same_after "output is an input" "${command_words[*]} --overlay . (the photo's folder)" "would replace the input" \
      -- "${command_words[@]}" in/a.png --overlay ./in/
    same_after "output is an input" "${command_words[*]} --video clip.mp4 --overlay clip.mp4" \
      "would replace the input" -- "${command_words[@]}" --video in/clip.mp4 --overlay in/../in/clip.mp4
    same_after "output is an input" "${command_words[*]} --jobs 2 --overlay in" "would replace the input" \
      -- "${command_words[@]}" --json --jobs 2 --overlay in in/a.png c1/a.png
    same_after "two outputs, one file" "${command_words[*]} c1/a.png c2/a.png --overlay o" "would both write" \
      -- "${command_words[@]}" c1/a.png c2/a.png --overlay o
    if [[ ",$outputs," == *",--masks,"* ]]; then
      same_after "output is an input" "${command_words[*]} --masks in" "would replace the input" \
        -- "${command_words[@]}" in/a.png --masks in
      same_after "two outputs, one file" "${command_words[*]} --masks d --overlay d" "would both write" \
        -- "${command_words[@]}" in/a.png --masks d --overlay ./d/
    fi
    # Ctrl-C with --jobs 2 over two videos: every record made is written, then the interrupted ones.
    printf 'a\t%s\nb\t%s\n' "$work/clip.mp4" "$work/clip.mp4" >"$work/list-$words"
    stdin_file="$work/list-$words" records=1 signal_case "${command_words[*]} --stdin --jobs 2 (two videos)" INT - \
      "${command_words[@]}" --json --stdin --jobs 2
  else
    line="$(commands_table "$words")"
    if [ "$outputs" != "-" ] && { [ -z "$line" ] || [ "$line" = "-" ]; }; then
      record "output is an input" "${command_words[*]}" "a line in commands_table" \
        "no line: add one to tools/fault_injection.sh"
    elif [ -n "$line" ] && [ "$line" != "-" ]; then
      read -r -a table_args <<<"$line"
      same_after "output is an input" "$line" "would replace the input" -- "${table_args[@]}"
    fi
  fi
done <<<"$commands"

# ---- Standard output -------------------------------------------------------------------------------------------
stdout_full() {
  local name="$1"; shift
  "$vision" "$@" >/dev/full 2>"$work/err"; local status=$?
  local outcome=ok
  [ $status != 0 ] || outcome="exit 0"
  grep -q "No space left on device" "$work/err" || outcome="$outcome; not named: $(head -c 200 "$work/err")"
  record "stdout on /dev/full" "$name" "ENOSPC named, exit non-zero" "$outcome"
}
stdout_full "hands --json photo" hands --json "$images/hand_victory_1.png"
stdout_full "faces, video" faces --video "$work/short.mp4" --max-frames 3
stdout_full "pose --stdin" pose --json --stdin <<<"$images/pose_yoga_1.png"
stdout_full "face-landmarks --json photo" face-landmarks --json "$images/face_frontal_1.png"
stdout_full "segment --jobs 2, video" segment --json --jobs 2 "$work/short.mp4"
stdout_full "kernels" kernels
stdout_full "models" models
stdout_full "model info" model info "$here/Models/hand_landmarker.task:hand_detector.tflite"
stdout_full "gestures landmarks" gestures landmarks "$work/gestures" --out "$work/full-l.csv"
stdout_full "gestures evaluate --json" gestures evaluate "$work/g-eval.task" --landmarks "$work/landmarks.csv" --json
stdout_full "pose samples" pose samples "$work/poses" --out "$work/full-s.csv"
stdout_full "--version" --version

# closing_pipe NAME ARGS: `vision ARGS | head -c 1`. An output larger than the pipe's buffer (64 KiB) cannot all be
# written before head exits: status 141. A smaller one may be written whole before head closes the pipe (exit 0
# is right then) or not (141): either is accepted, since which happens depends on the scheduler alone.
closing_pipe() {
  local name="$1"; shift
  "$vision" "$@" >"$work/whole" 2>/dev/null
  local size; size="$(stat -c %s "$work/whole")"
  local t0; t0="$(now)"
  "$vision" "$@" 2>"$work/err" | head -c 1 >/dev/null; local status=${PIPESTATUS[0]}
  local took; took="$(elapsed "$t0")"
  local outcome=ok expected="quiet, exit 141, at once"
  if (( size > 65536 )); then
    [ $status = 141 ] || outcome="status $status"
  else
    expected="quiet, exit 141 or 0 (all $size bytes fit the pipe)"
    [ $status = 141 ] || [ $status = 0 ] || outcome="status $status"
  fi
  [ ! -s "$work/err" ] || outcome="$outcome; stderr: $(head -c 200 "$work/err")"
  (( took < 5000 )) || outcome="$outcome; took ${took} ms"
  record "stdout on a closing pipe (head)" "$name" "$expected" "$outcome"
}
closing_pipe "hands --json, 30 photos" hands --json "$work/photos"
closing_pipe "faces --json, video" faces --json --video "$work/clip.mp4"
closing_pipe "hands --jobs 2, 30 photos" hands --jobs 2 "$work"/photos/*
closing_pipe "face-landmarks --json, 30 photos" face-landmarks --json "$work/photos"
closing_pipe "segment --json --jobs 2, video" segment --json --jobs 2 "$work/clip.mp4"
closing_pipe "models" models
closing_pipe "kernels" kernels

# ---- Output paths ----------------------------------------------------------------------------------------------
mkdir -p "$work/victim" && echo keep >"$work/victim/keep"
mkfifo "$work/fifo"
python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$work/socket"
echo old >"$work/target.csv"; ln -s "$work/target.csv" "$work/link.csv"
ln -s "$work/victim" "$work/link-to-folder"
echo file >"$work/a-file"
# refused NAME KIND PATH -- ARGS: the command must fail fast, name PATH, and leave PATH as it was.
refused() {
  local name="$1" kind="$2" path="$3"; shift 4
  local before; before="$(stat -c '%F %s' "$path" 2>/dev/null; ls "$path" 2>/dev/null | head -3)"
  local t0; t0="$(now)"
  timeout 20 "$vision" "$@" >/dev/null 2>"$work/err"; local status=$?
  local took; took="$(elapsed "$t0")"
  local after; after="$(stat -c '%F %s' "$path" 2>/dev/null; ls "$path" 2>/dev/null | head -3)"
  local outcome=ok
  [ $status = 1 ] || outcome="status $status"
  grep -q -- "$path" "$work/err" || outcome="$outcome; path not named: $(head -c 200 "$work/err")"
  [ "$before" = "$after" ] || outcome="$outcome; $path changed"
  (( took < 3000 )) || outcome="$outcome; refused only after ${took} ms"
  record "output is $kind" "$name" "refused before any work, left as it was" "$outcome"
}
for target in "folder:$work/victim" "device:/dev/null" "FIFO:$work/fifo" "socket:$work/socket" \
              "link to a folder:$work/link-to-folder"; do
  kind="${target%%:*}"; path="${target#*:}"
  refused "pose samples --out" "$kind" "$path" -- pose samples "$work/poses" --out "$path"
  refused "gestures landmarks --out" "$kind" "$path" -- gestures landmarks "$work/gestures" --out "$path"
  refused "gestures train --out" "$kind" "$path" -- gestures train --landmarks "$work/landmarks.csv" --out "$path"
done
refused "pose samples --out (the dataset itself)" "folder" "$work/poses" -- \
  pose samples "$work/poses" --out "$work/poses"
mkdir -p "$work/victim.mp4" && echo keep >"$work/victim.mp4/keep"
refused "hands --overlay FILE.mp4" "folder" "$work/victim.mp4" -- \
  hands --video "$work/short.mp4" --overlay "$work/victim.mp4"
refused "faces --overlay DIR" "device (folder to fill)" "/dev/null" -- \
  faces "$images/face_frontal_1.png" --overlay /dev/null
refused "faces --overlay DIR" "a file (folder to fill)" "$work/a-file" -- \
  faces "$images/face_frontal_1.png" --overlay "$work/a-file"
refused "pose --masks DIR" "a file (folder to fill)" "$work/a-file" -- \
  pose "$images/pose_yoga_1.png" --masks "$work/a-file"
refused "model run --out DIR" "a file (folder to fill)" "$work/a-file" -- \
  model run "$here/Models/hand_landmarker.task:hand_detector.tflite" --out "$work/a-file"
refused "models fetch --out DIR" "a file (folder to fill)" "$work/a-file" -- models fetch --out "$work/a-file"
# Two inputs of one name into one overlay folder: refused before any work.
mkdir -p "$work/c1" "$work/c2"
ln -sf "$images/hand_victory_1.png" "$work/c1/a.png"
ln -sf "$images/hand_victory_1.png" "$work/c2/a.png"
refused "hands --overlay DIR, c1/a.png and c2/a.png" "shared by two inputs" "$work/c2/a.png" -- \
  hands "$work/c1/a.png" "$work/c2/a.png" --overlay "$work/ov-names"

# A link is followed, as the shell's > follows it: the link stays, its target gets the output.
"$vision" pose samples "$work/poses" --out "$work/link.csv" >/dev/null 2>&1; status=$?
outcome=ok
[ $status = 0 ] || outcome="status $status"
[ -L "$work/link.csv" ] || outcome="$outcome; the link was replaced"
grep -q standing "$work/target.csv" || outcome="$outcome; the target was not written"
record "output is a link to a file" "pose samples --out" "the link followed, its target replaced" "$outcome"

# Read-only places: a tmpfs mounted read-only.
ro="$work/ro"; mkdir -p "$ro"
if mount -t tmpfs -o size=64k,ro tmpfs "$ro" 2>/dev/null; then
  mounts+=("$ro")
  refused "pose samples --out" "in a read-only folder" "$ro/s.csv" -- pose samples "$work/poses" --out "$ro/s.csv"
  refused "gestures train --out" "in a read-only folder" "$ro/g.task" -- \
    gestures train --landmarks "$work/landmarks.csv" --out "$ro/g.task"
  refused "hands --overlay DIR" "in a read-only folder" "$ro/ov" -- \
    hands "$images/hand_victory_1.png" --overlay "$ro/ov"
  refused "hands --overlay FILE.mp4" "in a read-only folder" "$ro/o.mp4" -- \
    hands --video "$work/short.mp4" --overlay "$ro/o.mp4"
  refused "model run --out DIR" "in a read-only folder" "$ro/out" -- \
    model run "$here/Models/hand_landmarker.task:hand_detector.tflite" --out "$ro/out"
else
  record "output is read-only" "every writer" "refused before the work" "skipped: mount not permitted"
fi

# ---- A full disk -------------------------------------------------------------------------------------------------
full="$work/full"; mkdir -p "$full"
if mount -t tmpfs -o size=1m tmpfs "$full" 2>/dev/null; then
  mounts+=("$full")
  full_disk() {
    local name="$1"; shift
    rm -rf "${full:?}"/* "$full"/.[!.]* 2>/dev/null
    # Full to the last byte: compressed overlays and masks are small, so a disk that is merely nearly full may
    # hold them (the filler's own ENOSPC is expected).
    head -c 2m /dev/zero >"$full/filler" 2>/dev/null
    "$vision" "$@" >/dev/null 2>"$work/err"; local status=$?
    local outcome=ok
    [ $status != 0 ] || outcome="exit 0"
    grep -q "No space left on device" "$work/err" || outcome="$outcome; not named: $(head -c 200 "$work/err")"
    [ "$(partials "$full")" = 0 ] || outcome="$outcome; partial files left"
    record "full disk (1 MB tmpfs)" "$name" "ENOSPC named, exit non-zero, no partial file" "$outcome"
  }
  full_disk "hands --overlay DIR" hands "$work/photos" --overlay "$full/ov"
  full_disk "pose --masks DIR" pose "$images/pose_yoga_1.png" "$images/pose_yoga_2.png" --masks "$full/m"
  full_disk "segment --masks DIR --overlay o.png" segment "$images/pose_yoga_1.png" --masks "$full/m" \
    --overlay "$full/o.png"
  full_disk "face-landmarks --overlay o.mp4" face-landmarks --video "$work/clip.mp4" --overlay "$full/o.mp4"
  full_disk "hands --overlay o.mp4" hands --video "$work/clip.mp4" --overlay "$full/o.mp4"
  full_disk "gestures train --out" gestures train --landmarks "$work/landmarks.csv" --epochs 2 --batch-size 2 \
    --out "$full/g.task"
  full_disk "model run --out" model run "$here/Models/hand_landmarker.task:hand_detector.tflite" --out "$full/out" \
    --input "$work/in.npy"
else
  record "full disk" "every writer" "ENOSPC named, exit non-zero" "skipped: mount not permitted"
fi

# ---- SIGKILL mid-write, then a run into the same place ----------------------------------------------------------
killed() {
  local name="$1" dir="$2"; shift 2
  mkdir -p "$dir"
  "$vision" "$@" >/dev/null 2>&1 &
  local pid=$!
  sleep "$(printf '%d.%d' $((1 + RANDOM % 3)) $((RANDOM % 10)))"
  kill -KILL $pid 2>/dev/null; wait $pid 2>/dev/null
  kill_children "$dir"; sleep 0.2
  local outcome=ok
  # Every file under a result's name is whole: PNGs decode, videos play.
  for f in "$dir"/*.png "$dir"/*.mp4; do
    [ -e "$f" ] || continue
    ffprobe -v error "$f" >/dev/null 2>&1 || outcome="half-written $f"
  done
  local left; left="$(partials "$dir")"
  "$vision" "$@" >/dev/null 2>&1; local status=$?
  [ $status = 0 ] || outcome="$outcome; the next run failed ($status)"
  [ "$(partials "$dir")" = 0 ] || outcome="$outcome; stale partial files not removed"
  record "SIGKILL mid-write, run again" "$name" "no half file under a result's name; stale partials removed" \
    "$outcome"
  echo "      ($left partial files after the kill)"
}
killed "hands --overlay DIR" "$work/k1" hands "$work/photos" --overlay "$work/k1"
killed "faces --overlay o.mp4" "$work/k2" faces --video "$work/short.mp4" --overlay "$work/k2/o.mp4"
killed "pose --masks DIR" "$work/k3" pose "$work/photos" --masks "$work/k3"

# ---- The table ---------------------------------------------------------------------------------------------------
table="$work/table.md"
{
  echo "<!-- fault-injection table: written by tools/fault_injection.sh -->"
  echo "| fault | command | expected | outcome |"
  echo "|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo "<!-- end of fault-injection table -->"
} >"$table"
doc="$here/docs/robustness.md"
python3 - "$doc" "$table" <<'EOF'
import re, sys
doc, table = sys.argv[1], open(sys.argv[2]).read()
text = open(doc).read()
pattern = re.compile(r"<!-- fault-injection table: .*?<!-- end of fault-injection table -->\n", re.S)
text = pattern.sub(lambda m: table, text) if pattern.search(text) else text.rstrip("\n") + "\n\n" + table
open(doc, "w").write(text)
EOF
echo "fault_injection: ${#rows[@]} cases, $failures failed; table in docs/robustness.md"
[ $failures = 0 ]
