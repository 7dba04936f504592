#!/bin/bash
# Build the Debian packages of the richacl project from this checkout.
#
#   bash packaging/build-debs.sh     -> prints the paths of the three .deb files
#
# Progress goes to stderr, the paths of the packages alone to stdout.
# packaging/README.md says what the packages contain, how to install them
# and what lintian says about them.
#
# In this order:
#
#   samba-vfs-richacl_<v>+samba<sv>-1_<arch>.deb
#       richacl.so in Samba's module directory
#       (/usr/lib/<multiarch>/samba/vfs/) and vfs_richacl(8).  The module is
#       built by vfs_richacl/build.sh against the installed samba package and
#       works with that build only (Samba checks the symbol versions), so the
#       package depends on exactly that version (Depends: samba (= <sv>)) and
#       its version carries it: <sv> is the samba version without its epoch,
#       e.g. 4.17.12+dfsg-0+deb12u4.  After a samba update, run this again.
#   richacl-tools_<v>-1_<arch>.deb
#       getrichacl and setrichacl in /usr/bin, getrichacl(1), setrichacl(1).
#       Built with the project's wscript and the waf of Debian's Samba source
#       (as testenv/build.sh does), but from a copy in the cache and with
#       Debian's build flags (dpkg-buildflags, hardening=+all): build/ stays
#       the developers' tree.
#   richacl-migrate_<v>-1_<arch>.deb
#       the offline acl_xattr -> richacl migration tool: tools/richacl-migrate-ntacl
#       as /usr/sbin/richacl-migrate-ntacl (Python 3, as it is in the
#       repository), its helper richacl-ntsd2xattr in /usr/lib/richacl/
#       (where the tool looks for it; built with getrichacl and setrichacl,
#       same flags, stripped) and richacl-migrate-ntacl(8).  Depends on
#       python3 and python3-samba.
#
# No -dev package.  The mapping library (build/librichaclmap.so*,
# mapping/include/*.h) is internal: the module compiles its sources in (and
# exports nothing but samba_init_module) and the tools link it statically, so
# no installed file needs librichaclmap.so.  Its headers are the project's
# working interface, changed together with their two users in one commit,
# and there is no soname/ABI policy (the wscript's vnum 0.1.0 has not changed
# since the skeleton; no symbols file).  Shipping them would promise an API
# that nobody maintains.  When another program needs the library, give it a
# soname and symbol policy first, then add librichaclmap0 and
# librichaclmap-dev.
#
# Version <v>: <VERSION of wscript>~git<date of HEAD, UTC yyyymmdd>.<7 hex of
# HEAD>, e.g. 0.1~git20261206.c07839f ("~": a snapshot sorts before the 0.1
# release).  If a packaged input differs from HEAD (uncommitted or untracked
# changes), "+dirty.<8 hex of the inputs>" is appended, so such a build never
# has the version of a commit.  Timestamps (file times, man page dates,
# changelog) are those of HEAD (SOURCE_DATE_EPOCH).
#
# Idempotent: the packages are built in $CACHE/debs/<key>.tmp and moved to
# $CACHE/debs/<key>/, where <key> hashes every input (sources, man pages,
# this script, the samba version, the maintainer, the tool versions).  If the
# packages for a key exist, nothing is rebuilt.  Nothing is written into the
# repository (the module's own cache is vfs_richacl/build.sh's).
#
# Each build checks its packages before it publishes them: contents and
# permissions, the module is the stripped built module (code identical), the
# tools run, the migration tool runs with its packaged helper (--help, and a
# --dry-run on a scratch tree if python3-samba is installed and we are root),
# every man page renders without a groff warning; and lintian
# runs if it is installed (its output goes to stderr and to
# $CACHE/debs/<key>/lintian.txt).  The packages are never installed here.
#
# Environment: RICHACL_CACHE (default /var/cache/richacl), JOBS (2),
# RICHACL_MAINTAINER ("Name <mail>"; default: git config user.name/email, else
# "richacl project <richacl@localhost>").
#
# Host packages needed (besides what vfs_richacl/build.sh and the waf build
# need: samba, build-essential, libcmocka-dev, python3, the Samba source and
# its build dependencies): dpkg-dev, binutils, git, xsltproc, docbook-xsl,
# man-db, groff-base, gzip, tar, coreutils, findutils, util-linux (flock);
# lintian is optional (apt-get install --no-install-recommends lintian), and
# so is python3-samba (without it the migration tool is not run here).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
CACHE=${RICHACL_CACHE:-/var/cache/richacl}
JOBS=${JOBS:-2}
MAN_XSL=/usr/share/xml/docbook/stylesheet/nwalsh/manpages/docbook.xsl

log() { echo "packaging/build-debs.sh: $*" >&2; }
die() { log "error: $*"; exit 1; }

for t in dpkg-deb dpkg-gencontrol dpkg-shlibdeps dpkg-architecture dpkg-buildflags \
	git xsltproc strip objcopy man gzip sha256sum md5sum flock; do
	command -v "$t" >/dev/null || die "$t not found (see the header of this script)"
done
[ -f "$MAN_XSL" ] || die "$MAN_XSL not found (package docbook-xsl)"
git -C "$repo" rev-parse --verify -q HEAD >/dev/null || die "$repo is not a git checkout"

umask 022
export LC_ALL=C.UTF-8 TZ=UTC

arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
samba_ver=$(dpkg-query -W -f='${Version}' samba 2>/dev/null) ||
	die "samba is not installed: the module is built against the installed samba"
[ -n "$samba_ver" ] || die "samba is not installed"
moddir=usr/lib/$multiarch/samba/vfs

# ---- inputs, version, key ---------------------------------------------------

# Everything that ends up in a package or decides how it is built.
INPUTS=(
	packaging/build-debs.sh
	wscript
	mapping/include
	mapping/src
	mapping/tools
	vfs_richacl/vfs_richacl.c
	vfs_richacl/wscript_build
	vfs_richacl/build.sh
	testenv/samba-source.sh
	docs/vfs_richacl.8.xml
	docs/getrichacl.1.xml
	docs/setrichacl.1.xml
	tools/richacl-migrate-ntacl
	docs/richacl-migrate-ntacl.8.xml
)
for f in "${INPUTS[@]}"; do
	[ -e "$repo/$f" ] || die "missing input $f"
done
input_hash=$(cd "$repo" && find "${INPUTS[@]}" -type f ! -name '*.o' ! -name '*~' |
	sort | xargs sha256sum | sha256sum | cut -c1-16)

base_ver=$(sed -n -E "s/^VERSION = '([0-9][0-9A-Za-z.]*)'$/\1/p" "$repo/wscript")
[ -n "$base_ver" ] || die "no VERSION = '...' in wscript"
commit=$(git -C "$repo" rev-parse HEAD)
SOURCE_DATE_EPOCH=$(git -C "$repo" log -1 --format=%ct HEAD)
export SOURCE_DATE_EPOCH
commit_day=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y%m%d)
upstream="$base_ver~git$commit_day.${commit:0:7}"
if [ -n "$(git -C "$repo" status --porcelain --untracked-files=all -- "${INPUTS[@]}")" ]; then
	upstream="$upstream+dirty.${input_hash:0:8}"
	log "packaged inputs differ from HEAD: version $upstream"
fi
tools_ver="$upstream-1"
module_ver="$upstream+samba${samba_ver#*:}-1"
# Samba's name for its version in man pages (doc.version): 4.17.12-Debian
samba_upstream=${samba_ver#*:}
samba_upstream=${samba_upstream%%[-+~]*}

maintainer=${RICHACL_MAINTAINER:-}
if [ -z "$maintainer" ]; then
	name=$(git -C "$repo" config user.name || true)
	mail=$(git -C "$repo" config user.email || true)
	if [ -n "$name" ] && [ -n "$mail" ]; then
		maintainer="$name <$mail>"
	else
		maintainer="richacl project <richacl@localhost>"
		log "no git user.name/user.email: Maintainer is $maintainer (set RICHACL_MAINTAINER)"
	fi
fi

toolvers=$(dpkg-query -W -f='${Package}=${Version}\n' dpkg-dev binutils gcc xsltproc \
	docbook-xsl 2>/dev/null || true)
key=$(printf '%s\n' "$input_hash" "$upstream" "$samba_ver" "$arch" "$maintainer" \
	"$toolvers" | sha256sum | cut -c1-16)
out="$CACHE/debs/$key"
module_deb="$out/samba-vfs-richacl_${module_ver}_$arch.deb"
tools_deb="$out/richacl-tools_${tools_ver}_$arch.deb"
migrate_deb="$out/richacl-migrate_${tools_ver}_$arch.deb"

# print the packages and stop if they exist already
if_built() {
	if [ -f "$out/.complete" ] && [ -f "$module_deb" ] && [ -f "$tools_deb" ] &&
		[ -f "$migrate_deb" ]; then
		log "up to date ($out)"
		echo "$module_deb"
		echo "$tools_deb"
		echo "$migrate_deb"
		exit 0
	fi
}
if_built
mkdir -p "$CACHE/debs"
exec 9>"$CACHE/debs/$key.lock"
flock 9
if_built	# another run may have built them meanwhile

# ---- the copyright file -------------------------------------------------------

# What the sources say about their license, checked so that this text cannot
# silently go stale: vfs_richacl.c states GPL-3+; the mapping library, the
# tools, the migration tool and the man pages state nothing.
grep -q 'either version 3 of the License, or' "$repo/vfs_richacl/vfs_richacl.c" ||
	die "vfs_richacl/vfs_richacl.c no longer states GPL-3+: update copyright_file() here"
if grep -l -i -E 'SPDX-License-Identifier|General Public License|Copyright' \
	"$repo"/mapping/src/*.c "$repo"/mapping/include/*.h "$repo"/mapping/tools/*.[ch] \
	"$repo"/docs/vfs_richacl.8.xml "$repo"/docs/getrichacl.1.xml "$repo"/docs/setrichacl.1.xml \
	"$repo"/tools/richacl-migrate-ntacl "$repo"/docs/richacl-migrate-ntacl.8.xml >&2; then
	die "the files above now carry a copyright or license statement: update copyright_file() here"
fi

# The copyright notice of vfs_richacl.c ("Copyright (C) 2026 the richacl
# project") and, for the files without one, the years of their git history.
module_notice=$(sed -n -E 's/^ \* Copyright \(C\) (.*)$/\1/p' "$repo/vfs_richacl/vfs_richacl.c" | head -n1)
[ -n "$module_notice" ] || die "no copyright notice in vfs_richacl/vfs_richacl.c"
git_years() {
	local y
	y=$(git -C "$repo" log --format=%ad --date=format:%Y -- "$@" | sort -u | sed -n '1p;$p' | uniq)
	[ -n "$y" ] || y=$(date -u -d "@$SOURCE_DATE_EPOCH" +%Y)	# not committed yet
	echo "$y" | paste -sd-
}
mapping_years=$(git_years mapping/src mapping/include mapping/tools)
docs_module_years=$(git_years docs/vfs_richacl.8.xml)
docs_tools_years=$(git_years docs/getrichacl.1.xml docs/setrichacl.1.xml)
migrate_years=$(git_years tools/richacl-migrate-ntacl)
docs_migrate_years=$(git_years docs/richacl-migrate-ntacl.8.xml)

# copyright_file PACKAGE -> DEP-5 text on stdout
copyright_file() {
	cat <<-EOF
	Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
	Upstream-Name: richacl
	Upstream-Contact: $maintainer
	Comment: Built from git commit ${commit:0:12} of the richacl project.
	 Only vfs_richacl/vfs_richacl.c carries a copyright notice and a license
	 statement.  For the other files the years are those of their git history.
	EOF
	case $1 in
	samba-vfs-richacl)
		cat <<-EOF

		Files: vfs_richacl/*
		Copyright: $module_notice
		License: GPL-3+
		Comment: The module is built against, and loaded by, Samba (GPL-3+).

		Files: mapping/src/* mapping/include/*
		Copyright: $mapping_years the richacl project
		License: no-license-statement
		Comment: The mapping library, compiled into richacl.so.

		Files: docs/vfs_richacl.8.xml
		Copyright: $docs_module_years the richacl project
		License: no-license-statement
		Comment: The source of vfs_richacl.8.
		EOF
		;;
	richacl-tools)
		cat <<-EOF

		Files: mapping/*
		Copyright: $mapping_years the richacl project
		License: no-license-statement
		Comment: The tools and the mapping library, which they are statically
		 linked with.

		Files: docs/getrichacl.1.xml docs/setrichacl.1.xml
		Copyright: $docs_tools_years the richacl project
		License: no-license-statement
		Comment: The sources of getrichacl.1 and setrichacl.1.
		EOF
		;;
	richacl-migrate)
		cat <<-EOF

		Files: tools/richacl-migrate-ntacl
		Copyright: $migrate_years the richacl project
		License: no-license-statement
		Comment: The migration tool, /usr/sbin/richacl-migrate-ntacl.  It
		 imports Samba's Python bindings (python3-samba, GPL-3+) when it runs.

		Files: mapping/*
		Copyright: $mapping_years the richacl project
		License: no-license-statement
		Comment: The helper richacl-ntsd2xattr and the mapping library, which
		 it is statically linked with.

		Files: docs/richacl-migrate-ntacl.8.xml
		Copyright: $docs_migrate_years the richacl project
		License: no-license-statement
		Comment: The source of richacl-migrate-ntacl.8.
		EOF
		;;
	*) die "copyright_file: unknown package $1" ;;
	esac
	cat <<-'EOF'

	License: no-license-statement
	 These files carry no copyright notice and no license statement of their
	 own, and the project states no license for them elsewhere.  Until the
	 copyright holder states one, the terms under which they (and this
	 package) may be redistributed are not stated.
	EOF
	if [ "$1" = samba-vfs-richacl ]; then
		cat <<-'EOF'

		License: GPL-3+
		 This program is free software; you can redistribute it and/or modify
		 it under the terms of the GNU General Public License as published by
		 the Free Software Foundation; either version 3 of the License, or
		 (at your option) any later version.
		 .
		 This program is distributed in the hope that it will be useful,
		 but WITHOUT ANY WARRANTY; without even the implied warranty of
		 MERCHANTABILITY or FITNESS FOR A PARTICULAR PURPOSE.  See the
		 GNU General Public License for more details.
		 .
		 You should have received a copy of the GNU General Public License
		 along with this program; if not, see <http://www.gnu.org/licenses/>.
		 .
		 On Debian systems, the complete text of the GNU General Public License
		 version 3 can be found in "/usr/share/common-licenses/GPL-3".
		EOF
	fi
}

# ---- build ------------------------------------------------------------------

work="$CACHE/debs/$key.tmp"
rm -rf "$work"
mkdir -p "$work"
log "building $upstream in $work"

# 1. the module (vfs_richacl/build.sh caches it; its last line is the path)
so=$(bash "$repo/vfs_richacl/build.sh" | tail -n1)
[ -f "$so" ] || die "vfs_richacl/build.sh gave no module"

# 2. the tools, from a copy of the sources (the whole of mapping/ because the
#    wscript names files under mapping/tests; only the two tools and the
#    migration tool's helper are built)
src="$work/src"
mkdir -p "$src"
cp "$repo/wscript" "$src/"
(cd "$repo" && tar -cf - --exclude='*.o' --exclude='*~' mapping) | (cd "$src" && tar -xf -)
waf="$(bash "$repo/testenv/samba-source.sh")/buildtools/bin/waf"
[ -f "$waf" ] || die "no waf in the Samba source tree"
log "building getrichacl, setrichacl and richacl-ntsd2xattr with Debian's build flags"
if ! (cd "$src" && eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)" &&
	python3 "$waf" configure &&
	python3 "$waf" build -j"$JOBS" --targets=getrichacl,setrichacl,richacl-ntsd2xattr) \
	> "$work/tools-build.log" 2>&1; then
	tail -n 30 "$work/tools-build.log" >&2
	die "tools build failed, log: $work/tools-build.log"
fi
for t in getrichacl setrichacl richacl-ntsd2xattr; do
	[ -x "$src/build/$t" ] || die "build/$t was not built"
done

# 3. the man pages
man="$work/man"
mkdir -p "$man"
# docbook-xsl upper-cases section titles after it has written the apostrophe
# as \*(Aq, which turns it into the undefined string \*(AQ ("THE CREATOR'S").
fix_aq() { sed -i 's/\\\*(AQ/\\*(Aq/g' "$1"; }
check_man() {
	local warn
	warn=$(MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null) || die "man -l $1 failed"
	[ -z "$warn" ] || { echo "$warn" >&2; die "$(basename "$1") renders with warnings"; }
}
# vfs_richacl.8 is Samba DocBook (Samba's DTD, <smbconfoption>, &doc.version;):
# it is expanded with Samba's own stylesheets, as Samba's pages are.  The
# DOCTYPE is dropped and the one entity filled in here, so that no DTD is
# needed (docbook-xml is not installed).
samba_src=$(bash "$repo/testenv/samba-source.sh")
xslt="$samba_src/docs-xml/xslt"
[ -f "$xslt/expand-sambadoc.xsl" ] && [ -f "$xslt/man.xsl" ] ||
	die "Samba's DocBook stylesheets not found under $xslt"
grep -o '&[A-Za-z0-9._-]*;' "$repo/docs/vfs_richacl.8.xml" | grep -qv '^&doc\.version;$' &&
	die "docs/vfs_richacl.8.xml uses an entity other than &doc.version;"
sed -e '/^<!DOCTYPE refentry /d' -e "s/&doc\.version;/$samba_upstream-Debian/g" \
	"$repo/docs/vfs_richacl.8.xml" > "$man/vfs_richacl.8.in.xml"
xsltproc --nonet --novalid --stringparam noreference 0 -o "$man/vfs_richacl.8.xml" \
	"$xslt/expand-sambadoc.xsl" "$man/vfs_richacl.8.in.xml" 2>"$man/xsltproc.log" ||
	{ cat "$man/xsltproc.log" >&2; die "expanding vfs_richacl.8.xml failed"; }
xsltproc --nonet --novalid -o "$man/" "$xslt/man.xsl" "$man/vfs_richacl.8.xml" \
	2>>"$man/xsltproc.log" || { cat "$man/xsltproc.log" >&2; die "rendering vfs_richacl.8 failed"; }
for p in getrichacl.1 setrichacl.1 richacl-migrate-ntacl.8; do
	xsltproc --nonet --novalid -o "$man/" "$MAN_XSL" "$repo/docs/$p.xml" \
		2>>"$man/xsltproc.log" || { cat "$man/xsltproc.log" >&2; die "rendering $p failed"; }
done
if grep -v '^Note: Writing ' "$man/xsltproc.log" >&2; then
	die "xsltproc warned (above)"
fi
for p in vfs_richacl.8 getrichacl.1 setrichacl.1 richacl-migrate-ntacl.8; do
	[ -f "$man/$p" ] || die "$p was not rendered"
	fix_aq "$man/$p"
	check_man "$man/$p"
done

# 4. the package trees, in debian/<package>/ as dpkg-shlibdeps expects
deb="$work/debian"
mroot="$deb/samba-vfs-richacl"
troot="$deb/richacl-tools"
rroot="$deb/richacl-migrate"
STRIP=(strip --remove-section=.comment --remove-section=.note --strip-unneeded)

install -d "$mroot/DEBIAN" "$mroot/$moddir" "$mroot/usr/share/man/man8" \
	"$mroot/usr/share/doc/samba-vfs-richacl" "$mroot/usr/share/lintian/overrides"
install -m 0644 "$so" "$mroot/$moddir/richacl.so"
"${STRIP[@]}" "$mroot/$moddir/richacl.so"
gzip -9n < "$man/vfs_richacl.8" > "$mroot/usr/share/man/man8/vfs_richacl.8.gz"
# Samba documents its VFS modules in section 8 without an executable of that
# name; Debian's samba-vfs-modules carries the same override for its vfs_*.8.
cat > "$mroot/usr/share/lintian/overrides/samba-vfs-richacl" <<'EOF'
# manual page of a Samba VFS module (vfs objects = richacl), as Samba's vfs_*.8
samba-vfs-richacl: spare-manual-page [usr/share/man/man8/vfs_richacl.8.gz]
EOF

install -d "$troot/DEBIAN" "$troot/usr/bin" "$troot/usr/share/man/man1" \
	"$troot/usr/share/doc/richacl-tools"
for t in getrichacl setrichacl; do
	install -m 0755 "$src/build/$t" "$troot/usr/bin/$t"
	"${STRIP[@]}" "$troot/usr/bin/$t"
	gzip -9n < "$man/$t.1" > "$troot/usr/share/man/man1/$t.1.gz"
done

# the migration tool as it is in the repository (its #!/usr/bin/python3 is
# the python3 that python3-samba is built for), and its helper in
# /usr/lib/richacl/, the installed place where the tool looks for it
[ "$(head -n1 "$repo/tools/richacl-migrate-ntacl")" = '#!/usr/bin/python3' ] ||
	die "tools/richacl-migrate-ntacl does not start with #!/usr/bin/python3"
grep -q '"/usr/lib/richacl/richacl-ntsd2xattr"' "$repo/tools/richacl-migrate-ntacl" ||
	die "tools/richacl-migrate-ntacl no longer looks for /usr/lib/richacl/richacl-ntsd2xattr"
install -d "$rroot/DEBIAN" "$rroot/usr/sbin" "$rroot/usr/lib/richacl" \
	"$rroot/usr/share/man/man8" "$rroot/usr/share/doc/richacl-migrate"
install -m 0755 "$repo/tools/richacl-migrate-ntacl" "$rroot/usr/sbin/richacl-migrate-ntacl"
install -m 0755 "$src/build/richacl-ntsd2xattr" "$rroot/usr/lib/richacl/richacl-ntsd2xattr"
"${STRIP[@]}" "$rroot/usr/lib/richacl/richacl-ntsd2xattr"
gzip -9n < "$man/richacl-migrate-ntacl.8" > "$rroot/usr/share/man/man8/richacl-migrate-ntacl.8.gz"

# changelog_entry VERSION TEXT... -> one Debian changelog entry, one item
# per TEXT, wrapped at 78 columns
changelog_entry() {
	local ver=$1 line
	shift
	printf 'richacl (%s) bookworm; urgency=medium\n\n' "$ver"
	for line in "$@"; do
		printf '%s\n' "$line" | fold -s -w 74 |
			sed -e 's/ *$//' -e '1s/^/  * /' -e '2,$s/^/    /'
	done
	printf '\n -- %s  %s\n' "$maintainer" "$(date -u -R -d "@$SOURCE_DATE_EPOCH")"
}
snapshot="Snapshot of the richacl project at git commit ${commit:0:12} ($(date -u -d "@$SOURCE_DATE_EPOCH" +%Y-%m-%d))."
if [[ $upstream == *+dirty.* ]]; then
	snapshot="$snapshot Built with uncommitted changes (inputs ${input_hash:0:8})."
fi
mkdir -p "$work/changelog"
changelog_entry "$tools_ver" "$snapshot" > "$work/changelog/richacl-tools"
changelog_entry "$tools_ver" "$snapshot" > "$work/changelog/richacl-migrate"
changelog_entry "$module_ver" "$snapshot" \
	"Built against samba $samba_ver, the only samba it works with." \
	> "$work/changelog/samba-vfs-richacl"
for p in samba-vfs-richacl richacl-tools richacl-migrate; do
	copyright_file "$p" > "$deb/$p/usr/share/doc/$p/copyright"
	gzip -9n < "$work/changelog/$p" > "$deb/$p/usr/share/doc/$p/changelog.Debian.gz"
done

# 5. control files: dpkg-shlibdeps for the library dependencies,
#    dpkg-gencontrol for the rest (Installed-Size, simplified Depends)
cat > "$deb/control" <<EOF
Source: richacl
Section: net
Priority: optional
Maintainer: $maintainer

Package: samba-vfs-richacl
Architecture: any
Section: net
Depends: samba (= \${samba:Version}), \${shlibs:Depends}
Suggests: richacl-tools
Description: Samba VFS module that stores NT ACLs as kernel-enforced richacls
 vfs_richacl (vfs objects = richacl) stores the DACL of the Windows security
 descriptors that SMB clients set as a richacl in the system.richacl extended
 attribute.  A Linux kernel with richacl support enforces that ACL for local
 processes as well, so smbd and the kernel check one and the same ACL.
 .
 It needs a kernel with the richacl patches of the richacl project and an ext4
 filesystem with the richacl feature; elsewhere only ACLs equivalent to a file
 mode can be stored.  See vfs_richacl(8).
 .
 The module is built for one Samba build: this package depends on exactly the
 samba version it was built against and must be rebuilt after a samba update.

Package: richacl-tools
Architecture: any
Section: utils
Depends: \${shlibs:Depends}
Description: tools to show and change richacls (NFSv4-style ACLs) of files
 getrichacl shows the richacl of files (or the acl equivalent to their mode),
 optionally with the file masks or as the access it grants to a user.
 setrichacl sets, edits or removes richacls, and propagates automatic
 inheritance to the files below a directory.
 .
 Richacls are NFSv4-style ACLs with allow and deny entries, Windows
 permissions and inheritance flags, and file masks that keep them consistent
 with chmod.  They need a Linux kernel with the richacl patches of the richacl
 project and an ext4 filesystem with the richacl feature.

Package: richacl-migrate
Architecture: any
Section: admin
Depends: python3, python3-samba, \${shlibs:Depends}
Suggests: samba-vfs-richacl, richacl-tools
Description: offline migration of Samba acl_xattr shares to richacls
 richacl-migrate-ntacl gives every file and directory of a tree whose Windows
 ACL Samba's vfs_acl_xattr keeps in the security.NTACL extended attribute the
 system.richacl that vfs_richacl would store for the same descriptor, and then
 removes security.NTACL.  It runs as root with smbd stopped, on the richacl
 filesystem that will hold the share.
 .
 SIDs are resolved as smbd resolves them (winbindd, passdb and the group
 mappings of the given smb.conf).  What cannot be stored as a richacl is
 reported per file; --dry-run changes nothing, and an interrupted run can be
 resumed from its journal.  The mapping is done by the project's mapping
 library, the same calls as in vfs_richacl, in the helper
 /usr/lib/richacl/richacl-ntsd2xattr.  See richacl-migrate-ntacl(8).
EOF

(
	cd "$work"
	cp "$work/changelog/richacl-tools" debian/changelog
	dpkg-shlibdeps -Tdebian/samba-vfs-richacl.substvars -l"/usr/lib/$multiarch/samba" \
		"debian/samba-vfs-richacl/$moddir/richacl.so"
	dpkg-shlibdeps -Tdebian/richacl-tools.substvars \
		debian/richacl-tools/usr/bin/getrichacl debian/richacl-tools/usr/bin/setrichacl
	dpkg-shlibdeps -Tdebian/richacl-migrate.substvars \
		debian/richacl-migrate/usr/lib/richacl/richacl-ntsd2xattr
	dpkg-gencontrol -psamba-vfs-richacl -Pdebian/samba-vfs-richacl -v"$module_ver" \
		-Tdebian/samba-vfs-richacl.substvars -V"samba:Version=$samba_ver" \
		-ldebian/changelog -fdebian/files
	dpkg-gencontrol -prichacl-tools -Pdebian/richacl-tools -v"$tools_ver" \
		-Tdebian/richacl-tools.substvars -ldebian/changelog -fdebian/files
	dpkg-gencontrol -prichacl-migrate -Pdebian/richacl-migrate -v"$tools_ver" \
		-Tdebian/richacl-migrate.substvars -ldebian/changelog -fdebian/files
) > "$work/control.log" 2>&1 || { cat "$work/control.log" >&2; die "dpkg-shlibdeps/dpkg-gencontrol failed"; }
if grep -i 'warning' "$work/control.log" >&2; then
	die "dpkg-shlibdeps/dpkg-gencontrol warned (above)"
fi

# 6. md5sums, modes, times; build
for root in "$mroot" "$troot" "$rroot"; do
	(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z |
		xargs -0 md5sum) > "$root/DEBIAN/md5sums"
	find "$root" -type d -exec chmod 0755 {} +
	find "$root" -type f -exec chmod 0644 {} +
done
chmod 0755 "$troot/usr/bin/getrichacl" "$troot/usr/bin/setrichacl" \
	"$rroot/usr/sbin/richacl-migrate-ntacl" "$rroot/usr/lib/richacl/richacl-ntsd2xattr"
for root in "$mroot" "$troot" "$rroot"; do
	find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
done
dpkg-deb --root-owner-group -Zxz --build "$mroot" "$work/$(basename "$module_deb")" >&2
dpkg-deb --root-owner-group -Zxz --build "$troot" "$work/$(basename "$tools_deb")" >&2
dpkg-deb --root-owner-group -Zxz --build "$rroot" "$work/$(basename "$migrate_deb")" >&2

# ---- check ------------------------------------------------------------------

log "checking the packages"
chk="$work/check"
mkdir -p "$chk"
m_deb="$work/$(basename "$module_deb")"
t_deb="$work/$(basename "$tools_deb")"
r_deb="$work/$(basename "$migrate_deb")"

# contents: exactly these files, with these modes, owned by root
want_contents() {
	printf '%s\n' "$@" | sort
}
contents() {
	dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $1, $2, $6 }' | sort -k3
}
expect_module=$(want_contents \
	"-rw-r--r-- root/root ./$moddir/richacl.so" \
	"-rw-r--r-- root/root ./usr/share/doc/samba-vfs-richacl/changelog.Debian.gz" \
	"-rw-r--r-- root/root ./usr/share/doc/samba-vfs-richacl/copyright" \
	"-rw-r--r-- root/root ./usr/share/lintian/overrides/samba-vfs-richacl" \
	"-rw-r--r-- root/root ./usr/share/man/man8/vfs_richacl.8.gz" | sort -k3)
expect_tools=$(want_contents \
	"-rwxr-xr-x root/root ./usr/bin/getrichacl" \
	"-rwxr-xr-x root/root ./usr/bin/setrichacl" \
	"-rw-r--r-- root/root ./usr/share/doc/richacl-tools/changelog.Debian.gz" \
	"-rw-r--r-- root/root ./usr/share/doc/richacl-tools/copyright" \
	"-rw-r--r-- root/root ./usr/share/man/man1/getrichacl.1.gz" \
	"-rw-r--r-- root/root ./usr/share/man/man1/setrichacl.1.gz" | sort -k3)
expect_migrate=$(want_contents \
	"-rwxr-xr-x root/root ./usr/lib/richacl/richacl-ntsd2xattr" \
	"-rwxr-xr-x root/root ./usr/sbin/richacl-migrate-ntacl" \
	"-rw-r--r-- root/root ./usr/share/doc/richacl-migrate/changelog.Debian.gz" \
	"-rw-r--r-- root/root ./usr/share/doc/richacl-migrate/copyright" \
	"-rw-r--r-- root/root ./usr/share/man/man8/richacl-migrate-ntacl.8.gz" | sort -k3)
[ "$(contents "$m_deb")" = "$expect_module" ] ||
	{ contents "$m_deb" >&2; die "unexpected contents of $(basename "$m_deb")"; }
[ "$(contents "$t_deb")" = "$expect_tools" ] ||
	{ contents "$t_deb" >&2; die "unexpected contents of $(basename "$t_deb")"; }
[ "$(contents "$r_deb")" = "$expect_migrate" ] ||
	{ contents "$r_deb" >&2; die "unexpected contents of $(basename "$r_deb")"; }
# (dpkg-deb -c lists one package per call)
for d in "$m_deb" "$t_deb" "$r_deb"; do
	if dpkg-deb -c "$d" | awk '$1 ~ /^d/ && ($1 != "drwxr-xr-x" || $2 != "root/root")' | grep . >&2; then
		die "a directory of $(basename "$d") is not 0755 root/root"
	fi
done
[ "$(dpkg-deb -f "$m_deb" Depends | grep -o "samba (= $samba_ver)")" = "samba (= $samba_ver)" ] ||
	die "samba-vfs-richacl does not depend on samba (= $samba_ver)"
# richacl-migrate: python3 and python3-samba besides the helper's libraries
for dep in python3 python3-samba; do
	dpkg-deb -f "$r_deb" Depends | tr ',' '\n' | sed 's/^ *//' | grep -qx "$dep" ||
		die "richacl-migrate does not depend on $dep"
done

dpkg-deb -x "$m_deb" "$chk/m"
dpkg-deb -x "$t_deb" "$chk/t"
dpkg-deb -x "$r_deb" "$chk/r"
# the module: byte for byte the stripped copy of the built module, and its
# code and data byte for byte those of the built module
cp "$so" "$chk/built.so"
"${STRIP[@]}" "$chk/built.so"
cmp -s "$chk/built.so" "$chk/m/$moddir/richacl.so" ||
	die "the packaged module is not the stripped built module"
for sec in .text .rodata .data .data.rel.ro .dynsym .dynstr .gnu.version_r; do
	objcopy -O binary --only-section="$sec" "$so" "$chk/a$sec"
	objcopy -O binary --only-section="$sec" "$chk/m/$moddir/richacl.so" "$chk/b$sec"
	cmp -s "$chk/a$sec" "$chk/b$sec" || die "section $sec of the packaged module differs"
done
readelf -S "$chk/m/$moddir/richacl.so" | grep -q '\.debug_' && die "the module is not stripped"
# the tools run
for t in getrichacl setrichacl; do
	"$chk/t/usr/bin/$t" --version | grep -qx "$t $base_ver" || die "$t --version"
	"$chk/t/usr/bin/$t" --help >/dev/null || die "$t --help"
	readelf -S "$chk/t/usr/bin/$t" | grep -q '\.debug_' && die "$t is not stripped"
done
touch "$chk/file"
chmod 0640 "$chk/file"
"$chk/t/usr/bin/getrichacl" "$chk/file" > "$chk/file.acl"
printf '%s:\n owner@:rwp----------::allow\n group@:r------------::allow\n\n' "$chk/file" |
	cmp -s - "$chk/file.acl" || { cat "$chk/file.acl" >&2; die "getrichacl shows a wrong acl"; }
"$chk/t/usr/bin/setrichacl" --set 'owner@:rwp::allow everyone@:r::allow' "$chk/file" ||
	die "setrichacl --set of a mode-equivalent acl failed"
[ "$(stat -c %a "$chk/file")" = 644 ] || die "setrichacl did not set mode 0644"
# the migration tool: the script as it is in the repository, the helper
# stripped and running, and (with python3-samba, as root) a dry run of the
# packaged script with the packaged helper on a scratch tree whose one file
# has a security.NTACL.  The unpacked script would look for its helper in
# /usr/lib/richacl/ of this host, so it is given with --helper.
cmp -s "$repo/tools/richacl-migrate-ntacl" "$chk/r/usr/sbin/richacl-migrate-ntacl" ||
	die "the packaged richacl-migrate-ntacl is not tools/richacl-migrate-ntacl"
helper="$chk/r/usr/lib/richacl/richacl-ntsd2xattr"
readelf -S "$helper" | grep -q '\.debug_' && die "richacl-ntsd2xattr is not stripped"
"$helper" --help | grep -q '^usage: richacl-ntsd2xattr ' || die "richacl-ntsd2xattr --help"
if /usr/bin/python3 -c 'import samba.samba3.passdb' 2>/dev/null; then
	"$chk/r/usr/sbin/richacl-migrate-ntacl" --help > "$chk/migrate-help.txt" ||
		die "richacl-migrate-ntacl --help"
	grep -q '^usage: richacl-migrate-ntacl ' "$chk/migrate-help.txt" ||
		{ cat "$chk/migrate-help.txt" >&2; die "richacl-migrate-ntacl --help printed no usage"; }
	if [ "$(id -u)" = 0 ]; then
		mig="$chk/migrate"
		mkdir -p "$mig/tree" "$mig/samba"/{private,state,cache,lock,run,ncalrpc,wbsock}
		# a private smb.conf: nothing of the host's Samba is read or written
		cat > "$mig/smb.conf" <<-EOF
		[global]
		server role = standalone server
		security = user
		passdb backend = tdbsam:$mig/samba/private/passdb.tdb
		private dir = $mig/samba/private
		state directory = $mig/samba/state
		cache directory = $mig/samba/cache
		lock directory = $mig/samba/lock
		pid directory = $mig/samba/run
		ncalrpc dir = $mig/samba/ncalrpc
		winbindd socket directory = $mig/samba/wbsock
		EOF
		touch "$mig/tree/file"
		# an empty private passdb (the tool refuses to create one), and a
		# security.NTACL version 1: owner root, Everyone full control
		/usr/bin/python3 - "$mig/smb.conf" "$mig/tree/file" <<-'EOF' ||
		import os, sys
		from samba.dcerpc import security, xattr
		from samba.ndr import ndr_pack
		from samba.samba3 import param as s3param, passdb
		lp = s3param.get_context()
		lp.load(sys.argv[1])
		passdb.set_secrets_dir(lp.get("private dir"))
		passdb.PDB(lp.get("passdb backend")).search_users(0)  # creates passdb.tdb
		sd = security.descriptor.from_sddl("O:S-1-22-1-0G:S-1-22-2-0D:(A;;FA;;;WD)",
		                                   security.dom_sid("S-1-5-21-1-2-3"))
		nt = xattr.NTACL()
		nt.version = 1
		nt.info = sd
		os.setxattr(sys.argv[2], "security.NTACL", ndr_pack(nt))
		EOF
			die "cannot make the passdb or set security.NTACL in $mig"
		"$chk/r/usr/sbin/richacl-migrate-ntacl" --smb-conf "$mig/smb.conf" --helper "$helper" \
			--dry-run "$mig/tree" > "$mig/out.txt" 2> "$mig/err.txt" ||
			{ cat "$mig/out.txt" "$mig/err.txt" >&2; die "richacl-migrate-ntacl --dry-run failed"; }
		grep -q '^summary: DRY RUN, nothing changed; complete$' "$mig/out.txt" &&
			grep -q '^summary: would migrate 1, no NTACL 1, .*, failed 0$' "$mig/out.txt" ||
			{ cat "$mig/out.txt" "$mig/err.txt" >&2; die "richacl-migrate-ntacl --dry-run: unexpected summary"; }
		/usr/bin/python3 -c 'import os, sys; os.getxattr(sys.argv[1], "security.NTACL")' \
			"$mig/tree/file" || die "richacl-migrate-ntacl --dry-run removed security.NTACL"
	else
		log "not root: richacl-migrate-ntacl --dry-run not run"
	fi
else
	log "python3-samba is not installed: richacl-migrate-ntacl not run"
fi
# the man pages, as installed
for p in "$chk/m/usr/share/man/man8/vfs_richacl.8.gz" \
	"$chk/t/usr/share/man/man1/getrichacl.1.gz" "$chk/t/usr/share/man/man1/setrichacl.1.gz" \
	"$chk/r/usr/share/man/man8/richacl-migrate-ntacl.8.gz"; do
	check_man "$p"
done

if command -v lintian >/dev/null; then
	log "lintian"
	lintian --display-info --pedantic --show-overrides "$m_deb" "$t_deb" "$r_deb" \
		> "$work/lintian.txt" 2>&1 || true
	sed 's/^/  /' "$work/lintian.txt" >&2
	if grep -q '^E: ' "$work/lintian.txt"; then
		die "lintian reports errors (above)"
	fi
else
	log "lintian is not installed: not run"
fi

# ---- publish -----------------------------------------------------------------

rm -rf "$out"
mkdir -p "$out"
mv "$m_deb" "$t_deb" "$r_deb" "$out/"
if [ -f "$work/lintian.txt" ]; then
	mv "$work/lintian.txt" "$out/"
fi
touch "$out/.complete"
rm -rf "$work"
log "done: $out"
echo "$module_deb"
echo "$tools_deb"
echo "$migrate_deb"
