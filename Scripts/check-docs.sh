#!/usr/bin/env bash
# Builds the Sift DocC catalog with warnings as errors: every link resolves, every documented
# parameter exists. Output goes to .build/docs (open .build/docs/Sift.doccarchive with Xcode, or
# serve it as a static site).
set -euo pipefail
cd "$(dirname "$0")/.."
graphs=.build/docs/symbol-graphs
rm -rf "$graphs" && mkdir -p "$graphs"
swift build --target Sift >/dev/null
bin=$(swift build --show-bin-path)
triple=$(swift -print-target-info | python3 -c 'import json,sys; print(json.load(sys.stdin)["target"]["triple"])')
swift-symbolgraph-extract -module-name Sift -target "$triple" -I "$bin/Modules" \
  -minimum-access-level public -output-dir "$graphs"
docc convert Sources/Sift/Sift.docc \
  --additional-symbol-graph-dir "$graphs" \
  --output-path .build/docs/Sift.doccarchive \
  --fallback-display-name Sift --fallback-bundle-identifier org.sift.Sift \
  --warnings-as-errors
echo "docs: .build/docs/Sift.doccarchive"
