# --- names: deleted files, profiled by their own unprivileged user --------

# /proc/PID/map_files/ lets only CAP_SYS_ADMIN (or CAP_CHECKPOINT_RESTORE)
# open a mapping.  A deleted program was then all unwind failures, one
# frame "[app (deleted)]", where eu-stack, as the same user, reads the
# file's pages from memory and unwinds.  Now: the program through
# /proc/PID/exe (the whole file: its own names), a deleted library from
# the process's memory (names from .dynsym, as eu-stack's).
unprivileged_deleted_tests() {
	local as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	local dir failures whole lib
	dir=$(mktemp -d /tmp/ptrace_profiler_nobody.XXXXXX)
	chmod 755 "$dir"
	cp "$T/split" "$dir/app"
	cp "$T/late_load" "$dir/loader"
	cp "$T/liblate.so" "$dir/liblate.so"
	chmod 755 "$dir"/*
	if ! "${as_nobody[@]}" "$PP" --version >/dev/null 2>&1; then
		skip "deleted files, unprivileged" "nobody cannot run $PP (a private directory above it?)"
		rm -rf "$dir"
		return
	fi

	start "${as_nobody[@]}" "$dir/app"
	rm "$dir/app"
	"${as_nobody[@]}" "$PP" -p "$TPID" -d 1ms -t 1s >"$TMP/nb_app.folded" 2>"$TMP/nb_app.err"
	stop_target "$TPID"
	whole=$(share "$TMP/nb_app.folded" '^app;[^;]*;_start;__libc_start_main;__libc_start_call_main;main;(cpu_work|sleep_work|cpu_other)')
	failures=$(sed -n 's/.*unwind failures *\([0-9]*\) of.*/\1/p' "$TMP/nb_app.err")
	if atleast "$whole" 95 && [ "${failures:-1}" = 0 ]; then
		pass "deleted program, as its unprivileged user: _start...main;cpu_work|sleep_work|cpu_other in ${whole}%, named from /proc/PID/exe, no unwind failures"
	else fail "deleted program, as its unprivileged user" "_start...main's callees ${whole}% (>= 95), unwind failures ${failures:-?} (0)" "$TMP/nb_app.folded"; fi

	start "${as_nobody[@]}" "$dir/loader" "$dir/liblate.so" 0
	sleep 0.2 # loaded
	rm "$dir/liblate.so"
	"${as_nobody[@]}" "$PP" -p "$TPID" -d 1ms -t 1s >"$TMP/nb_lib.folded" 2>"$TMP/nb_lib.err"
	stop_target "$TPID"
	lib=$(share "$TMP/nb_lib.folded" '^loader;[^;]*;_start;__libc_start_main;__libc_start_call_main;main;late_spin(;|$| )')
	failures=$(sed -n 's/.*unwind failures *\([0-9]*\) of.*/\1/p' "$TMP/nb_lib.err")
	if atleast "$lib" 90 && [ "${failures:-1}" = 0 ]; then
		pass "deleted library, as its unprivileged user: read from memory, _start...main;late_spin in ${lib}%, no unwind failures"
	else fail "deleted library, as its unprivileged user" "_start...main;late_spin ${lib}% (>= 90), unwind failures ${failures:-?} (0)" "$TMP/nb_lib.folded"; fi
	rm -rf "$dir"
}

if [ $CAN_ATTACH = 0 ]; then skip "deleted files, unprivileged" "$WHY_NO_ATTACH"
elif [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null 2>&1; then
	skip "deleted files, unprivileged" "needs root and setpriv to run a target and the profiler as nobody"
else unprivileged_deleted_tests; fi
