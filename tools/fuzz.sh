#!/usr/bin/env bash
# Builds the libFuzzer targets in tools/fuzz (with AddressSanitizer) and runs each for a given time.
#
#   tools/fuzz.sh [SECONDS] [TARGET...]      default: 600 seconds each, every target
#
# Targets: FuzzTFLiteModel FuzzModelMetadata FuzzTaskBundle FuzzImageFile FuzzPoseSampleFile FuzzGeometryMetadata
# FuzzOutputPath.
# Seeds come from Models/ (run tools/setup.sh first) and Tests/Fixtures/imageio; the corpus
# grows in .build-fuzz/corpus/<target>. A crash, hang (10 s) or allocation beyond 2 GB stops
# the run and leaves the input in .build-fuzz/findings/<target>; commit it (when small) under
# Tests/Fixtures/fuzz/<target>/, where FuzzRegressionTests replays it.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
seconds="${1:-600}"
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] &&
  targets=(FuzzTFLiteModel FuzzModelMetadata FuzzTaskBundle FuzzImageFile FuzzPoseSampleFile FuzzGeometryMetadata
           FuzzOutputPath)
out="$here/.build-fuzz"
cd "$here"

# Each target instruments the modules it tests (coverage and ASan), compiled against the release build's modules
# (swift build -c release -Xswiftc -enable-testing --product vision), and links the rest of the package from that
# build: the kernel targets need their own -target-cpu flags, which the release build already applied.
# -enable-testing: a target may reach internal readers (@testable import), as FuzzGeometryMetadata does.
flags=(-O -sanitize=fuzzer,address -parse-as-library -enable-testing -I Sources/COpenBLAS
       -Xcc -I/usr/include/x86_64-linux-gnu/openblas-pthread)
libraries=(TasksVisionFormat TasksVisionKernels TasksVisionKernelsAVX2 TasksVisionKernelsAVX512 TasksVisionKernelsNEON
           TasksVisionKernelsPortable TasksVisionVectorFMA CProcessorInfo CVectorEstimates TasksVisionEngine TasksVision
           TasksVisionImageIO TasksVisionPoseClassification TasksVisionTraining vision)
instrumented_modules() {
  case "$1" in
    FuzzTFLiteModel) echo TasksVisionFormat TasksVisionEngine ;;
    FuzzModelMetadata | FuzzTaskBundle) echo TasksVisionFormat ;;
    FuzzImageFile) echo TasksVisionImageIO ;;
    FuzzPoseSampleFile) echo TasksVisionPoseClassification ;;
    FuzzGeometryMetadata) echo TasksVision ;;
    FuzzOutputPath) echo vision ;;
  esac
}
build_target() {
  local target="$1" dir="$out/$1.obj"
  local modules
  read -r -a modules <<<"$(instrumented_modules "$target")"
  [ -f .build/release/Modules/TasksVisionPoseClassification.swiftmodule ] ||
    swift build -c release -Xswiftc -enable-testing --product vision
  local c=(-I "$dir" -I .build/release/Modules
           -Xcc -fmodule-map-file=.build/release/CProcessorInfo.build/module.modulemap
           -Xcc -fmodule-map-file=.build/release/CVectorEstimates.build/module.modulemap)
  mkdir -p "$dir"
  local objects=()
  for m in "${modules[@]}"; do
    if [ ! -f "$dir/$m.o" ] || [ -n "$(find "Sources/$m" -newer "$dir/$m.o" -name '*.swift' | head -1)" ]; then
      echo "compiling $m for $target"
      swiftc "${flags[@]}" "${c[@]}" -wmo -module-name "$m" -emit-module -emit-module-path "$dir/$m.swiftmodule" \
        -c $(find "Sources/$m" -name "*.swift" | sort) -o "$dir/$m.o" 2> >(grep -v 'warning: Cannot export' >&2)
    fi
    objects+=("$dir/$m.o")
  done
  for lib in "${libraries[@]}"; do
    [[ " ${modules[*]} " == *" $lib "* ]] && continue
    while IFS= read -r o; do objects+=("$o"); done < <(find ".build/release/$lib.build" -name '*.o' | sort)
  done
  echo "linking $target"
  swiftc "${flags[@]}" "${c[@]}" -module-name "$target" "tools/fuzz/$target.swift" "${objects[@]}" -lopenblas \
    -o "$out/$target" 2> >(grep -v 'warning: Cannot export' >&2)
}

# Seed corpora: small real files and tails of big ones (libFuzzer mutates small inputs faster).
seed() {
  local target="$1"; local dir="$out/seeds/$target"
  rm -rf "$dir"; mkdir -p "$dir"
  case "$target" in
    FuzzTFLiteModel)
      for f in canned_gesture_classifier custom_gesture_classifier_modelmaker_testdata face_detection_short_range; do
        [ -f "Models/$f.tflite" ] && cp "Models/$f.tflite" "$dir/"
      done ;;
    FuzzModelMetadata)
      python3 - "$dir" <<'PY'
import sys, zipfile, io, os
sys.path.insert(0, "tools")
dst = sys.argv[1]
for name in ["canned_gesture_classifier", "custom_gesture_classifier_modelmaker_testdata", "hand_landmark_lite",
             "palm_detection_lite"]:
    p = f"Models/{name}.tflite"
    if not os.path.exists(p): continue
    data = open(p, "rb").read()
    # The appended zip of associated files, when there is one, and the metadata buffer.
    i = data.find(b"PK\x03\x04")
    if i > 0: open(f"{dst}/{name}.zip", "wb").write(data[i:])
    j = data.find(b"M001")
    if j >= 4: open(f"{dst}/{name}.metadata", "wb").write(data[j - 4:j - 4 + 4096])
PY
      ;;
    FuzzTaskBundle)
      python3 - "$dir" <<'PY'
import sys, zipfile, os
dst = sys.argv[1]
small = [f for f in ["Models/canned_gesture_classifier.tflite",
                     "Models/custom_gesture_classifier_modelmaker_testdata.tflite"] if os.path.exists(f)]
def bundle(path, members):
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, data in members: z.writestr(name, data)
inner = os.path.join(dst, "inner.task")
bundle(inner, [("canned_gesture_classifier.tflite", open(small[0], "rb").read())] if small else [("a.tflite", b"TFL3")])
bundle(os.path.join(dst, "outer.task"), [("hand_gesture_recognizer.task", open(inner, "rb").read()),
                                         ("hand_landmarker.task", open(inner, "rb").read())])
PY
      ;;
    FuzzImageFile)
      cp Tests/Fixtures/imageio/*.jpg "$dir/"
      python3 - "$dir" <<'PY'
import sys, zlib, struct
dst = sys.argv[1]
def png(w, h, color, depth, interlace, rows):
    def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, interlace)) + \
        chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open(f"{dst}/rgb.png", "wb").write(png(4, 3, 2, 8, 0, b"".join(b"\x01" + bytes(range(y, y + 12)) for y in range(3))))
open(f"{dst}/gray_adam7.png", "wb").write(png(9, 9, 0, 8, 1, bytes(200)))
open(f"{dst}/rgba16.png", "wb").write(png(2, 2, 6, 16, 0, b"".join(b"\x00" + bytes(16) for _ in range(2))))
PY
      ;;
    FuzzPoseSampleFile)
      # The quickstart's first rows, alone and with CRLF endings, a short row and a bad number.
      csv="${TASKSVISION_SHARED:-../shared}/testdata/pose_classification/fitness_pose_samples.csv"
      if [ -f "$csv" ]; then
        head -c 8000 "$csv" > "$dir/rows.csv"
        head -n 1 "$csv" | sed 's/$/\r/' > "$dir/crlf.csv"
        head -n 1 "$csv" | cut -d, -f1-50 > "$dir/short.csv"
        head -n 1 "$csv" | sed 's/,[^,]*$/,1e5f/' > "$dir/suffix.csv"
      fi
      printf 'a,b,0x1.8p1,NaN,-Infinity\n' > "$dir/specials.csv"
      ;;
    FuzzOutputPath)
      # Spellings of issue 48's table: short, relative, up, root, empty-ish, links, bytes that are not UTF-8.
      local i=0
      for p in m m/ ./o a/b .. . / // folder/sub/x file/x dangling dangling/x loop a/../file \
               "$(printf 'caf\351')" "$(printf '\377/x')"; do
        printf '%s' "$p" >"$dir/seed$i"; i=$((i + 1))
      done
      ;;
    FuzzGeometryMetadata)
      # The bundle's metadata, its first kilobytes and a tail (the Procrustes weights).
      python3 - "$dir" <<'PY'
import sys, zipfile, os
dst = sys.argv[1]
if os.path.exists("Models/face_landmarker.task"):
    data = zipfile.ZipFile("Models/face_landmarker.task").read("geometry_pipeline_metadata_landmarks.binarypb")
    open(f"{dst}/metadata.binarypb", "wb").write(data)
    open(f"{dst}/head.binarypb", "wb").write(data[:2048])
    open(f"{dst}/tail.binarypb", "wb").write(data[-2400:])
PY
      ;;
  esac
}

for target in "${targets[@]}"; do
  [ -f "tools/fuzz/$target.swift" ] || { echo "no target tools/fuzz/$target.swift" >&2; exit 1; }
  build_target "$target"
  seed "$target"
  mkdir -p "$out/corpus/$target" "$out/findings/$target"
  echo "fuzzing $target for $seconds s"
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$out/$target" "$out/corpus/$target" "$out/seeds/$target" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -malloc_limit_mb=2048 -max_len=65536 \
    -artifact_prefix="$out/findings/$target/" -print_final_stats=1 2>&1 | tee "$out/$target.log" |
    grep -E 'DONE|stat::|ERROR|SUMMARY|Test unit written' || true
done
