#!/usr/bin/env bash
# The HTTP API against docs/openapi.json, as Scripts/test checks it: a debug `sift` with the
# Server trait, then Scripts/check-openapi.py with schemathesis generating up to
# SCHEMATHESIS_EXAMPLES (25) requests per operation, in the Python environment
# Scripts/setup-tests makes.
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/setup-tests
swift build --traits Server --product sift >/dev/null
python_env="${TMPDIR:-/tmp}"
python_env="${python_env%/}/sift-python/bin/python"
[[ -x "$python_env" ]] || python_env=python3
exec "$python_env" Scripts/check-openapi.py --sift "$(swift build --traits Server --show-bin-path)/sift" \
  --schemathesis "${SCHEMATHESIS_EXAMPLES:-25}"
