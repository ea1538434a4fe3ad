# --- root among strangers: what the target's owner plants where we read --
# (issue 28).  The target runs as nobody (65534) in a directory of its
# own, as a PostgreSQL server runs in its data directory; nobody plants
# what the profiler, as root, reads there.  Nothing planted may be read
# if it is not a regular file of the target's own user (a root-only file
# must not leak into the profile), or make a run block.

strangers_reads_tests() {
	local as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	local d secret=$TMP/pg_secret rc named case
	d=$(mktemp -d /tmp/pp-reads.XXXXXX) && chmod 755 "$d" && chown 65534:65534 "$d"
	cp "$T/fake_pg_nover" "$d/postgres" && chmod 755 "$d/postgres"
	echo 15 >"$secret" && chmod 600 "$secret"

	what_pgv() {
		case $1 in
		link) echo "a link to a root-only file, planted by the server's user" ;;
		rootfile) echo "a root-only file (as a bind mount shows one)" ;;
		fifo) echo "a FIFO planted by the server's user" ;;
		esac
	}
	# PG_VERSION: the version of a server whose binary does not say it
	# (fake_pg_nover).  Read, the wait events have their names (IO:WALSync);
	# not read, they are numbers and the run says so.
	for case in own link rootfile fifo; do
		rm -f "$d/PG_VERSION"
		case $case in
		own) "${as_nobody[@]}" sh -c "echo 15 >'$d/PG_VERSION'" ;;
		link) "${as_nobody[@]}" ln -s "$secret" "$d/PG_VERSION" ;;
		rootfile) cp "$secret" "$d/PG_VERSION" ;; # a root-only file there (a bind mount)
		fifo) "${as_nobody[@]}" mkfifo "$d/PG_VERSION" ;;
		esac
		start "${as_nobody[@]}" env -C "$d" "$d/postgres"
		timeout -s KILL 15 "$PP" -p "$TPID" --pg-wait-events -d 1ms -t 1s >"$TMP/pgv.folded" 2>"$TMP/pgv.err"
		rc=$?
		stop_target "$TPID"
		named=$(share_str "$TMP/pgv.folded" 'event=IO:WALSync')
		if [ $case = own ]; then
			if [ $rc = 0 ] && atleast "$named" 10; then
				pass "PG_VERSION of the server's own user: read (IO:WALSync named in ${named}% of samples)"
			else fail "PG_VERSION of the server's own user" "exit $rc, IO:WALSync in ${named}% (>= 10)" "$TMP/pgv.err"; fi
		elif [ $rc = 0 ] && [ "$named" = 0.0 ] && grep -q "no PG_VERSION file of its user's" "$TMP/pgv.err"; then
			pass "PG_VERSION $(what_pgv $case): not read (wait events as numbers, and said), exit 0"
		else fail "PG_VERSION as a $case" "exit $rc$( [ $rc = 137 ] && echo ' (hung: killed at 15 s)'), IO:WALSync named in ${named}% (0: the file must not be read)" "$TMP/pgv.err"; fi
	done
	rm -rf "$d"
}

if [ $CAN_ATTACH = 0 ]; then skip "what strangers plant where we read" "$WHY_NO_ATTACH"
elif [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip "what strangers plant where we read" "needs root and setpriv to plant as nobody"
else strangers_reads_tests; fi
