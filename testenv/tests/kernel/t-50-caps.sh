# Capability matrix (security): a caller whose only privilege is one
# capability must never get more on the richacl file system than on plain
# ext4 with the same owners and modes.
#
# For each capability in CAPS_CAPS and each caller kind (root: uid 0 with the
# bounding, permitted and effective sets reduced to that one capability; bob:
# uid 1002, groups 1002 and staff, holding it as an ambient capability), every
# operation of CAPS_OPS runs once on each of three identical fresh trees:
#   plain  $P/caps/CAP-KIND      the reference (POSIX modes, no acls)
#   rich   $R/caps/CAP-KIND      the same owners and modes, no acls
#   acl    $R/caps_acl/CAP-KIND  the same, plus an acl on every object that
#                                grants the callers nothing (owner@:rwpxd::allow
#                                on directories, owner@:rwp::allow on files,
#                                plus user:1005:r::allow so that the acl is not
#                                mode-equivalent), except search (everyone@:x)
#                                on the directories a, b and s that lead to the
#                                objects; on the setgid directory g an
#                                inheritable everyone@:rwpxd:fd:allow (to
#                                exercise the richacl inheritance path)
# The reference is always the plain outcome of the same call in the same run:
#   - per operation and tree (rich, acl): if plain refuses, richacl refuses;
#   - chmod 4755/2755/6755 (files) and 2755 (a directory): the resulting mode
#     on richacl has no set-id bit that plain does not have;
#   - chown/chgrp of a 6755 file (rich tree): when both allowed, the set-id
#     bits are cleared exactly as on plain;
#   - create/mkdir in the setgid directory g (alice:carol 2777; the callers are
#     not in group carol): when both created, group and set-id bits of the new
#     object equal plain's (rich and acl trees);
#   - per capability and kind, two sanity checks of the plain outcome (the
#     capability is held, and no other one is), so that a broken kt -C cannot
#     make the matrix pass vacuously.
#
# Tree per CAP-KIND (owner:group mode):
#   a, b        alice:alice 0755    files alice 0644 (o600: 0600; own_*, grp_*:
#                                   6755; pown_*, pgrp_*: 0644), empty dirs
#                                   d_rmdir, d_xren, dm
#   p           alice:alice 0700    files f, u
#   s           carol:carol 1777    alice's files fa, fa_ren, empty dir da
#   g           alice:carol 2777    alice's file fw

# Beyond the five capabilities of the matrix's purpose (dac_override,
# dac_read_search, fowner, chown, fsetid): mknod, which RENAME_WHITEOUT needs,
# and the pair chown,fowner (only with CAP_FOWNER as well may a non-owner
# chown a set-id file at all, so the set-id chown comparisons need it).
CAPS_CAPS=(dac_override dac_read_search fowner chown fsetid mknod chown,fowner)
CAPS_KINDS=(root bob)

# id|what|kt operation: @path is relative to the tree, %U is the caller's uid,
# %XN/%XV the acl xattr name and value of the tree's file system.
CAPS_OPS=(
	"create_a|create a file in alice's 0755 dir|create @a/new_f"
	"mkdir_a|mkdir in alice's 0755 dir|mkdir @a/new_d"
	"create_p|create a file in alice's 0700 dir|create @p/new_f"
	"create_s|create a file in carol's 1777 dir|create @s/new_f"
	"create_g|create a file in the setgid 2777 dir|create @g/new_f"
	"create_g2755|create a 2755 file in the setgid 2777 dir|create @g/new_sf 2755"
	"mkdir_g|mkdir in the setgid 2777 dir|mkdir @g/new_d"
	"link|hard link alice's 0600 file into carol's 1777 dir|link @a/o600 @s/ln"
	"unlink_a|unlink alice's file in alice's 0755 dir|unlink @a/f_unlink"
	"unlink_p|unlink alice's file in alice's 0700 dir|unlink @p/u"
	"unlink_s|unlink alice's file in carol's 1777 dir|unlink @s/fa"
	"rmdir_a|rmdir alice's empty dir in alice's 0755 dir|rmdir @a/d_rmdir"
	"rmdir_s|rmdir alice's empty dir in carol's 1777 dir|rmdir @s/da"
	"rename_a|rename alice's file within alice's 0755 dir|rename @a/f_ren @a/f_ren2"
	"rename_ab|rename alice's file across alice's 0755 dirs|rename @a/f_xren @b/f_xren"
	"rename_dir_ab|rename alice's dir across alice's 0755 dirs|rename @a/d_xren @b/d_xren"
	"rename_s|rename alice's file within carol's 1777 dir|rename @s/fa_ren @s/fa_ren2"
	"exchange_a|RENAME_EXCHANGE within alice's 0755 dir|exchange @a/f_ex1 @a/f_ex2"
	"exchange_ab|RENAME_EXCHANGE across alice's 0755 dirs|exchange @a/f_xex @b/f_xex"
	"whiteout_a|RENAME_WHITEOUT within alice's 0755 dir|whiteout @a/f_wo @a/f_wo2"
	"whiteout_g|RENAME_WHITEOUT within the 2777 dir|whiteout @g/fw @g/fw2"
	"chmod_0600|chmod 0600 alice's 0644 file|chmod @a/m0644 600"
	"chmod_4755|chmod 4755 alice's 0644 file|chmod @a/m4755 4755"
	"chmod_2755|chmod 2755 alice's 0644 file|chmod @a/m2755 2755"
	"chmod_6755|chmod 6755 alice's 0644 file|chmod @a/m6755 6755"
	"chmod_dir2755|chmod 2755 alice's 0755 dir|chmod @a/dm 2755"
	"chown_self|chown alice's 6755 file to the caller|chown @a/own_self %U -1"
	"chown_other|chown alice's 6755 file to carol|chown @a/own_other 1003 -1"
	"chgrp_staff|chgrp alice's 6755 file to staff|chown @a/grp_staff -1 2000"
	"chgrp_other|chgrp alice's 6755 file to carol's group|chown @a/grp_other -1 1003"
	"chown_self_p|chown alice's 0644 file to the caller|chown @a/pown_self %U -1"
	"chown_other_p|chown alice's 0644 file to carol|chown @a/pown_other 1003 -1"
	"chgrp_staff_p|chgrp alice's 0644 file to staff|chown @a/pgrp_staff -1 2000"
	"chgrp_other_p|chgrp alice's 0644 file to carol's group|chown @a/pgrp_other -1 1003"
	"utimes_now|utimes(NULL) on alice's 0644 file|utimes @a/t now"
	"utimes_set|utimes explicit on alice's 0644 file|utimes @a/t 1000000000"
	"setxattr_acl|set the acl xattr of alice's 0644 file|setxattr @a/x %XN %XV"
	"open_r|open O_RDONLY alice's 0600 file|open @a/o600 r"
	"open_w|open O_WRONLY alice's 0600 file|open @a/o600 w"
	"open_wa|open O_WRONLY+O_APPEND alice's 0600 file|open @a/o600 wa"
	"open_wt|open O_WRONLY+O_TRUNC alice's 0600 file|open @a/o600 wt"
	"open_p_r|open O_RDONLY alice's 0644 file in her 0700 dir|open @p/f r"
	"readdir_p|readdir alice's 0700 dir|readdir @p"
	"chdir_p|chdir into alice's 0700 dir|chdir @p"
)

# Sanity of the plain outcomes (kernel facts, not richacl observations):
# "op:want" with want OK or DENIED; fsetid's positive check is a mode check.
declare -A CAPS_SANE_POS=([dac_override]=open_w [dac_read_search]=open_r
	[fowner]=chmod_0600 [chown]=chown_other_p [fsetid]="" [mknod]=whiteout_g
	[chown,fowner]=chown_other)
declare -A CAPS_SANE_NEG=([dac_override]=chmod_0600 [dac_read_search]=open_w
	[fowner]=open_r [chown]=open_r [fsetid]=open_r [mknod]=open_r [chown,fowner]=open_r)

# A non-trivial POSIX acl: user::rw- user:1002:r-- group::r-- mask::r-- other::r--
CAPS_POSIX_ACL=02000000$(printf '%s' 01000600ffffffff 02000400ea030000 04000400ffffffff \
	10000400ffffffff 20000400ffffffff)

# _caps_objs TREE: the objects of one CAP-KIND tree, by owner and kind:
#   _d_alice  alice's dirs, _f_alice  alice's files (owner alice:alice)
_caps_objs() {
	local t=$1
	_d_alice=("$t"/a "$t"/a/{d_rmdir,d_xren,dm} "$t/b" "$t/p" "$t/s/da")
	_f_alice=("$t"/a/{f_unlink,f_ren,f_xren,f_ex1,f_ex2,f_xex,f_wo,m0644,m4755,m2755}
		"$t"/a/{m6755,t,x,o600,own_self,own_other,grp_staff,grp_other}
		"$t"/a/{pown_self,pown_other,pgrp_staff,pgrp_other}
		"$t/b/f_xex" "$t/p/f" "$t/p/u" "$t/s/fa" "$t/s/fa_ren" "$t/g/fw")
}

# _caps_tree BASE: the fixture for every CAP-KIND under BASE (as root).
_caps_tree() {
	local base=$1 c k t
	local -a _d_alice _f_alice da=() fa=() cc=() ac=() m600=() m700=() m1777=() m2777=() m6755=()
	fresh_dir "$base"
	for c in "${CAPS_CAPS[@]}"; do
		for k in "${CAPS_KINDS[@]}"; do
			t=$base/$c-$k
			_caps_objs "$t"
			da+=("${_d_alice[@]}")
			fa+=("${_f_alice[@]}")
			cc+=("$t/s")
			ac+=("$t/g")
			m600+=("$t/a/o600")
			m700+=("$t/p")
			m1777+=("$t/s")
			m2777+=("$t/g")
			m6755+=("$t"/a/{own_self,own_other,grp_staff,grp_other})
		done
	done
	S mkdir -p "${da[@]}" "${cc[@]}" "${ac[@]}" || return 1
	for t in "${fa[@]}"; do
		echo data >"$t" || return 1
	done
	S chown alice:alice "${da[@]}" "${fa[@]}" || return 1
	S chown carol:carol "${cc[@]}" || return 1
	S chown alice:carol "${ac[@]}" || return 1
	S chmod 0600 "${m600[@]}" || return 1
	S chmod 0700 "${m700[@]}" || return 1
	S chmod 1777 "${m1777[@]}" || return 1
	S chmod 2777 "${m2777[@]}" || return 1
	S chmod 6755 "${m6755[@]}"
}

# _caps_acls BASE: the acl tree's acls (see the header).  Every acl names
# uid 1005 (no test user), so that it is not equivalent to a mode and stays
# stored as an acl.
_caps_acls() {
	local base=$1 c k t
	local -a _d_alice _f_alice trav=() dirs=() files=() sg=()
	for c in "${CAPS_CAPS[@]}"; do
		for k in "${CAPS_KINDS[@]}"; do
			t=$base/$c-$k
			_caps_objs "$t"
			trav+=("$t/a" "$t/b" "$t/s")
			dirs+=("$t"/a/{d_rmdir,d_xren,dm} "$t/p" "$t/s/da")
			files+=("${_f_alice[@]}")
			sg+=("$t/g")
		done
	done
	setacl 'owner@:rwpxd::allow user:1005:r::allow everyone@:x::allow' "${trav[@]}" || return 1
	setacl 'owner@:rwpxd::allow user:1005:r::allow' "${dirs[@]}" || return 1
	setacl 'owner@:rwp::allow user:1005:r::allow' "${files[@]}" || return 1
	setacl 'everyone@:rwpxd:fd:allow' "${sg[@]}"
}

# _caps_modes TREE: fill the associative array _m with "mode uid gid" (or
# "absent") of the objects whose set-id bits are compared.
_caps_modes() {
	local tree=$1 n rest
	local -a names=(a/m4755 a/m2755 a/m6755 a/dm a/own_self a/own_other a/grp_staff
		a/grp_other g/new_f g/new_sf g/new_d)
	_m=()
	for n in "${names[@]}"; do
		_m[$n]=absent
	done
	while read -r n rest; do
		_m[${n#"$tree"/}]=$rest
	done < <(stat -c '%n %a %u %g' "${names[@]/#/$tree/}" 2>/dev/null)
}

_caps_sid() { echo $(((8#$1 >> 9) & 6)); }	# octal mode -> set-id bits (4 = u, 2 = g)
_caps_sidtxt() {	# set-id bits as text
	case $1 in 0) echo none ;; 2) echo S_ISGID ;; 4) echo S_ISUID ;; 6) echo S_ISUID+S_ISGID ;; esac
}

t_caps() {
	group_begin K-CAPS "capability-only callers: richacl never grants more than plain ext4"
	require_richacl || return
	if [ "$PLAIN_OK" != 1 ]; then
		fail "plain ext4 mounted" "cannot run"
		return
	fi
	local -A base=([plain]=$P/caps [rich]=$R/caps [acl]=$R/caps_acl)
	local -A xn=([plain]=system.posix_acl_access [rich]=system.richacl [acl]=system.richacl)
	local -A xv=([plain]=$CAPS_POSIX_ACL)
	local -A res=() _m=() mp=() mr=() ma=()
	local cap kind who uid v line id what cmd x out n w p r a pm pg rm rg
	local -a words args

	_caps_tree "${base[plain]}" || return
	_caps_tree "${base[rich]}" || return
	_caps_tree "${base[acl]}" || return
	_caps_acls "${base[acl]}" || return
	# the richacl xattr value set by setxattr_acl: a non-trivial acl
	touch "${base[rich]}/xval"
	setacl 'owner@:rwp::allow user:1002:r::allow' "${base[rich]}/xval"
	xv[rich]=$(xattr_of "${base[rich]}/xval")
	xv[acl]=${xv[rich]}
	if [[ ${xv[rich]} == E* ]] || [ -z "${xv[rich]}" ]; then
		fail "setup: read a system.richacl value" "got '${xv[rich]}'"
		return
	fi
	x=${base[acl]}/${CAPS_CAPS[0]}-${CAPS_KINDS[0]}
	check_eq "setup: the acl tree's setgid dir keeps S_ISGID under its acl" 2 \
		"$(_caps_sid "$(mode_of "$x/g")")"
	for n in a a/d_rmdir a/o600 a/own_self s g; do
		out=$(xattr_of "$x/$n")
		if [[ $out == E* ]]; then
			fail "setup: the acl tree's $n has a stored acl" "getxattr: $out"
		else
			pass "setup: the acl tree's $n has a stored acl"
		fi
	done

	for cap in "${CAPS_CAPS[@]}"; do
		for kind in "${CAPS_KINDS[@]}"; do
			who=$kind uid=1002
			[ "$kind" = root ] && uid=0
			res=()
			for line in "${CAPS_OPS[@]}"; do
				IFS='|' read -r id what cmd <<<"$line"
				read -ra words <<<"$cmd"
				for v in plain rich acl; do
					args=()
					for w in "${words[@]}"; do
						case $w in
						@*) args+=("${base[$v]}/$cap-$kind/${w#@}") ;;
						%U) args+=("$uid") ;;
						%XN) args+=("${xn[$v]}") ;;
						%XV) args+=("${xv[$v]}") ;;
						*) args+=("$w") ;;
						esac
					done
					out=$(kt_cap "$who" "$cap" "${args[@]}" 2>&1)
					out=${out%%$'\n'*}
					res[$v:$id]=${out%% *}
				done
				p=${res[plain:$id]}
				for v in rich acl; do
					r=${res[$v:$id]}
					x="$cap/$kind $id ($what) $v: plain $p, $v $r"
					if [[ $p != OK && $p != E* ]] || [[ $r != OK && $r != E* ]]; then
						fail "$x" "the kt helper failed: $cmd"
					elif [ "$p" != OK ] && [ "$r" = OK ]; then
						fail "$x" "richacl allowed what plain ext4 refused"
					else
						pass "$x"
					fi
				done
			done

			# sanity of the plain side
			n=${CAPS_SANE_POS[$cap]}
			if [ -n "$n" ]; then
				x="sanity: $cap/$kind $n allowed on plain (the capability is held)"
				if [ "${res[plain:$n]}" = OK ]; then pass "$x"; else fail "$x" "got ${res[plain:$n]}"; fi
			fi
			n=${CAPS_SANE_NEG[$cap]}
			x="sanity: $cap/$kind $n refused on plain (no other capability)"
			if _outcome_matches DENIED "${res[plain:$n]}"; then pass "$x"; else fail "$x" "got ${res[plain:$n]}"; fi

			# set-id outcomes
			_caps_modes "${base[plain]}/$cap-$kind"
			mp=(); for n in "${!_m[@]}"; do mp[$n]=${_m[$n]}; done
			_caps_modes "${base[rich]}/$cap-$kind"
			mr=(); for n in "${!_m[@]}"; do mr[$n]=${_m[$n]}; done
			_caps_modes "${base[acl]}/$cap-$kind"
			ma=(); for n in "${!_m[@]}"; do ma[$n]=${_m[$n]}; done
			if [ "$cap" = fsetid ]; then
				x="sanity: fsetid/$kind create_g2755 keeps S_ISGID on plain (the capability is held)"
				read -r a _ <<<"${mp[g/new_sf]}"
				if [ "$a" != absent ] && [ "$(_caps_sid "$a")" = 2 ]; then pass "$x"; else fail "$x" "plain g/new_sf: ${mp[g/new_sf]}"; fi
			fi
			for id in chmod_4755:a/m4755 chmod_2755:a/m2755 chmod_6755:a/m6755 chmod_dir2755:a/dm; do
				n=${id#*:} id=${id%%:*}
				read -r p _ <<<"${mp[$n]}"
				for v in rich acl; do
					if [ "$v" = rich ]; then read -r r _ <<<"${mr[$n]}"; else read -r r _ <<<"${ma[$n]}"; fi
					x="set-id: $cap/$kind $id $v (${res[$v:$id]}): mode $v $r, plain $p (${res[plain:$id]})"
					if [ "$p" = absent ] || [ "$r" = absent ]; then
						fail "$x" "object missing"
					elif (( $(_caps_sid "$r") & ~$(_caps_sid "$p") )); then
						fail "$x" "richacl kept $(_caps_sidtxt $(( $(_caps_sid "$r") & ~$(_caps_sid "$p") ))) that plain ext4 cleared or never set"
					else
						pass "$x"
					fi
				done
			done
			for id in chown_self:a/own_self chown_other:a/own_other chgrp_staff:a/grp_staff \
				chgrp_other:a/grp_other; do
				n=${id#*:} id=${id%%:*}
				read -r p _ <<<"${mp[$n]}"
				read -r r _ <<<"${mr[$n]}"
				x="set-id: $cap/$kind $id of a 6755 file rich (${res[rich:$id]}): mode rich $r, plain $p (${res[plain:$id]})"
				if [ "${res[rich:$id]}" != OK ] || [ "${res[plain:$id]}" != OK ]; then
					pass "$x"	# not both allowed: nothing to compare
				elif [ "$(_caps_sid "$r")" = "$(_caps_sid "$p")" ]; then
					pass "$x"
				else
					fail "$x" "set-id bits after chown differ: rich $(_caps_sidtxt "$(_caps_sid "$r")"), plain $(_caps_sidtxt "$(_caps_sid "$p")")"
				fi
			done
			for id in create_g:g/new_f create_g2755:g/new_sf mkdir_g:g/new_d; do
				n=${id#*:} id=${id%%:*}
				read -r pm _ pg <<<"${mp[$n]}"
				for v in rich acl; do
					if [ "$v" = rich ]; then read -r rm _ rg <<<"${mr[$n]}"; else read -r rm _ rg <<<"${ma[$n]}"; fi
					x="setgid dir: $cap/$kind $id $v: $v mode $rm gid ${rg:-}, plain mode $pm gid ${pg:-}"
					if [ "$pm" = absent ] || [ "$rm" = absent ]; then
						pass "$x"	# not both created: nothing to compare
					elif [ "$rg" = "$pg" ] && [ "$(_caps_sid "$rm")" = "$(_caps_sid "$pm")" ]; then
						pass "$x"
					else
						fail "$x" "group or set-id bits of the new object differ from plain ext4"
					fi
				done
			done
		done
	done
}
