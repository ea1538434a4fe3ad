# --- many processes: every file read once, never shared by mistake --------

# From a summary: the profiler's peak memory in MB, the naming time in ms,
# the ELF files it read.
peak_mb() { sed -n 's/^ *profiler memory *\([0-9.]*\) MB.*/\1/p' "$1"; }
naming_ms() { sed -n 's/^ *naming *\([0-9.]*\) ms.*/\1/p' "$1"; }
files_read() { sed -n 's/^ *naming .*; \([0-9]*\) ELF files.*/\1/p' "$1"; }
# user_stacks: the distinct user stacks of folded lines on stdin: the root
# frame (which names the process), the state and the kernel frames (not
# ours to name) left out.
user_stacks() {
	sed 's/ [0-9]*$//' | awk -F';' '{ s = ""; for (i = 3; i <= NF; i++) if ($i !~ /_\[k\]$/) s = s ";" $i; print s }' | sort -u
}

# 40 processes of one program, asleep in work_a: -p of one, then of all.
many_processes_tests() {
	local pids=() p i
	for i in $(seq 1 40); do
		"$T/which_a" -s 60000 &
		pids+=("$!")
		PIDS+=("$!")
	done
	for p in "${pids[@]}"; do settle "$p" which_a S; done
	local list
	list=$(IFS=,; echo "${pids[*]}")
	"$PP" -p "${pids[0]}" -d 10ms -n 20 >"$TMP/one.folded" 2>"$TMP/one.err"
	local rc1=$?
	"$PP" -p "$list" -d 10ms -n 20 >"$TMP/forty.folded" 2>"$TMP/forty.err"
	local rc40=$?
	for p in "${pids[@]}"; do stop_target "$p"; done

	local one_stacks mem1 mem40 nam1 nam40 files1 files40 seen=0 differ=0
	one_stacks=$(user_stacks <"$TMP/one.folded")
	for p in "${pids[@]}"; do
		grep -q "^which_a\[$p\]/" "$TMP/forty.folded" || continue
		seen=$((seen + 1))
		[ "$(grep "^which_a\[$p\]/" "$TMP/forty.folded" | user_stacks)" = "$one_stacks" ] || differ=$((differ + 1))
	done
	mem1=$(peak_mb "$TMP/one.err") mem40=$(peak_mb "$TMP/forty.err")
	nam1=$(naming_ms "$TMP/one.err") nam40=$(naming_ms "$TMP/forty.err")
	files1=$(files_read "$TMP/one.err") files40=$(files_read "$TMP/forty.err")
	if [ $rc1 = 0 ] && [ $rc40 = 0 ] && [ -n "$mem1" ] && [ -n "$nam1" ] &&
		grep -q ';main;work_a;' <<<"$one_stacks" && ! grep -qF '[unknown]' <<<"$one_stacks" &&
		[ "$seen" = 40 ] && [ "$differ" = 0 ] && [ "$files40" = "$files1" ]; then
		pass "40 processes of one program: each of the 40 with the one-process run's user stacks, named alike (main;work_a... from its symbols, libc's from its debug info); $files40 ELF files read, as for one"
	else fail "40 processes: names" "exit $rc1/$rc40, $seen of 40 processes sampled, $differ with other stacks than the one-process run's, files read $files1 and $files40 (equal), one-process stacks: $(tr '\n' ' ' <<<"$one_stacks" | cut -c1-300)" "$TMP/forty.folded"; fi
	if [ -z "$mem40" ] || [ -z "$nam40" ]; then fail "40 processes: memory and naming said" "the 40-process summary says peak memory '${mem40}', naming '${nam40}' ms" "$TMP/forty.err"; fi
	if [ -n "$mem40" ] && awk -v a="$mem40" -v b="$mem1" 'BEGIN { exit !(a <= 1.5 * b + 10) }'; then
		pass "40 processes: peak memory ${mem40} MB (<= 1.5 x ${mem1} MB for one + 10 MB)"
	else tfail "40 processes: memory" "peak ${mem40:-?} MB, more than 1.5 x ${mem1:-?} MB for one + 10 MB"; fi
	if [ -n "$nam40" ] && awk -v a="$nam40" -v b="$nam1" 'BEGIN { exit !(a <= 2 * b + 50) }'; then
		pass "40 processes: naming ${nam40} ms (<= 2 x ${nam1} ms for one + 50 ms)"
	else tfail "40 processes: naming time" "${nam40:-?} ms, more than 2 x ${nam1:-?} ms for one + 50 ms"; fi
}

# A server forks and execs one path, and the file at that path is
# replaced meanwhile (renamed over it, as a package upgrade does): the
# old processes run on in the old file, the new ones in the new.  The two
# builds have the same size, layout and code at the same addresses; only
# their names differ (work_a, work_b), and, in the second round, nothing
# else tells them apart but their inodes (no build-id, the same mtime).
replaced_exec_tests() {
	if [ "$(id -u)" != 0 ]; then
		skip "exec of a replaced file" "the old processes' file is deleted: /proc/PID/map_files needs root"
		return
	fi
	local variant
	for variant in build-id no-build-id; do
		local prog=$TMP/prog next=$TMP/prog.next
		place() {
			if [ "$variant" = build-id ]; then cp "$1" "$next"
			else objcopy --remove-section=.note.gnu.build-id "$1" "$next"; fi
			touch -d '2024-01-01 00:00:00' "$next"
			mv -f "$next" "$prog"
		}
		place "$T/which_a"
		# Every 100 ms a child that execs $prog and sleeps 300 ms in its work.
		bash -c 'while :; do "$0" -s 300 & sleep 0.1; done' "$prog" &
		local parent=$!
		PIDS+=("$parent")
		sleep 0.2
		"$PP" -p "$parent" --subprocesses -d 5ms -t 2s >"$TMP/replaced.folded" 2>"$TMP/replaced.err" &
		local pp=$!
		sleep 0.9
		place "$T/which_b"
		wait $pp
		local rc=$?
		stop_target "$parent"
		sleep 0.4 # its last children end by themselves

		local p a=0 b=0 both=0 named unnamed
		for p in $(sed -n 's/^prog\[\([0-9]*\)\]\/.*/\1/p' "$TMP/replaced.folded" | sort -u); do
			local has_a=0 has_b=0
			grep "^prog\[$p\]/" "$TMP/replaced.folded" | grep -q ';main;work_a;' && has_a=1
			grep "^prog\[$p\]/" "$TMP/replaced.folded" | grep -q ';main;work_b;' && has_b=1
			if [ $has_a = 1 ] && [ $has_b = 1 ]; then both=$((both + 1))
			elif [ $has_a = 1 ]; then a=$((a + 1))
			elif [ $has_b = 1 ]; then b=$((b + 1)); fi
		done
		named=$(share_of "$TMP/replaced.folded" '^prog\[' ';main;work_[ab];')
		# samples with a [prog] frame: an address of the file no symbol
		# holds (a PLT stub, caught on the way to nanosleep) says so; in
		# under 1 % of them (one in 2,000 seen: 22 processes, 2 s)
		unnamed=$(grep '^prog\[' "$TMP/replaced.folded" | grep -F '[prog' | total /dev/stdin)
		local progs
		progs=$(grep '^prog\[' "$TMP/replaced.folded" | total /dev/stdin)
		if [ $rc = 0 ] && [ $a -ge 1 ] && [ $b -ge 1 ] && [ $both = 0 ] && [ $((100 * unnamed)) -lt "$progs" ]; then
			pass "exec of a replaced file ($variant): $a processes of the old file named work_a, $b of the new one work_b, none both; $unnamed of $progs samples with a [prog] frame"
		else fail "exec of a replaced file ($variant)" "exit $rc, processes: $a work_a only, $b work_b only (>= 1 each), $both both (0); $unnamed of $progs samples with a [prog] frame (under 1 %)" "$TMP/replaced.folded"; fi
		# each child sleeps 300 ms in its work after its start-up
		if atleast "$named" 80; then pass "exec of a replaced file ($variant): main;work_* in ${named}% of their samples"
		else tfail "exec of a replaced file ($variant): share in main;work_*" "main;work_* ${named}% (>= 80)" "$TMP/replaced.folded"; fi
	done
}

if [ $CAN_ATTACH = 1 ]; then
	many_processes_tests
	replaced_exec_tests
else
	skip "many processes" "$WHY_NO_ATTACH"
fi
