# pg_cluster.sh - a throwaway PostgreSQL cluster, for the benchmarks and
# tests that need a real database.  Sourced; needs bash.
#
#   pg_find            sets PGBIN, PGBENCH, PSQL; PG_MISSING lists what is
#                      missing (empty when everything is there)
#   pg_start NAME PORT a new cluster in a mktemp directory under /tmp (the
#                      postgres user must reach it; a socket path stays
#                      under 108 bytes), no TCP, the socket in that
#                      directory; sets PG_WORK, PG_POSTMASTER, PG_CONN (the
#                      client options); extra postgresql.conf lines from
#                      $PG_CONF; the server run is $PG_POSTGRES when set
#                      (pg_ctl -p: a postgres binary other than $PGBIN's,
#                      its version unchecked)
#   pg_sql SQL         runs SQL (one value per line)
#   pg_stop            stops the server (immediate, then SIGKILL of the
#                      postmaster and its children) and removes the
#                      directory; safe to call twice, and from a trap
# The caller sets its EXIT trap to call pg_stop.

pg_find() {
	PG_MISSING=""
	PGBIN=""
	local d
	for d in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V); do # the newest
		[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && [ -x "$d/postgres" ] && PGBIN=$d
	done
	[ -n "$PGBIN" ] || PG_MISSING="$PG_MISSING postgresql (initdb, pg_ctl, postgres)"
	# clients of the server's own version when present, else Debian's wrappers
	PGBENCH=$PGBIN/pgbench
	[ -n "$PGBIN" ] && [ -x "$PGBENCH" ] || PGBENCH=$(command -v pgbench || true)
	PSQL=$PGBIN/psql
	[ -n "$PGBIN" ] && [ -x "$PSQL" ] || PSQL=$(command -v psql || true)
	[ -n "$PGBENCH" ] || PG_MISSING="$PG_MISSING pgbench"
	[ -n "$PSQL" ] || PG_MISSING="$PG_MISSING psql"
	command -v runuser >/dev/null || PG_MISSING="$PG_MISSING runuser"
	id postgres >/dev/null 2>&1 || PG_MISSING="$PG_MISSING the-postgres-user"
	[ "$(id -u)" = 0 ] || PG_MISSING="$PG_MISSING root"
}

# Runs a command as the postgres OS user, from a directory it can read.
pg_as() { (cd "$PG_WORK" && runuser -u postgres -- "$@"); }

pg_start() {
	local name=$1 port=$2
	PG_WORK=$(mktemp -d "/tmp/$name.XXXXXX")
	chown postgres: "$PG_WORK"
	chmod 700 "$PG_WORK"
	pg_as "$PGBIN/initdb" -D "$PG_WORK/data" -U postgres -A trust -E UTF8 --locale=C \
		--no-sync >"$PG_WORK/initdb.log" 2>&1 || {
		echo "initdb failed: $(tail -n 1 "$PG_WORK/initdb.log")" >&2
		return 1
	}
	cat >>"$PG_WORK/data/postgresql.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$PG_WORK'
port = $port
${PG_CONF:-}
CONF
	pg_as "$PGBIN/pg_ctl" -D "$PG_WORK/data" -l "$PG_WORK/server.log" -w -t 60 \
		${PG_POSTGRES:+-p "$PG_POSTGRES"} start \
		>/dev/null 2>&1 || {
		echo "server did not start: $(tail -n 1 "$PG_WORK/server.log" 2>/dev/null)" >&2
		return 1
	}
	PG_POSTMASTER=$(head -n 1 "$PG_WORK/data/postmaster.pid")
	PG_CONN=(-h "$PG_WORK" -p "$port" -U postgres)
}

pg_sql() { "$PSQL" "${PG_CONN[@]}" -X -A -t -q -c "$1" postgres; }

# pg_clients N WHERE: the pids of the N backends that pg_stat_activity
# shows WHERE, once the same N are seen twice 0.3 s apart: pgbench opens a
# connection of its own first, under its clients' application_name, and
# closes it as they connect.  Status 1 when 10 s did not settle them.
pg_clients() {
	local n=$1 where=$2 i now last=
	for i in $(seq 30); do
		now=$(pg_sql "SELECT pid FROM pg_stat_activity WHERE $where ORDER BY pid" 2>/dev/null)
		if [ "$(printf '%s\n' "$now" | grep -c .)" = "$n" ] && [ "$now" = "$last" ]; then
			printf '%s\n' "$now"
			return 0
		fi
		last=$now
		sleep 0.3
	done
	return 1
}

pg_stop() {
	[ -n "${PG_WORK:-}" ] || return 0
	if [ -f "$PG_WORK/data/postmaster.pid" ]; then
		PG_POSTMASTER=$(head -n 1 "$PG_WORK/data/postmaster.pid")
		pg_as "$PGBIN/pg_ctl" -D "$PG_WORK/data" -m immediate -w -t 30 stop >/dev/null 2>&1
	fi
	# a postmaster that did not stop is killed with its children (found by
	# parent pid: only this cluster's processes)
	if [ -n "${PG_POSTMASTER:-}" ] && kill -0 "$PG_POSTMASTER" 2>/dev/null; then
		local kids
		kids=$(pgrep -P "$PG_POSTMASTER")
		# shellcheck disable=SC2086
		kill -KILL $kids "$PG_POSTMASTER" 2>/dev/null
	fi
	rm -rf "$PG_WORK"
	PG_WORK=""
}
