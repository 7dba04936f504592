#!/bin/bash
# The benchmark command (bench/README.md): what richacls cost, side by side.
#
#   testenv/run-bench.sh [--quick] [--groups "walk smb smbwb work map nfs"] [--kernel BZIMAGE]
#                        [--walk-rounds N] [--smb-runs N] [--smb-files N]
#                        [--icount] [--doc FILE | --no-doc]
#
# 1. gets what it needs: host packages (testenv/install-deps.sh), the guest
#    kernel ($RICHACL_KERNEL, --kernel, or testenv/kernel-build.sh, which
#    prints the cached bzImage; if that fails,
#    /var/cache/richacl/kernel/current/bzImage), the library, tools and benchmarks
#    (testenv/build.sh: build/bench/path_walk, build/bench/map_roundtrip),
#    the SMB client bench/smb/smb_meta.c (cached by its hash), the Samba
#    module (vfs_richacl/build.sh), fresh disk images (testenv/mkimage.sh);
# 2. boots the guest (testenv/guest-run.sh) running bench/guest-bench.sh:
#    the path walk group, the SMB group (smbd on passdb), the smbwb group
#    (the same with winbindd allocating the ids), the workload group
#    (browsing, copying, a local find walk) and the NFS group;
# 3. runs the mapping group on the host (callgrind instruction counts of
#    map_roundtrip --insns; no kernel involved);
# 4. prints the table of ratios (bench/report.py) and writes it, with the
#    date, the machine and the profiles of every missed target, to
#    docs/bench-results-<date>.md (not for --quick, whose figures are too
#    short to mean anything, unless --doc is given).
#
# Every figure is the median of repeated runs, and every baseline comes from
# the same guest boot, interleaved with what it is compared with.
# With --icount the guest runs under TCG with instruction counting
# (testenv/guest-run.sh --icount 0): its clock advances one nanosecond per
# guest instruction, so every guest figure counts instructions instead of
# time, and the other load of the shared host does not enter them; perf's
# cpu-clock samples in the guest then fall per instruction executed.  Real
# hardware spends different times on different instructions (cache misses,
# atomics, branches), so the two kinds of run answer different questions:
# where the time goes on this emulator, and how much work each path does.
# Results stay in /var/cache/richacl/bench/runs/<date-time>/.
# A full run takes about 45 minutes on 2 cores under TCG; --quick about 5.
# Exit status: 0 if every group produced its figures (missed targets are
# reported, not failures), 1 otherwise.
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
CACHE=/var/cache/richacl/bench
groups="walk smb smbwb work map nfs" quick=0 kernel=${RICHACL_KERNEL:-} doc="" nodoc=0 icount=0
guest_args=()
usage() { sed -n '2,/^set -uo/p' "$0" | sed -e '/^set -uo/d' -e 's/^# \{0,1\}//'; exit "${1:-0}"; }
while [ $# -gt 0 ]; do
	case "$1" in
	--quick) quick=1; guest_args+=(--quick); shift ;;
	--groups) groups=${2:?}; shift 2 ;;
	--kernel) kernel=${2:?}; shift 2 ;;
	--walk-rounds|--smb-runs|--smb-files) guest_args+=("$1" "${2:?}"); shift 2 ;;
	--icount) icount=1; shift ;;
	--doc) doc=${2:?}; shift 2 ;;
	--no-doc) nodoc=1; shift ;;
	-h|--help) usage 0 ;;
	*) echo "run-bench: unknown argument '$1'" >&2; usage 2 >&2 ;;
	esac
done
for g in $groups; do
	case "$g" in walk|smb|smbwb|work|map|nfs) ;; *) echo "run-bench: unknown group '$g'" >&2; exit 2 ;; esac
done
has_group() { [[ " $groups " == *" $1 "* ]]; }

stamp=$(date +%Y%m%d-%H%M%S)
run=$CACHE/runs/$stamp
mkdir -p "$run/bin" "$run/profiles"
note() { echo "bench: $*" >&2; }
die() { echo "bench: error: $*" >&2; exit 1; }
note "results in $run"

{
	echo "date $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "host $(uname -n) $(uname -r)"
	grep -m1 'model name' /proc/cpuinfo | sed 's/^model name[[:space:]]*: /cpu /'
	echo "cores $(nproc)"
	echo "memory_gib $(awk '/MemTotal/ { printf "%.0f", $2 / 1048576 }' /proc/meminfo)"
	echo "load_start $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "qemu $(qemu-system-x86_64 --version 2>/dev/null | head -n1)"
	echo "samba $(dpkg-query -W -f='${Version}' samba 2>/dev/null)"
	echo "gcc $(gcc -dumpfullversion 2>/dev/null)"
	echo "valgrind $(valgrind --version 2>/dev/null)"
	echo "quick $quick"
} >"$run/host-env.txt"

bash testenv/install-deps.sh >"$run/install-deps.log" 2>&1 ||
	die "testenv/install-deps.sh failed (see $run/install-deps.log)"
bash testenv/build.sh >"$run/build.log" 2>&1 || die "testenv/build.sh failed (see $run/build.log)"
for p in build/bench/path_walk build/bench/map_roundtrip build/bench/nfs_getattr \
	build/setrichacl build/getrichacl; do
	[ -x "$p" ] || die "$p was not built (see $run/build.log)"
done
cp build/bench/path_walk build/bench/nfs_getattr "$run/bin/"

if has_group walk || has_group smb || has_group smbwb || has_group work || has_group nfs; then
	if [ -z "$kernel" ]; then
		if ! kernel=$(bash testenv/kernel-build.sh 2>"$run/kernel-build.log" | tail -n1) ||
			[ -z "$kernel" ]; then
			kernel=/var/cache/richacl/kernel/current/bzImage
			note "testenv/kernel-build.sh failed (see $run/kernel-build.log); using $kernel"
		fi
	fi
	[ -r "$kernel" ] || die "no guest kernel at '$kernel'"
	kernel=$(readlink -f "$kernel")
	echo "kernel $kernel $(sha256sum "$kernel" | cut -c1-16)" >>"$run/host-env.txt"
	note "kernel $kernel"

	src=bench/smb/smb_meta.c
	smb_meta=$CACHE/bin/smb_meta-$( (cat "$src"; pkg-config --modversion smbclient) |
		sha256sum | cut -c1-16)
	if [ ! -x "$smb_meta" ]; then
		mkdir -p "$CACHE/bin"
		# shellcheck disable=SC2046
		gcc -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter -Werror \
			$(pkg-config --cflags smbclient) -o "$smb_meta.tmp" "$src" \
			$(pkg-config --libs smbclient) || die "cannot compile $src"
		mv "$smb_meta.tmp" "$smb_meta"
	fi
	cp "$smb_meta" "$run/bin/smb_meta"

	module=""
	if has_group smb || has_group smbwb || has_group work; then
		module=$(bash vfs_richacl/build.sh 2>"$run/module-build.log" | tail -n1)
		[ -r "$module" ] || die "vfs_richacl/build.sh failed (see $run/module-build.log)"
		echo "module $module" >>"$run/host-env.txt"
	fi

	# the positive control of the RCU-walk counting: a tree on the guest's
	# root file system (this host's, seen through 9p and overlayfs)
	control=$CACHE/control
	if [ ! -f "$control/d1/d2/d3/d4/d5/d6/d7/d8/d9/d10/f7" ]; then
		d=$control
		for i in $(seq 1 10); do d=$d/d$i; done
		mkdir -p "$d"
		for f in $(seq 0 7); do echo x >"$d/f$f"; done
		chmod -R a+rX "$control"
	fi

	# the copy workload writes 125 MiB per run and share: 3 runs of one
	# share to the richacl image, of two to the plain one (sparse files)
	mapfile -t imgs < <(RICHACL_IMAGE_MB=${RICHACL_IMAGE_MB:-1024} \
		bash testenv/mkimage.sh "$run/images") || die "testenv/mkimage.sh failed"
	[ ${#imgs[@]} -eq 2 ] || die "testenv/mkimage.sh did not make two images"

	gg=()
	has_group walk && gg+=(walk)
	has_group smb && gg+=(smb)
	has_group smbwb && gg+=(smbwb)
	has_group work && gg+=(work)
	has_group nfs && gg+=(nfs)
	gargs=(--out /results/bench --bin "$run/bin" --tools "$repo/build" --control "$control"
		--groups "${gg[*]}")
	[ -n "$module" ] && gargs+=(--module "$module")
	note "guest: ${gg[*]} (log: $run/guest.log)"
	t=$SECONDS
	grun=()
	if [ "$icount" = 1 ]; then
		grun+=(--icount 0)
		echo "icount 0" >>"$run/host-env.txt"
	fi
	bash testenv/guest-run.sh "${grun[@]}" --kernel "$kernel" --disk "${imgs[0]}" --disk "${imgs[1]}" \
		--results "$run/guest" --mem 1536 --timeout "${RICHACL_BENCH_TIMEOUT:-5400}" -- \
		bash "$repo/bench/guest-bench.sh" "${gargs[@]}" "${guest_args[@]}" \
		>"$run/guest.log" 2>&1
	grc=$?
	grep -o 'accel [a-z]*' "$run/guest.log" | head -n1 | sed 's/^/guest_/' >>"$run/host-env.txt"
	note "guest exit $grc after $((SECONDS - t)) s"
	[ "$grc" -eq 0 ] || note "the guest run had problems; last lines of $run/guest.log:
$(tail -n 15 "$run/guest.log" | sed 's/^/  | /')"
	rm -rf "$run/images"
fi

if has_group map; then
	note "map: callgrind"
	sizes="3 10 30 100 300"
	trips=20
	[ "$quick" = 1 ] && trips=3
	: >"$run/map-insns.txt"
	for n in $sizes; do
		out=$run/callgrind.$n
		valgrind --tool=callgrind --callgrind-out-file="$out" --collect-atstart=no \
			--toggle-collect=measured_round_trips build/bench/map_roundtrip --insns "$n" "$trips" \
			>/dev/null 2>"$run/callgrind.$n.log" || die "callgrind failed (see $run/callgrind.$n.log)"
		callgrind_annotate --inclusive=yes "$out" 2>/dev/null |
			awk -v n="$n" -v t="$trips" '
				/:sd_to_xattr[. ]/ && !set { gsub(",", "", $1); set = $1 }
				/:xattr_to_sd[. ]/ && !get { gsub(",", "", $1); get = $1 }
				END { printf "insns %s %s %s %s\n", n, t, set, get }' >>"$run/map-insns.txt"
	done
	callgrind_annotate "$run/callgrind.100" 2>/dev/null | sed -n '1,60p' >"$run/profiles/map-100.txt"
	if [ "$quick" = 1 ]; then
		build/bench/map_roundtrip --runs 3 --seconds 0.1 >"$run/map-time.txt" 2>&1
	else
		build/bench/map_roundtrip >"$run/map-time.txt" 2>&1
	fi
fi
echo "load_end $(cut -d' ' -f1-3 /proc/loadavg)" >>"$run/host-env.txt"

report=(python3 bench/report.py "$run" --groups "$groups")
if [ "$nodoc" = 0 ] && { [ "$quick" = 0 ] || [ -n "$doc" ]; }; then
	[ -n "$doc" ] || doc=docs/bench-results-$(date +%Y-%m-%d).md
	report+=(--markdown "$doc")
fi
"${report[@]}"
