# Inheritance, automatic inheritance, mode equivalence, RCU-walk, invalid
# xattr values and unmapped identifiers (SEMANTICS.md section 3, items
# 10-14; M9).  Texts are compared with `getrichacl --raw --numeric-ids`
# (algorithms.md 7.2/7.3 format).

# The 16-column permission text of algorithms.md 7.2 (aligned, not simplified).
perm16() {	# letters
	local out="" c
	for c in r w p x d D a A R W c C o S e E; do
		if [[ $1 == *"$c"* ]]; then out+=$c; else out+=-; fi
	done
	echo "$out"
}

# _split_entry "who:perms:flags:type": set _who and _rest (perms:flags:type);
# user:ID and group:ID whos contain a colon themselves.
_split_entry() {
	case "$1" in
	user:*|group:*) _who=$(cut -d: -f1,2 <<<"$1"); _rest=$(cut -d: -f3- <<<"$1") ;;
	*) _who=${1%%:*}; _rest=${1#*:} ;;
	esac
}

# Expected `getrichacl --raw --numeric-ids NAME` text.
#   raw_text NAME FLAGS OWNERMASK GROUPMASK OTHERMASK "who:perms:flags:type"...
# Masks and perms are letter sets; the alignment is computed as in 7.2.
raw_text() {
	local name=$1 flags=$2 om=$3 gm=$4 tm=$5
	shift 5
	local align=6 e _who _rest perms eflags type
	for e in "$@"; do
		_split_entry "$e"
		[ $(( ${#_who} + 1 )) -gt $align ] && align=$(( ${#_who} + 1 ))
	done
	echo "$name:"
	[ -n "$flags" ] && printf '%*s:%s\n' $align flags "$flags"
	printf '%*s:%s::mask\n' $align owner "$(perm16 "$om")" $align group "$(perm16 "$gm")" \
		$align other "$(perm16 "$tm")"
	for e in "$@"; do
		_split_entry "$e"
		IFS=: read -r perms eflags type <<<"$_rest"
		printf '%*s:%s:%s:%s\n' $align "$_who" "$(perm16 "$perms")" "$eflags" "$type"
	done
}

# §3 item 10: create-time inheritance over all combinations of
# file_inherit/dir_inherit/no_propagate/inherit_only, for new files and new
# directories, with and without auto_inherit on the parent (algorithms.md 5.1
# table, 5.2 create rule: masks = max masks limited by the create mode,
# umask ignored when something is inherited).
t_inherit() {
	group_begin K-INHERIT "§3.10 create-time inheritance (algorithms.md 5.1/5.2)"
	require_richacl || return
	local B=$R/inherit
	fresh_dir "$B"
	local auto combo f d n i pdir aflag eflags want
	for auto in "" a; do
		for combo in $(seq 0 15); do
			f=$(( combo & 1 ? 1 : 0 )); d=$(( combo & 2 ? 1 : 0 ))
			n=$(( combo & 4 ? 1 : 0 )); i=$(( combo & 8 ? 1 : 0 ))
			eflags=""
			[ $f = 1 ] && eflags+=f
			[ $d = 1 ] && eflags+=d
			[ $n = 1 ] && eflags+=n
			[ $i = 1 ] && eflags+=i
			pdir=$B/p${auto:+-auto}-${eflags:-none}
			mkdir "$pdir"
			aflag=${auto:+flags:a }
			setacl "${aflag}user:1002:rxd:$eflags:allow" "$pdir" || continue
			touch "$pdir/f"
			mkdir "$pdir/d"
			local tag="parent ${aflag}user:1002:rxd:${eflags}:allow"
			# new file: inherits iff f; flags cleared, d dropped from the mask
			if [ $f = 1 ]; then
				check_text "$tag: new file inherits user:1002:rx" "$(raw_text f \
					"m${auto:+ap}" r r "" "user:1002:rx:${auto}:allow")" \
					gra_in "$pdir" --raw --numeric-ids f
				check_eq "$tag: new file mode from the masks (0440)" 440 "$(mode_of "$pdir/f")"
			else
				expect ENODATA root "$tag: new file inherits nothing" \
					getxattr "$pdir/f" system.richacl
				check_eq "$tag: new file mode from the umask (0644)" 644 "$(mode_of "$pdir/f")"
			fi
			# new directory: takes the entry if d, or f without n
			want=none
			if [ $d = 1 ] || { [ $f = 1 ] && [ $n = 0 ]; }; then
				if [ $n = 1 ]; then
					want=""		# all inheritance flags cleared
				elif [ $d = 1 ]; then
					want=${eflags//i/}	# effective, still inheritable
				else
					want=fi		# passes through to files only
				fi
			fi
			if [ "$want" = none ]; then
				expect ENODATA root "$tag: new directory inherits nothing" \
					getxattr "$pdir/d" system.richacl
				check_eq "$tag: new directory mode from the umask (0755)" 755 "$(mode_of "$pdir/d")"
			elif [ "$want" = fi ]; then
				check_text "$tag: new directory gets an inherit-only entry" "$(raw_text d \
					"m${auto:+ap}" "" "" "" "user:1002:rxd:fi${auto}:allow")" \
					gra_in "$pdir" --raw --numeric-ids d
				check_eq "$tag: new directory mode 0000 (no effective entry)" 0 "$(mode_of "$pdir/d")"
			else
				check_text "$tag: new directory inherits user:1002:rxd:$want" "$(raw_text d \
					"m${auto:+ap}" rxd rxd "" "user:1002:rxd:${want}${auto}:allow")" \
					gra_in "$pdir" --raw --numeric-ids d
				check_eq "$tag: new directory mode from the masks (0770)" 770 "$(mode_of "$pdir/d")"
			fi
		done
	done

	# the umask is ignored when something is inherited, applied otherwise
	(umask 077 && touch "$B/p-f/u" "$B/p-none/u")
	check_eq "umask 077 ignored when an entry is inherited (0440)" 440 "$(mode_of "$B/p-f/u")"
	check_eq "umask 077 applied when nothing is inherited (0600)" 600 "$(mode_of "$B/p-none/u")"

	# an inherited acl equivalent to a mode is stored as the mode only (5.2)
	mkdir "$B/eq"
	setacl 'everyone@:rwp:f:allow' "$B/eq"
	touch "$B/eq/f"
	"$KT" create "$B/eq/g" 0644 >/dev/null
	check_eq "equivalent inherited acl: mode 0666, umask ignored" 666 "$(mode_of "$B/eq/f")"
	expect ENODATA root "equivalent inherited acl: no xattr stored" getxattr "$B/eq/f" system.richacl
	check_eq "equivalent inherited acl: create mode 0644 limits the mode" 644 "$(mode_of "$B/eq/g")"

	# examples of algorithms.md 5.2
	mkdir "$B/ex1" "$B/ex2"
	setacl 'everyone@:rwpxd:fd:allow' "$B/ex1"
	"$KT" mkdir "$B/ex1/d" 0750 >/dev/null
	check_text "5.2 example: mkdir 0750 under everyone@:rwpxd:fd" "$(raw_text d m rwpxd rx "" \
		'everyone@:rwpxd:fd:allow')" gra_in "$B/ex1" --raw --numeric-ids d
	check_eq "5.2 example: mode 0750" 750 "$(mode_of "$B/ex1/d")"
	setacl 'flags:a owner@:rwpx:fd:allow user:101:rw:fd:deny' "$B/ex2"
	touch "$B/ex2/f"
	check_text "5.2 example: file under an auto-inherit parent" "$(raw_text f map rwp "" "" \
		'owner@:rwpx:a:allow' 'user:101:rw:a:deny')" gra_in "$B/ex2" --raw --numeric-ids f
	check_eq "5.2 example: mode 0600" 600 "$(mode_of "$B/ex2/f")"

	# owner@ is resolved to the creator (S-I1), as an unprivileged user
	mkdir "$B/own"
	setacl 'owner@:rwp:f:allow user:1001:wx::allow' "$B/own"
	expect OK alice "alice creates under an owner@-inheriting dir" create "$B/own/f"
	check_eq "inherited owner@ entry: equivalent, mode 0600" 600 "$(mode_of "$B/own/f")"
	check_eq "the creator owns the file" 1001:1001 "$(owner_of "$B/own/f")"

	# A local create: the create mode limits every class's mask, also in
	# the rights no mode bit stands for (algorithms.md 5.2, v28; K-CREATE-MODE).
	# touch asks for 0666: inherited delete and write_acl are masked away,
	# read and write stay.  smbd restores the inherited rights in full on
	# its own creates (S-I3, the SMB suite).
	mkdir "$B/si3"
	setacl 'user:1002:x::allow user:1002:rwpDC:fi:allow' "$B/si3"
	touch "$B/si3/f1" "$B/si3/f2"
	check_text "local create: the create mode limits every mask (rwpDC -> rwp)" \
		"$(raw_text f1 m rwp rwp "" 'user:1002:rwpDC::allow')" \
		gra_in "$B/si3" --raw --numeric-ids f1
	check_eq "local create: the mode follows the masks" 660 "$(mode_of "$B/si3/f1")"
	expect OK bob "local create: inherited write_data works" open "$B/si3/f1" w
	expect DENIED bob "local create: inherited write_acl is masked (no chmod)" chmod "$B/si3/f1" 0666
	expect DENIED bob "local create: inherited delete is masked (no unlink)" unlink "$B/si3/f2"
}

# §3 item 11: automatic inheritance flags (algorithms.md 5.2 scenario, 5.4).
t_auto_inherit() {
	group_begin K-AUTOINH "§3.11 automatic inheritance flags (algorithms.md 5.2, 5.4)"
	require_richacl || return
	local B=$R/autoinh
	fresh_dir "$B"
	mkdir "$B/d1"
	setacl 'flags:a user:101:rw:fd:deny user:102:rw:f:deny user:103:rw:d:deny group:101:rw:fdi:deny owner@:rwpxd:fd:allow everyone@:rx::allow' "$B/d1"
	check_text "auto-inheritance parent d1 stored as set" "$(raw_text d1 a rwpxd rx rx \
		'user:101:rw:fd:deny' 'user:102:rw:f:deny' 'user:103:rw:d:deny' \
		'group:101:rw:fdi:deny' 'owner@:rwpxd:fd:allow' 'everyone@:rx::allow')" \
		gra_in "$B" --raw --numeric-ids d1
	mkdir "$B/d1/d2"
	touch "$B/d1/d3"
	check_text "mkdir under d1: flags map, inherited entries flagged a" "$(raw_text d2 map rwpxd "" "" \
		'user:101:rw:fda:deny' 'user:102:rw:fia:deny' 'user:103:rw:da:deny' \
		'group:101:rw:fda:deny' 'owner@:rwpxd:fda:allow')" gra_in "$B/d1" --raw --numeric-ids d2
	check_text "file under d1: flags map, inherited entries flagged a" "$(raw_text d3 map rwp "" "" \
		'user:101:rw:a:deny' 'user:102:rw:a:deny' 'group:101:rw:a:deny' \
		'owner@:rwpx:a:allow')" gra_in "$B/d1" --raw --numeric-ids d3

	echo x >"$B/f"
	setacl 'flags:apd user:1002:r:a:allow' "$B/f"
	check_text "acl flags a/p/d and the inherited entry flag are stored" \
		"$(raw_text f apd r r "" 'user:1002:r:a:allow')" gra_in "$B" --raw --numeric-ids f
	echo x >"$B/g"
	setacl 'flags:a owner@:rwp::allow user:1002:r::allow' "$B/g"
	S chmod 600 "$B/g"
	check_eq "chmod of an auto-inherit acl sets protected (flags mwap)" "     flags:mwap" \
		"$(gra_in "$B" --raw --numeric-ids g | sed -n 2p)"

	# 5.4: setrichacl propagates an auto-inherit acl to the children
	local p=$B/p
	mkdir "$p" "$p/c1" "$p/c2" "$p/c3" "$p/c4"
	echo x >"$p/f1"
	setacl 'flags:ad user:7:r::allow owner@:rwpxd::allow' "$p/c1"
	setacl 'flags:a user:7:r::allow user:8:w:a:allow owner@:rwpxd::allow' "$p/c2"
	setacl 'flags:ap user:7:r::allow owner@:rwpxd::allow' "$p/c3"
	setacl 'user:7:r::allow owner@:rwpxd::allow' "$p/c4"
	setacl 'flags:a user:7:r::allow owner@:rwp::allow' "$p/f1"
	local c3 c4
	c3=$(xattr_of "$p/c3")
	c4=$(xattr_of "$p/c4")
	setacl 'flags:a owner@:rwpxd::allow user:9:rx:fd:allow everyone@:r:f:allow' "$p"
	check_text "propagation: defaulted child replaced by the inherited entries" \
		"$(raw_text c1 a rx rx "" 'user:9:rx:fda:allow' 'everyone@:r:fia:allow')" \
		gra_in "$p" --raw --numeric-ids c1
	check_text "propagation: own entries kept first, old inherited entries replaced" \
		"$(raw_text c2 a rwpxd rx "" 'user:7:r::allow' 'owner@:rwpxd::allow' \
			'user:9:rx:fda:allow' 'everyone@:r:fia:allow')" \
		gra_in "$p" --raw --numeric-ids c2
	check_eq "propagation: protected child unchanged" "$c3" "$(xattr_of "$p/c3")"
	check_eq "propagation: child without auto_inherit unchanged" "$c4" "$(xattr_of "$p/c4")"
	check_text "propagation: file child gets the file-inheritable entries" \
		"$(raw_text f1 a rwpx rx r 'user:7:r::allow' 'owner@:rwp::allow' \
			'user:9:rx:a:allow' 'everyone@:r:a:allow')" \
		gra_in "$p" --raw --numeric-ids f1
}

# §3 item 12: a mode-equivalent acl removes the xattr (algorithms.md 1.3, 9).
t_equiv() {
	group_begin K-EQUIV "§3.12 mode-equivalent acl is stored as the mode only"
	require_richacl || return
	local B=$R/equiv
	fresh_dir "$B"
	local f
	for f in f1 f3 f4 f5 f6 f7; do echo x >"$B/$f"; done
	mkdir "$B/d2"
	setacl 'user:1002:r::allow' "$B/f1" "$B/d2" "$B/f3"
	setacl 'owner@:rwp::allow group@:r::allow' "$B/f1"
	expect ENODATA root "equivalent acl replaces a stored acl: xattr removed" getxattr "$B/f1" system.richacl
	check_text "getfattr shows no system.richacl either" \
		"$B/f1: system.richacl: No such attribute" getfattr --absolute-names -n system.richacl "$B/f1"
	check_eq "equivalent acl: mode 0640" 640 "$(mode_of "$B/f1")"
	setacl 'owner@:rwpxd::allow everyone@:rx::allow' "$B/d2"
	expect ENODATA root "equivalent directory acl: xattr removed" getxattr "$B/d2" system.richacl
	check_eq "equivalent directory acl: mode 0755" 755 "$(mode_of "$B/d2")"
	expect OK root "from_mode(0644) blob (algorithms.md 8) accepted" \
		setxattr "$B/f3" system.richacl "$RICHACL_644"
	expect ENODATA root "from_mode(0644) blob: nothing stored" getxattr "$B/f3" system.richacl
	check_eq "from_mode(0644) blob: mode 0644" 644 "$(mode_of "$B/f3")"
	chmod 4755 "$B/f4"
	setacl 'owner@:rwpx::allow everyone@:rx::allow' "$B/f4"
	check_eq "equivalent acl keeps the setuid bit (4755)" 4755 "$(mode_of "$B/f4")"
	expect OK root "empty acl accepted" setxattr "$B/f5" system.richacl 00000000000000000000000000000000
	check_eq "empty acl is equivalent to mode 0000" 0 "$(mode_of "$B/f5")"
	expect ENODATA root "empty acl: nothing stored" getxattr "$B/f5" system.richacl
	setacl 'owner@:rw::allow everyone@:r::allow' "$B/f6"
	expect OK root "write without append is not equivalent: xattr stored" getxattr "$B/f6" system.richacl
	check_eq "non-equivalent acl: mode from the masks (0644)" 644 "$(mode_of "$B/f6")"
	S chmod 0644 "$B/f6"
	expect ENODATA root "chmod making the acl equivalent removes the xattr" getxattr "$B/f6" system.richacl
	check_eq "after that chmod the mode is 0644" 644 "$(mode_of "$B/f6")"
	setacl 'flags:m owner:r::mask everyone@:rwp::allow' "$B/f7"
	expect ENODATA root "masked acl equivalent to -r--rw-rw- (algorithms.md 7.4): nothing stored" \
		getxattr "$B/f7" system.richacl
	check_eq "masked equivalent acl: mode 0466" 466 "$(mode_of "$B/f7")"
}

# §3 item 13: RCU-walk path lookup gives the same answers as ref-walk.
# Each pattern guards the middle of a 4-level path; every (pattern, user)
# pair is looked up right after the acls were set, after dropping the
# dentry/inode caches (uncached acls: ref-walk) and again (cached: RCU-walk).
t_rcu() {
	group_begin K-RCU "§3.13 RCU-walk and ref-walk agree"
	require_richacl || return
	local B=$R/rcu
	fresh_dir "$B"
	local -a pat=(
		'user:1001:x::allow'
		'group:2000:x::allow'
		'user:1002:x::deny group:2000:x::allow'
		'group:2000:x::deny everyone@:x::allow'
		'user:1001:x::allow user:1002:x::allow'
		'owner@:x::allow user:1001:r::allow'
		'user:S-1-5-21-1-2-3-1001:x:u:allow'
		'everyone@:x::deny user:1001:x::allow')
	# expected lookups for alice bob carol uid1004 (Y = allowed)
	local -a want=("Y N N N" "N Y Y N" "N N Y N" "Y N N Y" "N N Y Y" "N N Y N" "N N N N" "N N N N")
	local -a why=("user entry" "group entry" "user deny before group allow"
		"group deny before everyone@ allow" "chmod 0701: masked, write-through other mask"
		"owner@ (owner carol)" "unmapped entry matches nobody" "everyone@ deny first")
	local k path
	for k in "${!pat[@]}"; do
		path=$B/p$k/l1/l2/l3
		mkdir -p "$path"
		echo x >"$path/target"
		setacl 'everyone@:x::allow user:1001:r::allow' "$B/p$k" "$B/p$k/l1" "$path"
		setacl "${pat[$k]}" "$B/p$k/l1/l2"
	done
	chmod 0701 "$B/p4/l1/l2"
	chown carol "$B/p5/l1/l2"
	local users=(alice bob carol 1004) u j w r1 r2 r3
	for k in "${!pat[@]}"; do
		path=$B/p$k/l1/l2/l3/target
		read -r -a w <<<"${want[$k]}"
		for j in 0 1 2 3; do
			u=${users[$j]}
			r1=$(kt_as "$u" stat "$path" | sed 's/^OK$/Y/; s/^E.*/N/')
			sync
			echo 3 >/proc/sys/vm/drop_caches
			r2=$(kt_as "$u" stat "$path" | sed 's/^OK$/Y/; s/^E.*/N/')
			r3=$(kt_as "$u" stat "$path" | sed 's/^OK$/Y/; s/^E.*/N/')
			if [ "$r1$r2$r3" = "${w[$j]}${w[$j]}${w[$j]}" ]; then
				pass "${pat[$k]} (${why[$k]}): lookup as $u = ${w[$j]} fresh/uncached/cached"
			else
				fail "${pat[$k]} (${why[$k]}): lookup as $u" \
					"expected ${w[$j]} each time, got fresh=$r1 uncached=$r2 cached=$r3"
			fi
		done
	done
	expect OK root "root passes every pattern" stat "$B/p6/l1/l2/l3/target"
	# a changed acl takes effect at once on the cached path
	setacl 'user:1002:x::allow' "$B/p0/l1/l2"
	expect DENIED alice "acl replaced: alice loses the cached lookup at once" stat "$B/p0/l1/l2/l3/target"
	expect OK bob "acl replaced: bob gains the lookup at once" stat "$B/p0/l1/l2/l3/target"
	S chmod 0700 "$B/p1/l1/l2"
	expect DENIED bob "chmod 0700 (group mask empty) takes effect at once" stat "$B/p1/l1/l2/l3/target"
	S "$SETRICHACL" --remove "$B/p7/l1/l2"
	S chmod 0711 "$B/p7/l1/l2"
	expect OK alice "acl removed, mode 0711: lookup allowed at once" stat "$B/p7/l1/l2/l3/target"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	expect DENIED alice "after the changes, uncached: alice still refused" stat "$B/p0/l1/l2/l3/target"
	expect OK bob "after the changes, uncached: bob allowed" stat "$B/p0/l1/l2/l3/target"

	# lookups racing with acl replacement (cached acls freed under RCU)
	local stop=$B/stop k3
	(
		while [ ! -e "$stop" ]; do
			for k3 in 1 2 3 4 5 6 7 8 9 10; do
				kt_as bob stat "$B/p0/l1/l2/l3/target" >/dev/null
			done
		done
	) &
	local racer=$!
	for k3 in $(seq 1 40); do
		"$SETRICHACL" --set "user:1002:x::allow user:$((3000 + k3)):r::allow" "$B/p0/l1/l2"
		"$SETRICHACL" --set "user:1001:x::allow user:$((3000 + k3)):r::allow" "$B/p0/l1/l2"
	done
	touch "$stop"
	wait "$racer"
	expect OK alice "after 80 acl replacements racing with lookups: the last acl holds" \
		stat "$B/p0/l1/l2/l3/target"
	expect DENIED bob "after 80 acl replacements racing with lookups: bob refused" \
		stat "$B/p0/l1/l2/l3/target"
}

# Little-endian hex helpers for building xattr values (algorithms.md 8).
le16() { printf '%02x%02x' $(( $1 & 255 )) $(( ($1 >> 8) & 255 )); }
le32() { printf '%02x%02x%02x%02x' $(( $1 & 255 )) $(( ($1 >> 8) & 255 )) \
	$(( ($1 >> 16) & 255 )) $(( ($1 >> 24) & 255 )); }
xhdr() {	# version flags count owner_mask group_mask other_mask
	printf '%02x%02x%s%s%s%s' "$1" "$2" "$(le16 "$3")" "$(le32 "$4")" "$(le32 "$5")" "$(le32 "$6")"
}
xent() {	# type flags mask id
	printf '%s%s%s%s' "$(le16 "$1")" "$(le16 "$2")" "$(le32 "$3")" "$(le32 "$4")"
}

# §3 item 14: invalid xattr values get EINVAL and change nothing; the kernel
# log stays clean.  The validity rules are those of algorithms.md section 8.
t_invalid() {
	group_begin K-INVAL "§3.14 invalid system.richacl values: EINVAL, nothing changed"
	require_richacl || return
	local B=$R/invalid
	fresh_dir "$B"
	echo x >"$B/f"
	mkdir "$B/d"
	# user:1002:r::allow, masks r/r/-
	local good
	good=$(xhdr 0 0 1 1 1 0)$(xent 0 0 1 1002)
	expect OK root "valid value accepted" setxattr "$B/f" system.richacl "$good"
	check_eq "the stored value reads back byte for byte" "$good" "$(xattr_of "$B/f")"
	expect OK root "valid value accepted on a directory" setxattr "$B/d" system.richacl "$good"
	local mode_f mode_d
	mode_f=$(mode_of "$B/f")
	mode_d=$(mode_of "$B/d")
	local -a name=() val=()
	add() { name+=("$1"); val+=("$2"); }
	add "8 bytes, shorter than the header" 0000000000000000
	add "15 bytes" "${good:0:30}"
	add "version 1" "$(xhdr 1 0 1 1 1 0)$(xent 0 0 1 1002)"
	add "count 2 with one entry" "$(xhdr 0 0 2 1 1 0)$(xent 0 0 1 1002)"
	add "count 65535" "$(xhdr 0 0 65535 1 1 0)$(xent 0 0 1 1002)"
	add "entry truncated" "$(xhdr 0 0 1 1 1 0)$(xent 0 0 1 1002 | cut -c1-12)"
	add "stray non-NUL byte after the entries" "${good}41"
	add "string area without unmapped entries" "${good}00"
	add "special who with id 3" "$(xhdr 0 0 1 1 1 0)$(xent 0 0x4000 1 3)"
	add "acl flag 0x08" "$(xhdr 0 8 1 1 1 0)$(xent 0 0 1 1002)"
	add "acl flag 0x10" "$(xhdr 0 0x10 1 1 1 0)$(xent 0 0 1 1002)"
	add "entry flag 0x10" "$(xhdr 0 0 1 1 1 0)$(xent 0 0x10 1 1002)"
	add "entry flag 0x8000" "$(xhdr 0 0 1 1 1 0)$(xent 0 0x8000 1 1002)"
	add "entry mask bit 0x800" "$(xhdr 0 0 1 1 1 0)$(xent 0 0 0x801 1002)"
	add "entry mask bit 0x200000" "$(xhdr 0 0 1 1 1 0)$(xent 0 0 0x200001 1002)"
	add "owner mask bit 0x800" "$(xhdr 0 0 1 0x801 1 0)$(xent 0 0 1 1002)"
	add "other mask bit 0x80000000" "$(xhdr 0 0 1 1 1 0x80000000)$(xent 0 0 1 1002)"
	add "entry type 2" "$(xhdr 0 0 1 1 1 0)$(xent 2 0 1 1002)"
	add "unmapped entry without identifier" "$(xhdr 0 0 1 1 1 0)$(xent 0 0x2000 1 0)"
	add "unmapped identifier not NUL-terminated" "$(xhdr 0 0 1 1 1 0)$(xent 0 0x2000 1 0)616263"
	add "two unmapped entries, one identifier" \
		"$(xhdr 0 0 2 1 1 0)$(xent 0 0x2000 1 0)$(xent 0 0x2000 1 0)6100"
	local k t
	for k in "${!name[@]}"; do
		for t in f d; do
			expect EINVAL root "${name[$k]} ($t): EINVAL" setxattr "$B/$t" system.richacl "${val[$k]}"
		done
		if [ "$(xattr_of "$B/f")$(xattr_of "$B/d")" = "$good$good" ] &&
			[ "$(mode_of "$B/f") $(mode_of "$B/d")" = "$mode_f $mode_d" ]; then
			pass "${name[$k]}: acl and mode unchanged"
		else
			fail "${name[$k]}: acl and mode unchanged" "now $(xattr_of "$B/f") $(mode_of "$B/f")"
		fi
	done
	unset -f add
	check_text "setfattr(1) with an invalid value: Invalid argument" \
		"setfattr: $B/f: Invalid argument" \
		setfattr -n system.richacl -v "0x$(xhdr 0 0 1 1 1 0)$(xent 7 0 1 1002)" "$B/f"
	check_eq "setfattr(1) with an invalid value changed nothing" "$good" "$(xattr_of "$B/f")"
	expect OK bob "the old acl is still in force after the refused values" open "$B/f" r

	# positive controls: the other examples of algorithms.md section 8
	mkdir "$B/d2"
	expect OK root "section 8 example 2 accepted" setxattr "$B/d2" system.richacl \
		"$(xhdr 0 1 2 0 0 0)$(xent 1 3 0x23 1000)$(xent 0 0xc0 1 100)"
	# the value has empty masks and no masked flag: the kernel computes
	# the masks, so that the mode shows what the acl grants (K-MASKS-BOUND)
	check_text "section 8 example 2 reads back, with computed masks" "$(raw_text d2 a r r "" \
		'user:1000:rwx:fd:deny' 'group:100:r:a:allow')" gra_in "$B" --raw --numeric-ids d2
	check_eq "section 8 example 2: mode from the computed masks" 440 "$(mode_of "$B/d2")"
	echo x >"$B/u"
	expect OK root "section 8 unmapped example (user:joe@x) accepted" setxattr "$B/u" system.richacl \
		"$(xhdr 0 0 1 0 0 0)$(xent 0 0x2000 1 0)6a6f65407800"
	check_text "unmapped example reads back" "$(raw_text u "" "" "" "" 'user:joe@x:r:u:allow')" \
		gra_in "$B" --raw --numeric-ids u

	# large acls: 300 entries (3616 bytes, in an external xattr block) are
	# stored; 400 entries (4816 bytes) do not fit a 4 KiB block and must be
	# refused without changing anything
	local big="" k2
	for k2 in $(seq 1 300); do big+=$(xent 0 0 1 $((5000 + k2))); done
	echo x >"$B/big"
	expect OK root "a 300-entry acl is stored" setxattr "$B/big" system.richacl "$(xhdr 0 0 300 1 1 0)$big"
	check_eq "the 300-entry acl reads back byte for byte" "$(xhdr 0 0 300 1 1 0)$big" "$(xattr_of "$B/big")"
	expect OK 5300 "the 300-entry acl is in force (its last entry grants uid 5300 read)" open "$B/big" r
	expect DENIED carol "the 300-entry acl is in force (no entry for carol)" open "$B/big" r
	for k2 in $(seq 301 400); do big+=$(xent 0 0 1 $((5000 + k2))); done
	expect ERROR root "a 400-entry acl (does not fit) is refused" \
		setxattr "$B/f" system.richacl "$(xhdr 0 0 400 1 1 0)$big"
	check_eq "the refused large acl changed nothing" "$good" "$(xattr_of "$B/f")"

	local bad
	bad=$(dmesg | grep -E 'BUG:|WARNING:|Oops|general protection|Call Trace|UBSAN|KASAN|refcount_t:' | head)
	if [ -z "$bad" ]; then
		pass "dmesg has no BUG/WARNING/Oops after the invalid values"
	else
		fail "dmesg has no BUG/WARNING/Oops after the invalid values" "found" "$bad"
	fi
}

# M9 and the kernel contract: unmapped identifiers are stored on ext4 and
# never match a process (not even through the everyone@ branch).
t_unmapped() {
	group_begin K-UNMAPPED "M9 unmapped identifiers match nobody"
	require_richacl || return
	local B=$R/unmapped
	fresh_dir "$B"
	local f
	for f in f1 f2 f3; do echo x >"$B/$f"; done
	setacl 'user:S-1-5-21-1-2-3-1001:rwp:u:allow everyone@:r::allow' "$B/f1"
	expect OK root "an acl with an unmapped user entry is stored" getxattr "$B/f1" system.richacl
	check_eq "getrichacl shows the unmapped entry" \
		"user:S-1-5-21-1-2-3-1001:rwp-------------:u:allow" \
		"$(gra_in "$B" --raw --numeric-ids f1 | grep -o 'user:S-1-5-21-1-2-3-1001:.*')"
	expect DENIED alice "unmapped user entry grants alice nothing" open "$B/f1" w
	expect OK alice "everyone@ still grants read" open "$B/f1" r
	expect DENIED bob "unmapped user entry grants bob nothing" open "$B/f1" w
	setacl 'group:S-1-5-21-1-2-3-2000:rwp:u:allow everyone@:r::allow' "$B/f2"
	expect DENIED bob "unmapped group entry grants staff members nothing" open "$B/f2" w
	setacl 'user:S-1-5-32-545:w:u:deny everyone@:rwp::allow' "$B/f3"
	expect OK alice "an unmapped deny entry denies nobody" open "$B/f3" w
	expect OK carol "an unmapped deny entry denies nobody (carol)" open "$B/f3" w
	mkdir "$B/d"
	setacl 'user:S-1-5-21-9:r:fdu:allow owner@:rwpxd::allow' "$B/d"
	touch "$B/d/child"
	check_eq "an unmapped entry is inherited with its identifier" \
		"user:S-1-5-21-9:r---------------:u:allow" \
		"$(gra_in "$B/d" --raw --numeric-ids child | grep -o 'user:S-1-5-21-9:.*')"
}
