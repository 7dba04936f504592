#!/bin/bash
# Fetch Debian's patched Samba source tree (for waf and for building the VFS module)
# into a cache outside the repository, keyed by the packaged version. Idempotent.
# Prints the path of the tree on stdout.
set -euo pipefail
CACHE=${RICHACL_CACHE:-/var/cache/richacl}
ver=$(dpkg-query -W -f='${Version}' samba)
key=$(echo "$ver" | tr ':+~' '___')
dir="$CACHE/samba-src-$key"
if [ ! -x "$dir/tree/buildtools/bin/waf" ]; then
	rm -rf "$dir.tmp"
	mkdir -p "$dir.tmp"
	(cd "$dir.tmp" && apt-get source -qq "samba=$ver" >/dev/null 2>&1)
	src=$(find "$dir.tmp" -maxdepth 1 -mindepth 1 -type d -name 'samba-*' | head -n1)
	[ -n "$src" ] || { echo "samba-source: apt-get source samba failed" >&2; exit 1; }
	rm -rf "$dir"
	mkdir -p "$dir"
	mv "$src" "$dir/tree"
	rm -rf "$dir.tmp"
fi
echo "$dir/tree"
