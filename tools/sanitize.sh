#!/usr/bin/env bash
# Runs the whole test suite under AddressSanitizer and ThreadSanitizer.
# Usage: tools/sanitize.sh [address|thread|both] [swift test --filter pattern]
#
# Release builds with -enable-testing (as CI tests): the parity suites run whole models on
# real photos and take hours in an instrumented debug build. Each sanitizer has its own
# scratch path (.build-asan, .build-tsan).
# LeakSanitizer is off for the address run: XCTest on Linux keeps every test case instance alive and
# leaks a weak reference in its expectation waiting, which LeakSanitizer reports as leaks rooted in XCTest.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
which="${1:-both}"
filter=()
[ -n "${2:-}" ] && filter=(--filter "$2")
cd "$here"
common=(-c release -Xswiftc -enable-testing)
if [ "$which" = address ] || [ "$which" = both ]; then
  ASAN_OPTIONS=detect_leaks=0 swift test "${common[@]}" --sanitize=address --scratch-path .build-asan "${filter[@]}"
fi
if [ "$which" = thread ] || [ "$which" = both ]; then
  TSAN_OPTIONS=halt_on_error=1 swift test "${common[@]}" --sanitize=thread --scratch-path .build-tsan "${filter[@]}"
fi
