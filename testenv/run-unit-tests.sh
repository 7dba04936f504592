#!/bin/bash
# Run every cmocka unit test program under build/tests, and the host tests
# of the acl_xattr migration tool (testenv/tests/migrate/test_migrate.py,
# as root: it sets security.NTACL) and of e2fsck with richacl
# (testenv/tests/e2fsck/run.py, image files only), and sum their results.
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
# python host tests that print "N passed, N failed"
for t in testenv/tests/migrate/test_migrate.py testenv/tests/e2fsck/run.py; do
	out=$(/usr/bin/python3 "$t" 2>&1)
	rc=$?
	line=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' <<<"$out" | tail -n1)
	p=${line%% *}
	f=$(awk '{print $3}' <<<"$line")
	[ -n "$line" ] || { p=0; f=1; }
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p))
	fail=$((fail + f))
	printf '%-40s %4d passed, %d failed\n' "$t" "$p" "$f"
	if [ "$f" -ne 0 ]; then
		failed_progs+=("$t")
		grep -E '^FAIL ' <<<"$out" | head -20
		[ -n "$line" ] || tail -n 5 <<<"$out"
	fi
done
echo "unit: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
