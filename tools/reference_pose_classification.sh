#!/usr/bin/env bash
# Reference outputs of ML Kit's pose classification, from its unmodified Java classes.
#
#   tools/reference_pose_classification.sh JAVA_PACKAGE_DIR [VISION_BINARY]
#
# JAVA_PACKAGE_DIR is googlesamples/mlkit's
# android/vision-quickstart/app/src/main/java/com/google/mlkit/vision/demo/java/posedetector/classification
# (not part of this repository). The classes are compiled with OpenJDK 17 and Guava
# (Debian: openjdk-17-jdk-headless libguava-java) against the stubs of the Android and ML Kit types in
# tools/pose_classification_reference/stubs, and the driver there prints the cases into
# Tests/Fixtures/pose_classification/. With VISION_BINARY (a built `vision`), the real-frame case is
# made too: `vision pose --video ../shared/testdata/sequences/pose_dance_1 --json` (and with --fps 8), its
# landmarks and timestamps fed to the Java processor.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
package="${1:?usage: $0 JAVA_PACKAGE_DIR [VISION_BINARY]}"
vision="${2:-}"
testdata="${TESTDATA:-$root/../shared/testdata}"
samples="$testdata/pose_classification/fitness_pose_samples.csv"
guava="${GUAVA_JAR:-/usr/share/java/guava.jar}"
out="$root/Tests/Fixtures/pose_classification"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

for f in ClassificationResult EMASmoothing PoseClassifier PoseClassifierProcessor PoseEmbedding PoseSample \
         RepetitionCounter Utils; do
    [ -f "$package/$f.java" ] || { echo "$package/$f.java: missing" >&2; exit 1; }
done
[ -f "$guava" ] || { echo "$guava: missing (apt-get install libguava-java, or set GUAVA_JAR)" >&2; exit 1; }

mkdir -p "$work/classes" "$work/assets/pose" "$out"
find "$here/pose_classification_reference" "$package" -name '*.java' > "$work/sources"
javac -nowarn -encoding UTF-8 -cp "$guava" -d "$work/classes" @"$work/sources"
cp "$samples" "$work/assets/pose/fitness_pose_samples.csv"

frames=()
if [ -n "$vision" ]; then
    # At the folder's default 33 ms a frame, and at 8 frames a second (125 ms apart: the smoothing restarts).
    for fps in default 8; do
        name=real_frames; args=()
        [ "$fps" = default ] || { name=real_frames_${fps}fps; args=(--fps "$fps"); }
        "$vision" pose --video "$testdata/sequences/pose_dance_1" "${args[@]}" --json > "$work/$name.jsonl"
        python3 - "$work/$name.jsonl" > "$work/$name.txt" <<'PY'
import json, sys
# The landmarks exactly as printed (the decimals of the float32 values), for Java's Float.parseFloat.
for line in open(sys.argv[1]):
    d = json.loads(line, parse_float=str)
    poses = d["result"]["poses"]
    if poses:
        values = [v for lm in poses[0]["landmarks"] for v in (lm["position"]["x"], lm["position"]["y"],
                                                               lm["position"]["z"])]
        print(d["timestampMs"], ",".join(str(v) for v in values))
    else:
        print(d["timestampMs"], "-")
PY
        frames+=("$name=$work/$name.txt")
    done
fi
java -cp "$work/classes:$guava" reference.PoseClassificationReference "$samples" "$work/assets" "$out" "${frames[@]}"
ls -l "$out"
