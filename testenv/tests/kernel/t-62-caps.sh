# Capabilities: one capability alone buys no acl change on a richacl file
# system (the broader comparison with plain ext4 is t-50-caps.sh).  Found
# by an outside attack on the series.

# One capability alone buys no acl changes.
t_caps_acl_changes() {
	group_begin K-CAPS-ACL "capabilities and system.richacl / owner-only attributes"
	require_richacl || return
	local B=$R/caps_acl_changes f v
	fresh_dir "$B"
	f=$B/f
	echo x >"$f"
	S chown alice:alice "$f"
	setacl 'owner@:rwp::allow user:1003:r::allow' "$f"
	v=$("$KT" getxattr "$f" system.richacl)
	v=${v#OK }
	local c
	for c in dac_override dac_read_search fsetid chown; do
		expect_cap DENIED root "$c" "root with only CAP_${c^^} cannot set the acl" setxattr "$f" system.richacl "$v"
		expect_cap DENIED root "$c" "root with only CAP_${c^^} cannot remove the acl" removexattr "$f" system.richacl
		expect_cap DENIED root "$c" "root with only CAP_${c^^} cannot set arbitrary times" utimes "$f" 1000000000
	done
	expect_cap DENIED bob dac_override "bob with CAP_DAC_OVERRIDE cannot chmod alice's file" chmod "$f" 666
	expect_cap DENIED bob dac_override "bob with CAP_DAC_OVERRIDE cannot take ownership" chown "$f" 1002 -1
	expect_cap DENIED bob chown "bob with CAP_CHOWN cannot chmod (only chown)" chmod "$f" 666
	expect_cap OK root fowner "sanity: CAP_FOWNER may set the acl" setxattr "$f" system.richacl "$v"
	if [ "$PLAIN_OK" = 1 ]; then
		echo x >"$P/caps_acl_changes"
		S chown alice:alice "$P/caps_acl_changes"
		expect_cap DENIED root dac_override "plain reference: CAP_DAC_OVERRIDE cannot setfacl" \
			setxattr "$P/caps_acl_changes" system.posix_acl_access \
			"0200000001000600ffffffff04000400ffffffff10000400ffffffff20000400ffffffff"
		rm -f "$P/caps_acl_changes"
	fi
}
