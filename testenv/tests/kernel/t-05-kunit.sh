# The richacl KUnit suite (fs/richacl_kunit.c, CONFIG_FS_RICHACL_KUNIT_TEST=y)
# runs while the guest kernel boots; its KTAP results are in the kernel log.
# One check per test case and per parameter of a parameterized case, named as
# KUnit names it, plus one check that the suite ran and reported no failure.

t_kunit() {
	group_begin K-KUNIT "fs/richacl.c KUnit suite (algorithms.md worked examples)"
	local log line name total=
	log=$(dmesg | sed 's/^\[[ 0-9.]*\] //')
	if ! grep -qE '^ *# Subtest: richacl$' <<<"$log"; then
		fail "the richacl KUnit suite ran at boot" "no '# Subtest: richacl' in the kernel log" \
			"$(grep -iE 'kunit|ktap' <<<"$log" | head -n 5)"
		return
	fi
	pass "the richacl KUnit suite ran at boot"
	# The suite's own lines: from its "# Subtest: richacl" to its top-level
	# "ok N richacl" / "not ok N richacl" result line.
	log=$(awk '/^ *# Subtest: richacl$/ { on = 1 }
		on { print }
		on && /^(not )?ok [0-9]+ richacl$/ { exit }' <<<"$log")
	while IFS= read -r line; do
		case $line in
		*'# Subtest:'*|'')
			;;
		*'not ok '[0-9]*)
			name=$(sed -E 's/^ *not ok [0-9]+ //' <<<"$line")
			fail "KUnit: $name" "not ok" \
				"$(grep -B8 -F "$line" <<<"$log" | grep -E 'Expected|EXPECTATION|ASSERTION|# ' | head -n 8)"
			;;
		*'ok '[0-9]*)
			name=$(sed -E 's/^ *ok [0-9]+ //' <<<"$line")
			case $name in
			*'# SKIP'*) fail "KUnit: $name" "skipped" ;;
			*) pass "KUnit: $name" ;;
			esac
			;;
		*'# Totals:'*)
			total=$line
			;;
		esac
	done < <(grep -E '^ +(not )?ok [0-9]+ |# Totals:' <<<"$log")
	if grep -qE '^ok [0-9]+ richacl$' <<<"$log"; then
		pass "the richacl suite reports ok${total:+ ($total)}"
	else
		fail "the richacl suite reports ok" "$(grep -E '^(not )?ok [0-9]+ richacl$' <<<"$log" || echo 'no result line')"
	fi
}
