#!/usr/bin/env bash
# Installs schemathesis (pinned, in test/schemathesis/.venv) when missing and runs it against a real gateway (run.ts).
# Any failure fails the script; schemathesis prints its summary. Arguments go to `schemathesis run` (--seed 7, -n 500).
set -euo pipefail
cd "$(dirname "$0")"
version=4.32.5
if [ "$(.venv/bin/schemathesis --version 2>/dev/null)" != "schemathesis, version $version" ]; then
  python3 -m venv .venv
  .venv/bin/pip install -q --disable-pip-version-check "schemathesis==$version"
fi
cd ../..
exec node --import tsx test/schemathesis/run.ts "$@"
