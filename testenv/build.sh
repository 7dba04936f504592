#!/bin/bash
# Build the mapping library, the tools, the unit tests and the benchmarks
# with the waf shipped in Debian's Samba source tree (Debian has no waf
# package).  Idempotent: waf rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
tree=$(bash testenv/samba-source.sh)
waf="$tree/buildtools/bin/waf"
if [ ! -f build/c4che/_cache.py ] || [ wscript -nt build/c4che/_cache.py ]; then
	python3 "$waf" configure >/dev/null
fi
python3 "$waf" build "$@"
