#!/usr/bin/env bash
# bench/pg_names.sh - does ptrace_profiler NAME the frames of a real, stripped
# program as well as eu-stack (elfutils) does?
#
# What it measures
#   A PostgreSQL backend serving pgbench (the default TPC-B-like script: CPU
#   work, WAL flushes, row locks, socket waits) is a large stripped C binary
#   whose static functions have no symbol, running on libc (whose local
#   symbols only exist in libc6-dbg's separate debug file) and the vDSO.
#   The same backend is looked at by both tools:
#     - eu-stack -m -a -p PID, $SNAPSHOTS times, 20 ms apart (one process per
#       snapshot, as a script around eu-stack would do);
#     - ptrace_profiler -p PID -d 1ms -t ${PP_SECONDS}s --format stap, and once
#       more in its default folded output, for the cost of naming.
#   Every user frame of both is reduced to (address, name or none, module).
#   Both tools print the frame's real address: the pc for the innermost frame
#   (and for the frame a signal interrupted), the return address for the
#   others; both look a return address up at address-1, so the name of an
#   address should be the same in both.  The report gives
#     - per tool: user frames seen and the share that got a name
#       (ptrace_profiler: a name that is not a "[module]" placeholder;
#       inline frames "NAME_[i]" and kernel frames "NAME_[k]" are left out,
#       as eu-stack without -i shows neither);
#     - per distinct address seen by both tools: names that agree, names only
#       eu-stack gives (listed: these are frames ptrace_profiler should name),
#       names only ptrace_profiler gives, and names that differ; and the
#       addresses a tool names in some samples but not in others (the
#       stap format has no role column, so an address that is a pc in one
#       sample and a return address in another may legitimately show here).
#
# Why
#   Unit tests name frames of small test programs built here; this checks the
#   symbolizer against an independent one on a binary we did not build.
#
# Exit status: 0 when, among the addresses both tools saw, ptrace_profiler
# names every address eu-stack names; 1 otherwise; 2 when the experiment
# itself could not run (server, pgbench or a tool failed).  Prints
# "pg_names: SKIP ..." and exits 0 when a prerequisite is missing.
#
# Everything is throwaway and local: a new cluster in a mktemp directory,
# no TCP (listen_addresses=''), a unix socket in that directory.  The EXIT
# trap kills pgbench, stops the server (pg_ctl stop -m immediate, then
# SIGKILL if it is still there) and removes the directory.
#
# Tunables (environment): PG_NAMES_PORT (54329), PG_NAMES_SNAPSHOTS (300),
# PG_NAMES_SECONDS (5), PG_NAMES_KEEP=1 keeps the raw outputs (the path is
# printed) instead of removing them.  Needs root.  Runs in about 30 s.
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PG_NAMES_PORT:-54329}
SNAPSHOTS=${PG_NAMES_SNAPSHOTS:-300}
PP_SECONDS=${PG_NAMES_SECONDS:-5}
PP=${PP:-./ptrace_profiler}
LIST_MAX=10        # entries listed for "only eu-stack" / "only ptrace_profiler"
LIST_DIFF_MAX=20   # entries listed for "differ"

# ---------------------------------------------------------------- prerequisites
. scripts/pg_cluster.sh
pg_find
missing=()
[ -z "$PG_MISSING" ] || missing+=($PG_MISSING)
command -v eu-stack >/dev/null || missing+=("eu-stack (elfutils)")
[ -x "$PP" ] || missing+=("$PP (run make)")
if [ ${#missing[@]} -gt 0 ]; then
	printf -v list '%s, ' "${missing[@]}"
	echo "pg_names: SKIP missing: ${list%, }"
	exit 0
fi

# ---------------------------------------------------------------- cleanup
WORK=
PGBENCH_PID=

die() { echo "pg_names: ERROR $*" >&2; exit 2; }

cleanup() {
	local rc=$?
	set +e
	if [ -n "$PGBENCH_PID" ]; then
		kill "$PGBENCH_PID" 2>/dev/null
		wait "$PGBENCH_PID" 2>/dev/null
	fi
	if [ -n "$WORK" ] && [ "${PG_NAMES_KEEP:-0}" = 1 ]; then
		KEPT=$(mktemp -d /tmp/pg_names.kept.XXXXXX)
		cp "$WORK"/*.out "$WORK"/*.err "$WORK"/pp.* "$KEPT"/ 2>/dev/null
		echo "pg_names: raw outputs kept in $KEPT" >&2
	fi
	pg_stop
	exit "$rc"
}
trap cleanup EXIT
trap 'echo "pg_names: interrupted" >&2; exit 130' INT
trap 'echo "pg_names: terminated" >&2; exit 143' TERM HUP

# ---------------------------------------------------------------- cluster
pg_start pg_names "$PORT" || die "the cluster did not start"
WORK=$PG_WORK
POSTMASTER_PID=$PG_POSTMASTER
CONN=("${PG_CONN[@]}")
sql() { pg_sql "$1"; }

# ---------------------------------------------------------------- load
"$PGBENCH" "${CONN[@]}" -i -s 5 postgres >"$WORK/pgbench-init.log" 2>&1 ||
	die "pgbench -i failed: $(tail -n 1 "$WORK/pgbench-init.log")"
# -T is only an upper bound: the EXIT trap ends pgbench when we are done.
"$PGBENCH" "${CONN[@]}" -c 2 -j 1 -T 120 postgres >"$WORK/pgbench.log" 2>&1 &
PGBENCH_PID=$!

# One backend serving pgbench (pgbench keeps its connections for the run).
BACKEND=
for _ in $(seq 100); do
	BACKEND=$(sql "select pid from pg_stat_activity
	               where application_name = 'pgbench' and backend_type = 'client backend'
	               order by pid limit 1" 2>/dev/null || true)
	[ -n "$BACKEND" ] && break
	kill -0 "$PGBENCH_PID" 2>/dev/null || die "pgbench ended: $(tail -n 1 "$WORK/pgbench.log")"
	sleep 0.1
done
[ -n "$BACKEND" ] || die "no pgbench backend in pg_stat_activity after 10 s"
ppid=$(awk '{ sub(/^.*\) /, ""); print $2 }' "/proc/$BACKEND/stat")
[ "$ppid" = "$POSTMASTER_PID" ] || die "backend $BACKEND is not a child of postmaster $POSTMASTER_PID"
sleep 1   # past the first transactions' cold caches

alive() {
	kill -0 "$BACKEND" 2>/dev/null || die "backend $BACKEND exited during the run"
	kill -0 "$PGBENCH_PID" 2>/dev/null || die "pgbench ended early: $(tail -n 1 "$WORK/pgbench.log")"
}

# ---------------------------------------------------------------- eu-stack
# -m adds " - MODULE", -a marks frames that are not activations (return
# addresses) with "- 1"; names are looked up at pc-1 for those, as we do.
# A snapshot eu-stack could not finish (exit status 1 or 2) is kept for the
# frames it did print and counted.
eu_errors=0
for i in $(seq "$SNAPSHOTS"); do
	alive
	echo "=== snapshot $i" >>"$WORK/eu-stack.out"
	eu-stack -m -a -p "$BACKEND" >>"$WORK/eu-stack.out" 2>>"$WORK/eu-stack.err" ||
		eu_errors=$((eu_errors + 1))
	sleep 0.02
done

# ---------------------------------------------------------------- ptrace_profiler
alive
"$PP" -p "$BACKEND" -d 1ms -t "${PP_SECONDS}s" --format stap -o "$WORK/pp.stap" \
	2>"$WORK/pp.err" || die "ptrace_profiler failed: $(tail -n 1 "$WORK/pp.err")"
alive
# The default output too, for what naming costs: folded stacks are counted
# by address while sampling and named after detaching.
"$PP" -v -p "$BACKEND" -d 1ms -t "${PP_SECONDS}s" -o "$WORK/pp.folded" \
	2>"$WORK/pp-folded.err" || die "ptrace_profiler failed: $(tail -n 1 "$WORK/pp-folded.err")"
alive

# ---------------------------------------------------------------- parse
# Both parsers write one line per user frame:
#   sample <TAB> address <TAB> name (empty if none) <TAB> module <TAB> role
# address: lower-case hex without leading zeros; module: file name, or
# "[vdso]"; role: "pc" or "ret" (eu-stack only).

# eu-stack -m -a frame lines ("#N", blank-padded to 2 digits):
#   #0  0x00007f0bb1658ef3     epoll_wait - /usr/lib/x86_64-linux-gnu/libc.so.6
#   #3  0x000055968e840407 - 1 - /usr/lib/postgresql/15/bin/postgres
#   #10 0x00007f0bb1577305 - 1 __libc_start_main@@GLIBC_2.34 - /usr/lib/.../libc.so.6
# After the address: 4 characters, "    " (activation) or " - 1" (return
# address); then " NAME" if there is a symbol; then " - MODULE" if the
# address is in a module.  The name is printed without offset; its symbol
# version ("@@GLIBC_2.34", "@GLIBC_2.2.5") is not part of the name.
awk -v OFS='\t' '
function hex(a) { a = tolower(a); sub(/^0x0*/, "", a); return "0x" (a == "" ? "0" : a) }
/^=== snapshot / { sample = $3; next }
/^#[0-9]+ +0x[0-9a-fA-F]+/ {
	match($0, /^#[0-9]+ +0x[0-9a-fA-F]+/)
	head = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 1)
	sub(/^#[0-9]+ +/, "", head)
	role = (substr(rest, 1, 4) == " - 1") ? "ret" : "pc"
	rest = substr(rest, 5)
	# The module is after the last " - " (a path, or "[vdso: PID]").
	module = ""; name = rest
	for (p = length(rest) - 2; p >= 1; p--)
		if (substr(rest, p, 3) == " - ") {
			module = substr(rest, p + 3); name = substr(rest, 1, p - 1); break
		}
	sub(/^ +/, "", name); sub(/ +$/, "", name)
	sub(/@.*$/, "", name)                    # symbol version
	sub(/\+0x[0-9a-fA-F]+$/, "", name)       # an offset, should one be printed
	if (module ~ /^\[vdso/) module = "[vdso]"
	else sub(/^.*\//, "", module)
	print sample, hex(head), name, module, role
}' "$WORK/eu-stack.out" >"$WORK/eu.frames"

# ptrace_profiler --format stap: per sample, frame lines " 0x<16 hex> : NAME+0x0"
# (kernel frames "NAME_[k]" first, then user frames innermost first), a state
# line, "1", an empty line.  A frame without a symbol is "[module]" (or
# "[unknown]", "[anon]"); "[signal]" names the sigreturn trampoline, which
# eu-stack calls __restore_rt; inline frames "NAME_[i]" share the address of
# the next line and are skipped, as are kernel frames.  The role column is
# left empty: the format does not say which frames are pcs, and only
# eu-stack's roles are reported.
awk -v OFS='\t' '
function hex(a) { a = tolower(a); sub(/^0x0*/, "", a); return "0x" (a == "" ? "0" : a) }
BEGIN { sample = 1 }
/^$/ { sample++; next }
/^ 0x[0-9a-fA-F]+ : / {
	addr = $1
	name = substr($0, index($0, " : ") + 3)
	sub(/\+0x[0-9a-fA-F]+$/, "", name)
	if (name ~ /_\[k\]$/ || name ~ /_\[i\]$/) next
	module = ""
	# "[signal]" is a name: ours for the sigreturn trampoline (glibc calls
	# it __restore_rt, a local symbol).
	if (name == "[signal]") name = "__restore_rt"
	else if (name ~ /^\[.*\]$/) { module = substr(name, 2, length(name) - 2); name = "" }
	print sample, hex(addr), name, module, ""
}' "$WORK/pp.stap" >"$WORK/pp.frames"

[ -s "$WORK/eu.frames" ] || die "no eu-stack frames parsed ($(head -n 1 "$WORK/eu-stack.err" 2>/dev/null))"
[ -s "$WORK/pp.frames" ] || die "no ptrace_profiler frames parsed"

# ---------------------------------------------------------------- compare
# Per address, each tool's set of names (normally one).  Categories for the
# addresses both tools saw:
#   agree    both name it, with the same name(s)
#   euonly   eu-stack names it, ptrace_profiler does not   -> a miss
#   pponly   ptrace_profiler names it, eu-stack does not
#   differ   both name it, differently
#   none     neither names it
# The lists go to files, one entry a line, "count <TAB> text", for sorting.
awk -F'\t' -v OFS='\t' -v dir="$WORK" '
function addname(set, a, n) {
	if (n == "") return
	if (!((a, n) in seen_name)) {
		seen_name[a, n] = 1
		# (not "set[a] = (a in set) ? ...": mawk creates set[a] first)
		if (a in set) set[a] = set[a] " | " n
		else set[a] = n
	}
}
# Whether every name of the list "n1 | n2 ..." is a name seen under KEY.
function same_names(list, key,    k, i, names) {
	k = split(list, names, / \| /)
	for (i = 1; i <= k; i++)
		if (!((key, names[i]) in seen_name)) return 0
	return 1
}
FNR == 1 { tool++ }
tool == 1 {                                  # eu-stack
	eu_frames++; if ($3 != "") eu_named++
	eu_samples[$1] = 1
	eu_seen[$2]++; eu_mod[$2] = $4
	eu_role[$2] = (eu_role[$2] == "" || eu_role[$2] == $5) ? $5 : "pc+ret"
	if ($3 == "") eu_unnamed[$2] = 1
	addname(eu_names, "eu" SUBSEP $2, $3); eu_key[$2] = "eu" SUBSEP $2
	next
}
{                                            # ptrace_profiler
	pp_frames++; if ($3 != "") pp_named++
	pp_samples[$1] = 1
	pp_seen[$2]++; if ($4 != "") pp_mod[$2] = $4
	if ($3 == "") pp_unnamed[$2] = 1
	addname(pp_names, "pp" SUBSEP $2, $3); pp_key[$2] = "pp" SUBSEP $2
}
END {
	for (s in eu_samples) eu_n++
	for (s in pp_samples) pp_n++
	for (a in eu_seen) { eu_addrs++; if (!(a in pp_seen)) eu_alone++ }
	for (a in pp_seen) { pp_addrs++; if (!(a in eu_seen)) pp_alone++ }
	for (a in eu_seen) {
		if (!(a in pp_seen)) continue
		common++
		en = (eu_key[a] in eu_names) ? eu_names[eu_key[a]] : ""
		pn = (pp_key[a] in pp_names) ? pp_names[pp_key[a]] : ""
		where = sprintf("%-18s %-12s %-6s", a, eu_mod[a], eu_role[a])
		cnt = eu_seen[a] + pp_seen[a]
		if (en == "" && pn == "") none++
		else if (pn == "") {
			euonly++
			print cnt, where "  eu-stack: " en "  ptrace_profiler: [" pp_mod[a] "]" > (dir "/list.euonly")
		} else if (en == "") {
			pponly++
			print cnt, where "  ptrace_profiler: " pn > (dir "/list.pponly")
		} else if (same_names(en, "pp" SUBSEP a) && same_names(pn, "eu" SUBSEP a)) agree++
		else {
			differ++
			print cnt, where "  eu-stack: " en "  ptrace_profiler: " pn > (dir "/list.differ")
		}
		# The same tool naming an address in some samples only.
		if (en != "" && (a in eu_unnamed)) print cnt, where "  eu-stack, sometimes none: " en > (dir "/list.mixed")
		if (pn != "" && (a in pp_unnamed)) print cnt, where "  ptrace_profiler, sometimes [" pp_mod[a] "]: " pn > (dir "/list.mixed")
	}
	printf "eu_n=%d eu_frames=%d eu_named=%d eu_addrs=%d eu_alone=%d\n", eu_n, eu_frames, eu_named, eu_addrs, eu_alone
	printf "pp_n=%d pp_frames=%d pp_named=%d pp_addrs=%d pp_alone=%d\n", pp_n, pp_frames, pp_named, pp_addrs, pp_alone
	printf "common=%d agree=%d euonly=%d pponly=%d differ=%d none=%d\n", common, agree, euonly, pponly, differ, none
}' "$WORK/eu.frames" "$WORK/pp.frames" >"$WORK/counts"

# The "key=value ..." lines into the array N (integers only).
declare -A N
while read -r line; do
	for kv in $line; do
		case $kv in
		*=*[!0-9]* | *=) die "bad count '$kv'" ;;
		*) N[${kv%%=*}]=${kv#*=} ;;
		esac
	done
done <"$WORK/counts"

pct() { awk -v n="$1" -v d="$2" 'BEGIN { printf "%.1f%%", d ? 100 * n / d : 0 }'; }
# show FILE MAX: the FILE's entries, most frequent first, at most MAX.
show() {
	[ -s "$1" ] || return 0
	sort -t "$(printf '\t')" -k1,1nr -k2 "$1" | head -n "$2" |
		awk -F'\t' '{ printf "    %s  (%d frames)\n", $2, $1 }'
	local n
	n=$(wc -l <"$1")
	[ "$n" -le "$2" ] || echo "    ... and $((n - $2)) more"
}

pp_summary=$(grep -m 1 'thread samples' "$WORK/pp.err" || true)
echo "pg_names: PostgreSQL $("$PGBIN/postgres" --version | awk '{ print $3 }') backend $BACKEND under pgbench -c 2 -j 1 (scale 5)"
echo "  eu-stack         ${N[eu_n]} snapshots ($eu_errors with errors), ${N[eu_frames]} frames, $(pct "${N[eu_named]}" "${N[eu_frames]}") named, ${N[eu_addrs]} distinct addresses"
echo "  ptrace_profiler  ${N[pp_n]} samples, ${N[pp_frames]} user frames, $(pct "${N[pp_named]}" "${N[pp_frames]}") named, ${N[pp_addrs]} distinct addresses"
[ -z "$pp_summary" ] || echo "                   (${pp_summary#ptrace_profiler: })"
folded_named=$(awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
	for (i = 3; i <= k; i++) if (f[i] !~ /_\[k\]$/) { t += n; if (f[i] !~ /^\[/) m += n } }
	END { printf "%.1f%%", t ? 100 * m / t : 0 }' "$WORK/pp.folded")
echo "  ptrace_profiler, folded (inline frames included): $folded_named of user frames named; $(stack_line='work per sample'; grep -m 1 "$stack_line" "$WORK/pp-folded.err" | sed 's/^ *//');"
echo "                   $(grep -m 1 'naming' "$WORK/pp-folded.err" | sed 's/^ *//'), $(wc -l <"$WORK/pp.folded") distinct stacks"
if [ "$eu_errors" -gt 0 ]; then
	echo "  eu-stack's first error: $(grep -m 1 . "$WORK/eu-stack.err" || echo "(no message)")"
fi
echo "  addresses seen by eu-stack only: ${N[eu_alone]}, by ptrace_profiler only: ${N[pp_alone]}, by both: ${N[common]}"
echo "  of the ${N[common]} common addresses (address, eu-stack module, eu-stack role):"
echo "    same name            ${N[agree]}"
echo "    neither names        ${N[none]}"
echo "    only eu-stack names  ${N[euonly]}"
show "$WORK/list.euonly" "$LIST_MAX"
echo "    only ptrace_profiler names  ${N[pponly]}"
show "$WORK/list.pponly" "$LIST_MAX"
echo "    names differ         ${N[differ]}"
show "$WORK/list.differ" "$LIST_DIFF_MAX"
if [ -s "$WORK/list.mixed" ]; then
	echo "    named in some samples only: $(wc -l <"$WORK/list.mixed")"
	show "$WORK/list.mixed" "$LIST_MAX"
fi

[ "${N[common]}" -gt 0 ] || die "no address seen by both tools: nothing to compare"
echo "pg_names: ptrace_profiler named $(pct "${N[pp_named]}" "${N[pp_frames]}") of user frames (${N[pp_frames]}), eu-stack $(pct "${N[eu_named]}" "${N[eu_frames]}") (${N[eu_frames]}); common addresses ${N[common]}: eu-stack-only names ${N[euonly]}, differing ${N[differ]}"
[ "${N[euonly]}" -eq 0 ]
