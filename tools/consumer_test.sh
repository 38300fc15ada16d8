#!/usr/bin/env bash
# Builds and runs Examples/Consumer the way a user's package gets TasksVision: resolved by URL with a version
# requirement. The working tree (tracked and new files, as they are now) is copied into a temporary Git repository
# tagged 0.1.0, the consumer's `.package(url:from:)` is pointed at it as a file:// URL, and the consumer is built
# and run on Examples/sample.jpg: a face, a hand and a pose. SwiftPM treats such a dependency as remote: it checks
# it out by tag, and refuses products whose targets carry unsafe flags unless the dependency's manifest is
# tools-version 6.2 or later. It also checks that README's "add it to your package" lines are the consumer's.
#
#   tools/consumer_test.sh        (CONSUMER_CONFIGURATION=debug|release, default release)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
config="${CONSUMER_CONFIGURATION:-release}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
start=$SECONDS
placeholder="https://github.com/OWNER/TasksVision.git"

# README's snippet must be the consumer's manifest lines (the URL aside, which the user replaces).
manifest="$here/Examples/Consumer/Package.swift"
snippet=$(sed -n '/^```swift package-snippet$/,/^```$/p' "$here/README.md" | grep -E '\.package\(|\.product\(' || true)
if [ -z "$snippet" ]; then echo "consumer: README.md has no \`\`\`swift package-snippet block" >&2; exit 1; fi
while IFS= read -r line; do
  trimmed="$(echo "$line" | sed 's/^ *//')"
  if ! grep -qF -- "$trimmed" "$manifest"; then
    echo "consumer: README.md's snippet line is not in Examples/Consumer/Package.swift: $trimmed" >&2; exit 1
  fi
done <<< "$snippet"

repo="$work/TasksVision"
mkdir -p "$repo"
(cd "$here" && git ls-files -z -co --exclude-standard | grep -zv '^Examples/Consumer/' \
  | tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -xf - -C "$repo"
git -C "$repo" init -q
git -C "$repo" add -A
git -C "$repo" -c user.name=consumer-test -c user.email=consumer-test@localhost commit -qm "TasksVision 0.1.0"
git -C "$repo" tag 0.1.0

consumer="$work/Consumer"
mkdir -p "$consumer"
(cd "$here/Examples/Consumer" && tar --exclude=.build --exclude=Package.resolved -cf - .) | tar -xf - -C "$consumer"
grep -qF "$placeholder" "$consumer/Package.swift" \
  || { echo "consumer: $placeholder is not in Examples/Consumer/Package.swift" >&2; exit 1; }
sed -i "s|$placeholder|file://$repo|" "$consumer/Package.swift"

echo "consumer: building Examples/Consumer ($config) against file://$repo from: 0.1.0"
(cd "$consumer" && swift build -c "$config" --product Consumer 2>&1 | grep -vE '^\[[0-9]+/[0-9]+\] ' || true)
binary="$consumer/.build/$config/Consumer"
[ -x "$binary" ] || { echo "consumer: the build failed" >&2; exit 1; }
grep -q '"version" : "0.1.0"' "$consumer/Package.resolved" \
  || { echo "consumer: Package.resolved does not pin TasksVision 0.1.0" >&2; exit 1; }
TASKSVISION_MODELS="$here/Models" "$binary" "$here/Examples/sample.jpg"
echo "consumer: passed in $((SECONDS - start)) s"
