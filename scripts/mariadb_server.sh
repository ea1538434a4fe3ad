# mariadb_server.sh - a throwaway MariaDB server, for the benchmarks that
# need a real server of threads.  Sourced; needs bash.
#
#   md_find            sets MD_SERVER, MD_INSTALL, MD_CLIENT, SYSBENCH;
#                      MD_MISSING lists what is missing (empty when
#                      everything is there)
#   md_start NAME PORT a new data directory in a mktemp directory under /tmp,
#                      the server on 127.0.0.1:PORT and on a socket in that
#                      directory, as root (--user=root: nobody else need
#                      reach the directory); sets MD_WORK, MD_PID and
#                      MD_CONN (sysbench's options)
#   md_sql SQL         runs SQL as the server's root
#   md_stop            stops the server (SIGTERM, then SIGKILL after 10 s)
#                      and removes the directory; safe to call twice, and
#                      from a trap
# The caller sets its EXIT trap to call md_stop.

md_find() {
	MD_MISSING=""
	MD_SERVER=$(command -v mariadbd || command -v /usr/sbin/mariadbd || true)
	MD_INSTALL=$(command -v mariadb-install-db || true)
	MD_CLIENT=$(command -v mariadb || true)
	SYSBENCH=$(command -v sysbench || true)
	[ -n "$MD_SERVER" ] && [ -n "$MD_INSTALL" ] && [ -n "$MD_CLIENT" ] ||
		MD_MISSING="$MD_MISSING mariadb-server"
	[ -n "$SYSBENCH" ] || MD_MISSING="$MD_MISSING sysbench"
	[ "$(id -u)" = 0 ] || MD_MISSING="$MD_MISSING root"
}

md_start() {
	local name=$1 port=$2 i
	MD_WORK=$(mktemp -d "/tmp/$name.XXXXXX")
	"$MD_INSTALL" --no-defaults --datadir="$MD_WORK/data" --user=root \
		--auth-root-authentication-method=normal --skip-test-db \
		>"$MD_WORK/install.log" 2>&1 || {
		echo "mariadb-install-db failed: $(tail -n 1 "$MD_WORK/install.log")" >&2
		return 1
	}
	"$MD_SERVER" --no-defaults --datadir="$MD_WORK/data" --user=root \
		--socket="$MD_WORK/sock" --port="$port" --bind-address=127.0.0.1 \
		--pid-file="$MD_WORK/pid" --skip-log-bin --innodb-buffer-pool-size=256M \
		--max-connections=64 >"$MD_WORK/server.log" 2>&1 &
	MD_PID=$!
	for i in $(seq 300); do
		"$MD_CLIENT" --no-defaults -S "$MD_WORK/sock" -u root -e 'select 1' \
			>/dev/null 2>&1 && break
		kill -0 "$MD_PID" 2>/dev/null || break
		sleep 0.1
	done
	md_sql 'create database if not exists sbtest' || {
		echo "server did not start: $(tail -n 1 "$MD_WORK/server.log" 2>/dev/null)" >&2
		return 1
	}
	MD_CONN=(--db-driver=mysql --mysql-socket="$MD_WORK/sock" --mysql-user=root
		--mysql-db=sbtest)
}

md_sql() { "$MD_CLIENT" --no-defaults -S "$MD_WORK/sock" -u root -N -B -e "$1"; }

md_stop() {
	[ -n "${MD_PID:-}" ] && kill -0 "$MD_PID" 2>/dev/null && {
		kill -TERM "$MD_PID" 2>/dev/null
		local i
		for i in $(seq 100); do
			kill -0 "$MD_PID" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$MD_PID" 2>/dev/null
		wait "$MD_PID" 2>/dev/null
	}
	MD_PID=""
	[ -n "${MD_WORK:-}" ] && rm -rf "$MD_WORK"
	MD_WORK=""
}
