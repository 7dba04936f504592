#!/bin/bash
# Build the vfs_richacl Samba module so that Debian's packaged smbd can load it.
#
#   vfs_richacl/build.sh            -> prints the path of the built richacl.so
#
# Idempotent.  Progress goes to stderr, the module path alone to stdout.
#
# How (see ../shared/reference/feasibility.md, "Samba module build"):
#  1. testenv/samba-source.sh gives Debian's patched Samba tree (cached).
#  2. A configured copy of it lives in $CACHE/samba-build-<key>, where <key>
#     hashes the packaged Samba version and the configure options below.
#     The copy is branded like Debian's build (VERSION vendor suffix
#     "Debian", so the symbol versions are SAMBA_<ver>_DEBIAN_SAMBA4), uses
#     Debian's FHS paths, no rpath, and lists vfs_richacl as a shared module.
#  3. The module sources and the mapping library sources are synced into
#     source3/modules/vfs_richacl/ of that copy (only changed files are
#     touched, so waf rebuilds only what changed) and the one target is built.
#  4. The result is checked (symbol versions, no RUNPATH/RPATH,
#     samba_init_module exported) and copied to
#     $CACHE/module-<key2>/richacl.so, <key2> hashing <key> and the sources.
#     If that file exists already nothing is rebuilt.
#
# The mapping library is compiled into the module (not linked from the
# project's libricaclmap): it is small, has no Samba dependency, and this way
# the .so that smbd loads depends on nothing outside Samba's own libraries.
# The module is compiled with -fvisibility=hidden: it exports only
# samba_init_module, so the library's symbols cannot clash with anything
# else smbd loads.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
CACHE=${RICHACL_CACHE:-/var/cache/richacl}
JOBS=${JOBS:-2}

log() { echo "vfs_richacl/build.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
samba_ver=$(dpkg-query -W -f='${Version}' samba)

# Debian's FHS layout (debian/rules config-args), with the features the module
# does not need switched off.  None of the switched-off features changes the
# layout of a structure the module uses (checked against source3/include and
# source3/smbd headers); profiling stays on as in Debian's build.
CONFIGURE_OPTS=(
	--prefix=/usr
	--enable-fhs
	--sysconfdir=/etc
	--localstatedir=/var
	--libexecdir=/usr/libexec
	--libdir=/usr/lib/$multiarch
	--datadir=/usr/share
	--with-modulesdir=/usr/lib/$multiarch/samba
	--with-privatedir=/var/lib/samba/private
	--with-smbpasswd-file=/etc/samba/smbpasswd
	--with-piddir=/run/samba
	--with-lockdir=/run/samba
	--with-sockets-dir=/run/samba
	--with-statedir=/var/lib/samba
	--with-cachedir=/var/cache/samba
	--with-profiling-data
	--disable-rpath
	--disable-rpath-install
	--with-shared-modules=vfs_richacl
	--bundled-libraries=NONE,ldb
	--without-ad-dc
	--without-ldap
	--without-ads
	--without-json
	--disable-python
	--without-systemd
	--without-winbind
	--without-pam
	--without-gpgme
	--disable-avahi
	--disable-spotlight
	--disable-cephfs
	--disable-glusterfs
	--without-libarchive
)

# Debian's hardening flags, as debian/rules passes them to configure (minus
# -ffile-prefix-map, which depends on the current directory).
debflags() {
	DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get "$1" |
		sed -E 's/ ?-ffile-prefix-map=[^ ]*//g'
}
BUILDFLAGS=(
	"CFLAGS=$(debflags CFLAGS)"
	"CPPFLAGS=$(debflags CPPFLAGS)"
	"LDFLAGS=$(debflags LDFLAGS)"
)

# Bump when the way the tree is prepared changes (hook, branding).
PREP_VERSION=1

key=$(printf '%s\n' "$samba_ver" "prep=$PREP_VERSION" "${CONFIGURE_OPTS[@]}" "${BUILDFLAGS[@]}" |
	sha256sum | cut -c1-16)
tree="$CACHE/samba-build-$key"
stamp="$tree/.richacl-configured"

# Module sources: what goes into source3/modules/vfs_richacl/.
module_files() {
	(cd "$repo" && ls vfs_richacl/vfs_richacl.c vfs_richacl/wscript_build \
		mapping/src/*.c mapping/include/*.h)
}

src_hash=$( (cd "$repo" && module_files | sort | xargs sha256sum) | sha256sum | cut -c1-16)
out_dir="$CACHE/module-$key-$src_hash"
out="$out_dir/richacl.so"

if [ -f "$out" ]; then
	log "up to date"
	echo "$out"
	exit 0
fi

mkdir -p "$CACHE"
exec 9>"$CACHE/samba-build-$key.lock"
flock 9

# ---- 1+2: configured tree --------------------------------------------------
if [ ! -f "$stamp" ]; then
	src=$(bash "$repo/testenv/samba-source.sh")
	log "preparing $tree from $src"
	rm -rf "$tree"
	cp -a "$src" "$tree"

	# Debian's branding (debian/rules "branding" step).
	sed -i -E 's/^(SAMBA_VERSION_VENDOR_SUFFIX)=.*/\1=Debian/' "$tree/VERSION"
	grep -q '^SAMBA_VERSION_VENDOR_SUFFIX=Debian$' "$tree/VERSION" ||
		die "could not brand VERSION"

	# Hook our directory into the module build.
	printf '\n# vfs_richacl (added by richacl vfs_richacl/build.sh)\nbld.RECURSE('"'"'vfs_richacl'"'"')\n' \
		>> "$tree/source3/modules/wscript_build"
	mkdir -p "$tree/source3/modules/vfs_richacl"

	log "configuring (about a minute)"
	t0=$(date +%s)
	if ! (cd "$tree" && env "${BUILDFLAGS[@]}" PYTHONHASHSEED=1 PYTHON=python3 ./buildtools/bin/waf -j1 -C \
		configure "${CONFIGURE_OPTS[@]}") > "$tree/richacl-configure.log" 2>&1; then
		tail -n 30 "$tree/richacl-configure.log" >&2
		die "configure failed, log: $tree/richacl-configure.log"
	fi
	grep -q 'VFS_SHARED: .*vfs_richacl' "$tree/richacl-configure.log" ||
		die "configure did not list vfs_richacl as a shared module"
	log "configured in $(( $(date +%s) - t0 )) s"
	touch "$stamp"
fi

# ---- 3: sync sources and build ----------------------------------------------
dst="$tree/source3/modules/vfs_richacl"
mkdir -p "$dst/mapping/src" "$dst/mapping/include"
# Copy only files whose content changed; drop files that disappeared.
# vfs_richacl/X goes to X, mapping/... keeps its relative path.
sync_file() {
	local to=${1#vfs_richacl/}
	if ! cmp -s "$repo/$1" "$dst/$to"; then
		cp "$repo/$1" "$dst/$to"
	fi
}
for f in $(module_files); do
	sync_file "$f"
done
for f in "$dst"/mapping/src/*.c "$dst"/mapping/include/*.h; do
	[ -e "$f" ] || continue
	rel=${f#"$dst"/}
	[ -e "$repo/$rel" ] || rm -f "$f"
done

log "building vfs_richacl"
t0=$(date +%s)
if ! (cd "$tree" && PYTHONHASHSEED=1 ./buildtools/bin/waf build \
	--targets=vfs_richacl -j"$JOBS") > "$tree/richacl-build.log" 2>&1; then
	grep -E 'error|warning' "$tree/richacl-build.log" | tail -n 40 >&2 || true
	tail -n 15 "$tree/richacl-build.log" >&2
	die "build failed, log: $tree/richacl-build.log"
fi
log "built in $(( $(date +%s) - t0 )) s"
if grep -n 'vfs_richacl/.*warning:' "$tree/richacl-build.log" >&2; then
	die "the module compiles with warnings (see above)"
fi

so=$(find "$tree/bin/default/source3/modules" -name 'libvfs_module_richacl.so' | head -n1)
[ -n "$so" ] || die "libvfs_module_richacl.so not found under bin/default/source3/modules"

# ---- 4: verify and publish ---------------------------------------------------
want_ver=$(sed -n -E 's/^SAMBA_VERSION_(MAJOR|MINOR|RELEASE)=//p' "$tree/VERSION" | paste -sd.)
want_tag="SAMBA_${want_ver}_DEBIAN_SAMBA4"
objdump -p "$so" > "$tree/richacl-objdump.txt"
grep -q "$want_tag" "$tree/richacl-objdump.txt" ||
	die "$so has no $want_tag version reference: smbd would refuse it"
if grep -E 'SAMBA_[0-9.]+_SAMBA4' "$tree/richacl-objdump.txt" >&2; then
	die "$so references an unbranded Samba symbol version"
fi
if grep -E '^\s+(RUNPATH|RPATH)' "$tree/richacl-objdump.txt" >&2; then
	die "$so carries an rpath into the build tree"
fi
nm -D --defined-only "$so" | grep -qw samba_init_module ||
	die "$so does not export samba_init_module"
if nm -D --defined-only "$so" | grep -E ' [TDRB] (richacl|richace|nt_)' >&2; then
	die "$so exports library symbols"
fi
# Every library that the module needs must exist on this system (smbd has
# its private library directory in its RUNPATH; the module needs no RUNPATH).
if LD_LIBRARY_PATH=/usr/lib/$multiarch/samba ldd "$so" | grep 'not found' >&2; then
	die "$so needs libraries the installed Samba does not provide"
fi

mkdir -p "$out_dir.tmp"
cp "$so" "$out_dir.tmp/richacl.so"
cp "$tree/richacl-objdump.txt" "$out_dir.tmp/objdump.txt"
rm -rf "$out_dir"
mv "$out_dir.tmp" "$out_dir"
log "verified: $want_tag, no rpath, samba_init_module exported"
echo "$out"
