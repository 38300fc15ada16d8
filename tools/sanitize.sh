#!/usr/bin/env bash
# Runs the test suite under AddressSanitizer and ThreadSanitizer (debug builds, separate scratch paths).
# Usage: tools/sanitize.sh [address|thread|both] [swift test --filter pattern]
# LeakSanitizer is off for the address run: XCTest on Linux keeps every test case instance alive and
# leaks a weak reference in its expectation waiting, which LeakSanitizer reports as leaks rooted in XCTest.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
which="${1:-both}"
filter=()
[ -n "${2:-}" ] && filter=(--filter "$2")
cd "$here"
if [ "$which" = address ] || [ "$which" = both ]; then
  ASAN_OPTIONS=detect_leaks=0 swift test --sanitize=address --scratch-path .build-asan "${filter[@]}"
fi
if [ "$which" = thread ] || [ "$which" = both ]; then
  swift test --sanitize=thread --scratch-path .build-tsan "${filter[@]}"
fi
