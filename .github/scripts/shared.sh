#!/usr/bin/env bash
# Puts the test data beside the checkout, as ../shared (models/ and testdata/, which the tests read and the
# repository does not carry): a .tar.gz at the URL in the repository variable TASKSVISION_SHARED_URL.
set -euo pipefail
if [ -z "${SHARED_URL:-}" ]; then
  echo "::error::set the repository variable TASKSVISION_SHARED_URL to a .tar.gz of shared/ (models/, testdata/)"
  exit 1
fi
mkdir -p ../shared
curl -fsSL --retry 3 "$SHARED_URL" | tar -xz -C ../shared
ls ../shared
