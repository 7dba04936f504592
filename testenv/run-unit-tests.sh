#!/bin/bash
# Run every cmocka unit test program under build/tests and sum their results.
# Prints one line per program and a final "N passed, N failed" line.
set -uo pipefail
cd "$(dirname "$0")/.."
pass=0
fail=0
failed_progs=()
for t in build/tests/test_*; do
	[ -x "$t" ] || continue
	out=$("$t" 2>&1)
	rc=$?
	p=$(grep -Eo '^\[  PASSED  \] [0-9]+' <<<"$out" | awk '{s+=$4} END {print s+0}')
	f=$(grep -Eo '^\[  FAILED  \] [0-9]+' <<<"$out" | awk '{s+=$4} END {print s+0}')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1	# crashed or failed outside cmocka's accounting
	fi
	pass=$((pass + p))
	fail=$((fail + f))
	printf '%-40s %4d passed, %d failed\n' "$(basename "$t")" "$p" "$f"
	if [ "$f" -ne 0 ]; then
		failed_progs+=("$t")
		grep -E '^\[  (FAILED|ERROR) |[Ff]ailure|error:' <<<"$out" | head -20
	fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
