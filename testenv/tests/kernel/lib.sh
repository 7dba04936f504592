# Helpers for the in-guest kernel suite (sourced by run.sh; bash).
#
# Output is one line per check:
#     ok <ID> [<rule>] <description>
#     FAIL <ID> [<rule>] <description>: <details>
# optionally followed by "# ..." diagnostic lines, and a final
#     N passed, N failed
# Check names are <GROUP>/<name>, where <name> is the check's description in
# lower case with every run of other characters than letters, digits and
# "_" turned into one "-".  A name stays the same when checks are added or
# moved; a description that repeats within a group gets "~2", "~3", ... in
# the order the repeats run.

PASS=0
FAIL=0
GROUP=""
RULE=""
declare -A SEEN=()

# Users of SEMANTICS.md section 2 (created in the guest by testenv/guest/init.sh):
# name -> "uid gid supplementary-gids" (staff = 2000 = {bob, carol}).
STAFF=2000
declare -A CRED=([alice]="1001 1001 " [bob]="1002 1002 $STAFF" [carol]="1003 1003 $STAFF")

group_begin() {	# ID "rule reference"
	GROUP=$1
	RULE=$2
}

# check_name DESCRIPTION: sets NAME to <GROUP>/<name> (see above).
check_name() {
	local n=${1,,}
	n=${n//[^a-z0-9_]/-}
	while [[ $n == *--* ]]; do
		n=${n//--/-}
	done
	n=${n#-}
	n=${n%-}
	NAME=$GROUP/$n
	SEEN[$NAME]=$((${SEEN[$NAME]:-0} + 1))
	[ "${SEEN[$NAME]}" = 1 ] || NAME=$NAME~${SEEN[$NAME]}
}

pass() {	# description
	local NAME
	PASS=$((PASS + 1))
	check_name "$1"
	echo "ok $NAME [$RULE] $1"
}

fail() {	# description details [diagnostic lines...]
	local desc=$1 details=$2
	shift 2
	local NAME
	FAIL=$((FAIL + 1))
	check_name "$desc"
	echo "FAIL $NAME [$RULE] $desc: $details"
	local l
	for l in "$@"; do
		printf '%s\n' "$l" | sed 's/^/#   /'
	done
}

# _cred WHO: set _u _g _G (uid, gid, comma-separated supplementary gids) for
# a named test user or a bare numeric uid (gid = uid, no supplementary groups).
_cred() {
	case "$1" in
	[0-9]*) _u=$1 _g=$1 _G="" ;;
	*)
		[ -n "${CRED[$1]+set}" ] || { echo "unknown test user $1" >&2; return 2; }
		read -r _u _g _G <<<"${CRED[$1]}"
		;;
	esac
}

# Run a command as root or as a test user (setpriv: all capabilities dropped).
as() {
	local who=$1 _u _g _G
	shift
	[ "$who" = root ] && { "$@"; return; }
	_cred "$who" || return 2
	if [ -n "$_G" ]; then
		setpriv --reuid="$_u" --regid="$_g" --groups="$_G" "$@"
	else
		setpriv --reuid="$_u" --regid="$_g" --clear-groups "$@"
	fi
}

# The kt helper as root or as a test user (kt switches credentials itself,
# which costs one exec instead of two: setpriv is slow under TCG).
kt_as() {
	local who=$1 _u _g _G
	shift
	[ "$who" = root ] && { "$KT" "$@"; return; }
	_cred "$who" || return 2
	"$KT" -u "$_u" -g "$_g" -G "$_G" "$@"
}

# kt_cap WHO CAPS kt-args...
#   The kt helper holding exactly the capabilities CAPS (kt -C: a comma-
#   separated list without the CAP_ prefix, e.g. dac_override, or "none").
#   WHO root: uid 0 with the bounding, permitted, effective and inheritable
#   sets reduced to CAPS; WHO a test user: that user with CAPS in its
#   permitted, effective, inheritable and ambient sets.
kt_cap() {
	local who=$1 caps=$2 _u _g _G
	shift 2
	[ "$who" = root ] && { "$KT" -C "$caps" "$@"; return; }
	_cred "$who" || return 2
	"$KT" -u "$_u" -g "$_g" -G "$_G" -C "$caps" "$@"
}

_outcome_matches() {	# want got
	case "$1" in
	DENIED) [ "$2" = EACCES ] || [ "$2" = EPERM ] ;;
	ERROR) [[ $2 == E* ]] ;;
	*) [ "$1" = "$2" ] ;;
	esac
}

# expect WANT WHO "description" kt-op args...
#   Runs one system call through the kt helper as WHO.  WANT is OK, DENIED
#   (EACCES or EPERM), ERROR (any errno), or an errno name.
expect() {
	local want=$1 who=$2 desc=$3
	shift 3
	_expect_outcome "$want" "$desc" "as $who: $*" "$(kt_as "$who" "$@" 2>&1 | head -n1)"
}

# _expect_outcome WANT "description" "what ran" OUTPUT-LINE
#   The check behind the expect* helpers: the first word of the helper's
#   output line is its outcome (OK or an errno name).
_expect_outcome() {
	local want=$1 desc=$2 what=$3 got=${4%% *}
	if _outcome_matches "$want" "$got"; then
		pass "$desc"
	else
		fail "$desc" "$what -> expected $want, got ${got:-nothing}"
	fi
}

# expect_cap WANT WHO CAPS "description" kt-op args...
#   As expect, with the helper run as kt_cap WHO CAPS.
expect_cap() {
	local want=$1 who=$2 caps=$3 desc=$4
	shift 4
	_expect_outcome "$want" "$desc" "as $who with capabilities $caps: $*" \
		"$(kt_cap "$who" "$caps" "$@" 2>&1 | head -n1)"
}

# expect_sh WANT WHO "description" shell-command [args...]
#   Runs "bash -c shell-command _ args..." as WHO.  WANT is OK (exit 0) or
#   DENIED (non-zero exit and "Permission denied" or "Operation not permitted"
#   on stderr).
expect_sh() {
	local want=$1 who=$2 desc=$3 script=$4
	shift 4
	local err rc
	err=$(as "$who" bash -c "$script" _ "$@" 2>&1 >/dev/null)
	rc=$?
	local got=OK
	if [ $rc -ne 0 ]; then
		case "$err" in
		*"Permission denied"*|*"Operation not permitted"*) got=DENIED ;;
		*) got="exit $rc" ;;
		esac
	fi
	if [ "$got" = "$want" ]; then
		pass "$desc"
	else
		fail "$desc" "as $who: $script -> expected $want, got $got" "$err"
	fi
}

check_eq() {	# "description" expected actual
	if [ "$2" = "$3" ]; then
		pass "$1"
	else
		fail "$1" "expected '$2', got '$3'"
	fi
}

# check_text "description" "expected text" command [args...]
#   Compares stdout+stderr of the command (run as root) with the text.
check_text() {
	local desc=$1 want=$2
	shift 2
	local got
	got=$("$@" 2>&1)
	if [ "$got" = "$want" ]; then
		pass "$desc"
	else
		fail "$desc" "output of '$*' differs (- expected, + actual)" \
			"$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | grep '^[<>]' |
				sed -e 's/^</-/' -e 's/^>/+/')"
	fi
}

# Setup step (as root): silent on success, a FAIL line on failure (a setup
# step the kernel refuses is a finding too).
S() {
	local out
	if ! out=$("$@" 2>&1); then
		fail "setup: $*" "failed" "$out"
		return 1
	fi
}

# setacl TEXT PATH...  (setup: setrichacl --set as root)
setacl() {
	local text=$1
	shift
	S "$SETRICHACL" --set "$text" "$@"
}

lines() { printf '%s\n' "$@"; }

# getrichacl run inside a directory, so that the printed names are short.
gra_in() {	# dir getrichacl-args...
	local dir=$1
	shift
	(cd "$dir" && "$GETRICHACL" "$@")
}

mode_of() { stat -c %a "$1"; }
owner_of() { stat -c %u:%g "$1"; }

# The raw system.richacl value in hex, or the errno name when there is none.
xattr_of() {
	local out
	out=$("$KT" getxattr "$1" system.richacl)
	case "$out" in
	"OK "*) echo "${out#OK }" ;;
	*) echo "$out" ;;
	esac
}

# Groups that need the richacl file system call this first.
require_richacl() {
	if [ "$RICH_OK" != 1 ]; then
		FAIL=$((FAIL + 1))
		echo "FAIL $GROUP/all [$RULE] not run: $RICH_WHY"
		return 1
	fi
	if [ ! -x "$SETRICHACL" ] || [ ! -x "$GETRICHACL" ]; then
		FAIL=$((FAIL + 1))
		echo "FAIL $GROUP/all [$RULE] not run: getrichacl/setrichacl not found in $TOOLS"
		return 1
	fi
}

# A fresh, empty directory (mode 0755) for a group: fresh_dir PATH
fresh_dir() {
	rm -rf "$1"
	mkdir -p "$1"
	chmod 0755 "$1"
}
