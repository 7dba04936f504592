#!/bin/bash
# Build the libFuzzer targets of mapping/fuzz (fuzz_xattr, fuzz_text,
# fuzz_ntsd) with clang, AddressSanitizer and UBSan against the library
# sources, and run each for a bounded time, one after the other.
#
#   testenv/fuzz.sh [SECONDS] [TARGET...]      (default: 60 s, all targets)
#
# The seed corpus mapping/fuzz/corpus/<target> is only read; new inputs go to
# build/fuzz/corpus-<target> (kept between runs), crash inputs to
# build/fuzz/artifacts-<target>/.  Prints executions and crashes per target
# and exits non-zero if any target crashed (or leaked, or timed out).
set -uo pipefail

secs=${1:-60}
shift || true
case $secs in
'' | *[!0-9]*)
	echo "usage: $0 [SECONDS] [xattr|text|ntsd ...]" >&2
	exit 2
	;;
esac
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(xattr text ntsd)

top=$(cd "$(dirname "$0")/.." && pwd)
out=${FUZZ_OUT:-$top/build/fuzz}
cc=${FUZZ_CC:-clang}
mkdir -p "$out"

cflags=(-g -O1 -std=gnu11 -D_GNU_SOURCE -fno-omit-frame-pointer
	"-fsanitize=fuzzer,address,undefined" -fno-sanitize-recover=all
	-I"$top/mapping/include" -I"$top/mapping/fuzz")

status=0
for t in "${targets[@]}"; do
	src=$top/mapping/fuzz/fuzz_$t.c
	bin=$out/fuzz_$t
	if [ ! -f "$src" ]; then
		echo "fuzz_$t: no such target" >&2
		status=1
		continue
	fi
	if ! "$cc" "${cflags[@]}" "$src" "$top"/mapping/src/*.c -o "$bin" 2>"$out/build-$t.log"; then
		echo "fuzz_$t: build failed:" >&2
		cat "$out/build-$t.log" >&2
		status=1
		continue
	fi

	work=$out/corpus-$t
	art=$out/artifacts-$t
	seeds=$top/mapping/fuzz/corpus/$t
	mkdir -p "$work" "$seeds"
	rm -rf "$art"
	mkdir -p "$art"
	log=$out/fuzz-$t.log

	UBSAN_OPTIONS=print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
		"$bin" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$art/" "$work" "$seeds" >"$log" 2>&1
	rc=$?

	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	crashes=$(find "$art" -type f | wc -l)
	if [ "$rc" -ne 0 ] && [ "$crashes" -eq 0 ]; then
		crashes=1	# died without writing an artifact
	fi
	echo "fuzz_$t: ${execs:-?} executions, $crashes crashes (${secs}s, exit $rc)"
	if [ "$crashes" -ne 0 ]; then
		status=1
		find "$art" -type f -exec echo "  crash input: {}" \;
		echo "  log: $log (last lines below)"
		grep -E -m1 -A40 'ERROR: |check failed|runtime error' "$log" | sed 's/^/    /'
	fi
done
exit $status
