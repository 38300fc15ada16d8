#!/usr/bin/env bash
# Type-checks the package's Apple-only code, and the guides' Apple-only samples, on a machine without Apple's SDKs.
# Compiles the stand-ins in Tests/AppleStandIns (modules named UIKit, CoreGraphics, CoreVideo, CoreMedia, AVFoundation
# and Accelerate, declaring only the names the package and the samples use, with the signatures of Apple's SDKs) into
# .build/apple-standins/modules, then builds the GuideCallTests target, and with it TasksVision and TasksVisionEngine,
# with those modules on the import path: there canImport(UIKit) and the others hold, every framework-fenced line of
# the package is compiled, and so are Tests/GuideCallTests/Guides and AppleGuideTests.swift. Nothing is linked or
# run (the stand-ins have no code). docs/packaging.md says what this proves and what it cannot.
#
# `tools/apple_standins.sh macos` leaves UIKit and AVFoundation out, as a Mac has them: the code fenced by CoreVideo,
# CoreMedia and CoreGraphics alone, with our own ImageOrientation (.ci/run builds the iOS shape only).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
shape="${1:-ios}"
case "$shape" in
  ios) frameworks="CoreGraphics CoreVideo CoreMedia Accelerate UIKit AVFoundation" ;;
  macos) frameworks="CoreGraphics CoreVideo CoreMedia Accelerate" ;;
  *) echo "apple_standins: the shape is ios (the default) or macos, not '$shape'" >&2; exit 1 ;;
esac
out="$here/.build/apple-standins/$shape"
modules="$out/modules"
standins="$here/Tests/AppleStandIns"
# A changed stand-in rebuilds them all, and the package build that imported the old ones.
stamp="$(cat "$0" "$standins"/*.swift | sha256sum | cut -c1-16)"
if [ "$(cat "$out/stamp" 2>/dev/null || true)" != "$stamp" ]; then
  rm -rf "$modules" "$out/build"
  mkdir -p "$modules"
  # In dependency order: CoreMedia re-exports CoreVideo, UIKit CoreGraphics, AVFoundation CoreMedia.
  for module in $frameworks; do
    swiftc -emit-module -parse-as-library -module-name "$module" -I "$modules" \
      -emit-module-path "$modules/$module.swiftmodule" "$standins/$module.swift"
  done
  echo "$stamp" > "$out/stamp"
fi
flags=(-Xswiftc -I -Xswiftc "$modules")
# The iOS shape must see every stand-in (StandInCheck.swift fails the build otherwise).
[ "$shape" = ios ] && flags+=(-Xswiftc -DTASKSVISION_APPLE_STANDINS)
swift build --package-path "$here" --scratch-path "$out/build" --target GuideCallTests "${flags[@]}"
echo "apple_standins: the package's Apple-only code and the guides' Apple-only samples type-check against the" \
  "stand-ins ($shape: $frameworks)"
