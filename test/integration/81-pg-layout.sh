# --- PostgreSQL's structs and enums, from its own headers
# build/test/pg_layout-N (test/tools/pg_layout.c) is compiled against the
# server headers of major N (Debian's postgresql-server-dev-N) and compares
# offsetof()/sizeof() of the PgBackendStatus fields and globals the db
# layer reads, and the BackendType and BackendState numbers, with
# pgbackend.h's constants and pgactivity.c's tables.  No server runs.

pg_layout_test() {
	local inc major bin out n_ok bad
	for inc in "$@"; do
		major=${inc#/usr/include/postgresql/}
		major=${major%/server}
		bin=build/test/pg_layout-$major
		if [ ! -x "$bin" ]; then
			fail "PostgreSQL $major layout" "$inc is installed but $bin is not built (make pg-layout)"
			continue
		fi
		out=$TMP/pg-layout-$major.txt
		"$bin" >"$out" 2>&1
		local rc=$?
		n_ok=$(grep -c '^ok ' "$out")
		bad=$(grep -v '^ok \|^#' "$out" | head -n 3 | tr '\n' '|')
		# every field the layer reads, and both enums, were compared
		if [ $rc = 0 ] && [ -z "$bad" ] && grep -q '^ok *PgBackendStatus.st_query_id: offset 424 ' "$out" &&
			grep -q '^ok *BackendType B_BACKEND = ' "$out" && grep -q '^ok *BackendState STATE_RUNNING = ' "$out"; then
			pass "PostgreSQL $major's headers ($inc): the PgBackendStatus offsets, the globals' sizes and the BackendType/BackendState numbers the db layer assumes, $n_ok checks, all agree"
		else fail "PostgreSQL $major layout against its headers" "exit $rc: ${bad:-no line for st_query_id, B_BACKEND or STATE_RUNNING} (all of it: $out)"; fi
	done
}

pg_layout_incs=(/usr/include/postgresql/*/server)
if [ -d "${pg_layout_incs[0]}" ]; then
	pg_layout_test "${pg_layout_incs[@]}"
else
	skip "PostgreSQL layout against its headers" "no server headers under /usr/include/postgresql/*/server (apt-get install postgresql-server-dev-15)"
fi
