#!/usr/bin/env bash
# bench/push_cost.sh - what a window costs with --push, on a real server.
#
# A throwaway PostgreSQL cluster (a mktemp directory, no TCP, a unix
# socket) serves pgbench; ptrace_profiler follows the postmaster and its
# backends (--subprocesses) at the default 10 ms with --push to the test
# stand-in for Pyroscope (test/tools/ingest_server.py on 127.0.0.1), in
# windows of PUSH_PERIOD (10s) for PUSH_SECONDS (35).  Reports per window:
# body bytes (folded text), distinct stacks, samples, the time of the
# POST, the naming between ticks and the ticks it made the sampler skip;
# and the first request as sent (URL and the first lines of its body).
# Needs root, PostgreSQL's server and pgbench.  Everything is removed at
# the end (EXIT trap): server stopped, directory deleted.
set -euo pipefail
cd "$(dirname "$0")/.."
PERIOD=${PUSH_PERIOD:-10s}
SECONDS_RUN=${PUSH_SECONDS:-35}
PORT=${PUSH_PG_PORT:-54331}
PGBIN=
for d in $(printf '%s\n' /usr/lib/postgresql/*/bin | sort -V); do
	[ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ] && PGBIN=$d
done
PGBENCH=$PGBIN/pgbench
if [ "$(id -u)" != 0 ] || [ -z "$PGBIN" ] || [ ! -x "$PGBENCH" ] || ! id postgres >/dev/null 2>&1; then
	echo "push_cost: SKIP needs root, PostgreSQL (initdb, pg_ctl, pgbench) and the postgres user"
	exit 0
fi
WORK=$(mktemp -d /tmp/push_cost.XXXXXX)
chown postgres: "$WORK"
SPID= BPID=
as_pg() { (cd "$WORK" && runuser -u postgres -- "$@"); }
cleanup() {
	[ -n "$BPID" ] && kill "$BPID" 2>/dev/null
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null
	as_pg "$PGBIN/pg_ctl" -D "$WORK/data" -m immediate -w -t 30 stop >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT
as_pg "$PGBIN/initdb" -D "$WORK/data" -U postgres -A trust --no-sync >/dev/null 2>&1
printf "listen_addresses = ''\nunix_socket_directories = '%s'\nport = %s\nfsync = off\n" "$WORK" "$PORT" \
	>>"$WORK/data/postgresql.conf"
as_pg "$PGBIN/pg_ctl" -D "$WORK/data" -l "$WORK/server.log" -w -t 60 start >/dev/null
as_pg "$PGBENCH" -h "$WORK" -p "$PORT" -i -s 2 postgres >/dev/null 2>&1
python3 test/tools/ingest_server.py ok "$WORK/port" "$WORK/requests.log" $((SECONDS_RUN + 30)) &
SPID=$!
for _ in $(seq 1 50); do [ -s "$WORK/port" ] && break; sleep 0.1; done
as_pg "$PGBENCH" -h "$WORK" -p "$PORT" -c 4 -T $((SECONDS_RUN + 5)) postgres >/dev/null 2>&1 &
BPID=$!
sleep 1
POSTMASTER=$(head -n 1 "$WORK/data/postmaster.pid")
./ptrace_profiler -p "$POSTMASTER" --subprocesses -t "${SECONDS_RUN}s" --period "$PERIOD" \
	--push "http://127.0.0.1:$(cat "$WORK/port")" --label env=bench 2>"$WORK/pp.err" >/dev/null
echo "== windows (notes from the profiler's stderr)"
grep -E "^ptrace_profiler: window .* (from|pushed)" "$WORK/pp.err" | cut -c1-200
echo "== summary"
grep -E "ticks in|rate |profiler CPU|windows  |pushed  |push failures" "$WORK/pp.err"
echo "== requests: bytes, lines (distinct stacks), samples"
python3 - "$WORK/requests.log" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
for r in reqs:
    print("  %6d bytes  %5d stacks  %6d samples  %s" % (r["bytes"], r["lines"], r["total"],
          "errors: " + "; ".join(r["errors"]) if r["errors"] else "as documented"))
if reqs:
    full = [r for r in reqs[:-1]] or reqs
    print("  mean of the full windows: %.0f bytes, %.1f bytes per sample" % (
        sum(r["bytes"] for r in full) / len(full),
        sum(r["bytes"] for r in full) / max(1, sum(r["total"] for r in full))))
    r = reqs[0]
    print("== the first request")
    print("POST " + r["path"] + "?" + r["raw_query"])
    for line in r["head"]:
        print("  " + line[:300])
PY
