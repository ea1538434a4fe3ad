# --- names where a file's mappings lie apart, a dead main thread, JIT maps --

# profile_n NAME ROUNDS [OPTIONS...]: as profile, for a number of rounds
# rather than a time: on a loaded machine a second may hold few samples.
profile_n() {
	local name=$1 rounds=$2
	shift 2
	"$PP" -p "$TPID" -d 1ms -n "$rounds" "$@" >"$TMP/$name.folded" 2>"$TMP/$name.err"
}

# stap_frames STAP: "address<TAB>name" for each user frame of a --format stap
# file (kernel and inline frames left out), addresses in lower-case hex
# without leading zeros.
stap_frames() {
	awk -v OFS='\t' '
	/^ 0x[0-9a-fA-F]+ : / {
		a = tolower($1); sub(/^0x0*/, "", a)
		name = substr($0, index($0, " : ") + 3); sub(/\+0x[0-9a-fA-F]+$/, "", name)
		if (name !~ /_\[[ki]\]$/) print "0x" a, name
	}' "$1"
}

# eu_frames EU MODULES: "address<TAB>name" for each frame eu-stack -m -a put
# in a file whose basename matches the regex MODULES (name empty when it
# had none; the regex through ENVIRON, as is).
eu_frames() {
	WANT=$2 awk -v OFS='\t' '
	/^#[0-9]+ +0x[0-9a-fA-F]+/ {
		match($0, /^#[0-9]+ +0x[0-9a-fA-F]+/)
		head = substr($0, 1, RLENGTH); rest = substr($0, RLENGTH + 5)
		sub(/^#[0-9]+ +0x0*/, "", head)
		module = ""; name = rest
		for (p = length(rest) - 2; p >= 1; p--)
			if (substr(rest, p, 3) == " - ") { module = substr(rest, p + 3); name = substr(rest, 1, p - 1); break }
		sub(/^.*\//, "", module); sub(/^ +/, "", name); sub(/ +$/, "", name); sub(/@.*$/, "", name)
		if (module ~ ENVIRON["WANT"]) print "0x" tolower(head), name
	}' "$1"
}

# name_check FRAMES MAPS NM BASE MODULE: every frame (address<TAB>name)
# whose address lies in one of MAPS' mappings (start-end per line, hex) is
# checked against the binary's own symbols (NM: nm -S output), BASE being
# the address of its ELF vaddr 0: named after the sized symbol that holds
# the address (or the byte before: return addresses are looked up there),
# or "[MODULE]" where no symbol holds it.  Prints "frames named right
# unnamed_ok wrong" - wrong counts names that are not the address's
# symbol and [MODULE] where a symbol holds it.
name_check() {
	awk -v base="$4" -v module="[$5]" '
	# hex to number (mawk has no strtonum; user addresses fit a double)
	function num(h,    i, c, v) {
		h = tolower(h); sub(/^0x/, "", h); v = 0
		for (i = 1; i <= length(h); i++) { c = index("0123456789abcdef", substr(h, i, 1)); if (!c) break; v = v * 16 + c - 1 }
		return v
	}
	FILENAME == ARGV[1] { split($1, r, "-"); lo[++nm] = num("0x" r[1]); hi[nm] = num("0x" r[2]); next }
	FILENAME == ARGV[2] { if (NF == 4 && $3 ~ /^[tTwW]$/) { s[++ns] = num("0x" $1); e[ns] = s[ns] + num("0x" $2); sym[ns] = $4 } next }
	{
		a = num($1); inside = 0
		for (i = 1; i <= nm; i++) if (a >= lo[i] && a < hi[i]) inside = 1
		if (!inside) next
		frames++
		v = a - num(base); want = ""; alt = ""
		for (i = 1; i <= ns; i++) {
			if (v >= s[i] && v < e[i]) want = sym[i]
			if (v - 1 >= s[i] && v - 1 < e[i]) alt = sym[i]
		}
		if ($2 == module) { if (want == "" && alt == "") unnamed++; else wrong++ }
		else if ($2 == want || $2 == alt) right++
		else { wrong++; if (bad++ < 3) print "wrong: " $1 " " $2 " (symbol " want " / " alt ")" > "/dev/stderr" }
	}
	END { printf "%d %d %d %d\n", frames, right, unnamed, wrong }' "$2" "$3" "$1"
}

# eu_compare OURS EUS: address by address, the names two tools gave
# ("address<TAB>name" files).  Prints "common agree differ euonly".
eu_compare() {
	awk -F'\t' '
	FNR == 1 { f++ }
	# (two statements: mawk creates ours[$1] before it tests "in")
	f == 1 { if (!($1 in ours)) ours[$1] = $2; else if (ours[$1] != $2) ours[$1] = "?"; next }
	{ if ($1 in eu) next; eu[$1] = $2 }
	END {
		for (a in eu) {
			if (!(a in ours)) continue
			common++
			o = ours[a]; n = eu[a]
			if (n != "" && o ~ /^\[/) euonly++
			else if (n == o || (n == "" && o ~ /^\[/)) agree++
			else { differ++; if (d++ < 3) print "differ: " a " eu-stack " n ", ours " o > "/dev/stderr" }
		}
		printf "%d %d %d %d\n", common, agree, differ, euonly
	}' "$1" "$2"
}

# eu_snapshots PID N FILE: N eu-stack -m -a snapshots of PID, 20 ms apart.
eu_snapshots() {
	local i
	: >"$3"
	for i in $(seq "$2"); do
		eu-stack -m -a -p "$1" >>"$3" 2>/dev/null
		sleep 0.02
	done
}

lld_gap_tests() {
	if [ ! -x "$T/lld_gap" ]; then
		skip "lld, segments 2 MiB apart" "ld.lld is not installed (Debian package lld): $T/lld_gap was not built"
		return
	fi
	start "$T/lld_gap"
	local maps base
	maps=$(grep -F " $PWD/$T/lld_gap" "/proc/$TPID/maps" | awk '{ print $1 }')
	base=0x$(echo "$maps" | head -n 1 | cut -d- -f1)
	echo "$maps" >"$TMP/lld.maps"
	profile_n lld 1500
	profile_n lld_stap 300 --format stap
	local eu=0
	if command -v eu-stack >/dev/null; then eu_snapshots "$TPID" 20 "$TMP/lld.eu"; eu=1; fi
	stop_target "$TPID"

	local alpha beta named
	alpha=$(share "$TMP/lld.folded" ';main;burn_alpha;')
	beta=$(share "$TMP/lld.folded" ';main;burn_beta;')
	named=$(share "$TMP/lld.folded" '^lld_gap;R \((running|runnable)\);_start;__libc_start_main;(__libc_start_call_main|\[libc[^;]*\]);main;burn_(alpha|beta)(;|$| )')
	if atleast "$named" 95 && nowhere "$TMP/lld.folded" '[unknown]'; then
		pass "lld, segments 2 MiB apart: _start...main;burn_* in ${named}%, no [unknown]"
	else fail "lld, segments 2 MiB apart" "named from _start ${named}% (>= 95), [unknown] $(nowhere "$TMP/lld.folded" '[unknown]' && echo none || echo present)" "$TMP/lld.folded"; fi
	# its 60/40 split of time is time
	if near "$alpha" 60 "$TOL" && near "$beta" 40 "$TOL"; then
		pass "lld, segments 2 MiB apart: burn_alpha ${alpha}% (60), burn_beta ${beta}% (40)"
	else tfail "lld, segments 2 MiB apart: the 60/40 split" "burn_alpha ${alpha}% (60 +- $TOL), burn_beta ${beta}% (40 +- $TOL)" "$TMP/lld.folded"; fi

	stap_frames "$TMP/lld_stap.folded" >"$TMP/lld.ours"
	local frames right unnamed wrong
	if command -v nm >/dev/null; then
		nm -S --defined-only "$T/lld_gap" >"$TMP/lld.nm"
		read -r frames right unnamed wrong < <(name_check "$TMP/lld.ours" "$TMP/lld.maps" "$TMP/lld.nm" "$base" lld_gap)
		# the names: function; how many frames 300 samples gave: time
		if [ "${frames:-0}" -gt 0 ] && [ "$wrong" = 0 ] && atleast "$right" "$((frames * 99 / 100))"; then
			pass "lld: each of $frames frames in the binary named after the nm symbol holding its address ($right; $unnamed [lld_gap] where none does; 0 wrong)"
		else fail "lld: names against nm" "frames ${frames:-0} (> 0), right $right (>= 99%), [lld_gap] with no symbol $unnamed, wrong $wrong (0)"; fi
		[ "${frames:-0}" -ge 900 ] || tfail "lld: frames in the binary" "${frames:-0} frames (>= 900: 300 samples)"
	else
		skip "lld: names against nm" "nm (binutils) is not installed"
	fi
	if [ $eu = 1 ]; then
		eu_frames "$TMP/lld.eu" '^lld_gap$' >"$TMP/lld.eus"
		local common agree differ euonly
		read -r common agree differ euonly < <(eu_compare "$TMP/lld.ours" "$TMP/lld.eus")
		if [ "${common:-0}" -ge 4 ] && [ "$differ" = 0 ] && [ "$euonly" = 0 ]; then
			pass "lld: against eu-stack, address by address: $common addresses both saw, $agree same name, 0 differ, 0 named by eu-stack only"
		else fail "lld: against eu-stack" "common ${common:-0} (>= 4), differ $differ, eu-stack only $euonly (0 each)"; fi
	else
		skip "lld: against eu-stack" "eu-stack (Debian package elfutils) is not installed"
	fi
}

node_tests() {
	if ! command -v node >/dev/null; then
		skip "node" "node is not installed"
		return
	fi
	# An idle event loop: the main thread waits in epoll_wait under uv_run.
	start node -e 'setInterval(() => {}, 1000)'
	local i nr
	for i in $(seq 100); do
		nr=$(cut -d' ' -f1 "/proc/$TPID/task/$TPID/syscall" 2>/dev/null)
		case $nr in 232 | 281 | 441) break ;; esac # epoll_wait, epoll_pwait, epoll_pwait2
		sleep 0.1
	done
	profile_n node 300 --tid "$TPID" --format stap
	local eu=0
	if command -v eu-stack >/dev/null; then eu_snapshots "$TPID" 3 "$TMP/node.eu"; eu=1; fi
	profile_n node_folded 500 --tid "$TPID"
	stop_target "$TPID"
	local loop from_start
	loop=$(share "$TMP/node_folded.folded" ';uv_run;uv__io_poll;epoll_(p)?wait')
	from_start=$(share "$TMP/node_folded.folded" '^node;[^;]*;_start;__libc_start_main;[^;]*;node::Start\(int, char\*\*\);.*;uv_run;')
	if atleast "$loop" 95 && atleast "$from_start" 95; then
		pass "node main thread: uv_run;uv__io_poll;epoll_wait in ${loop}%, from _start through node::Start in ${from_start}%"
	else fail "node main thread" "uv_run;uv__io_poll;epoll_wait ${loop}% (>= 95), from _start ${from_start}% (>= 95)" "$TMP/node_folded.folded"; fi
	if [ $eu = 1 ]; then
		stap_frames "$TMP/node.folded" >"$TMP/node.ours"
		# node's own code: the binary (nodesource's node 20 holds libuv
		# too), or Debian's libnode and libuv.
		eu_frames "$TMP/node.eu" '^(node|libnode\.so.*|libuv\.so.*)$' >"$TMP/node.eus"
		local common agree differ euonly
		read -r common agree differ euonly < <(eu_compare "$TMP/node.ours" "$TMP/node.eus")
		if [ "${common:-0}" -ge 4 ] && [ "$differ" = 0 ] && [ "$euonly" = 0 ]; then
			pass "node: against eu-stack, address by address in node's own code: $common addresses both saw, $agree same name, 0 differ"
		else fail "node: against eu-stack" "common ${common:-0} (>= 4), differ $differ, eu-stack only $euonly (0 each)"; fi
	else
		skip "node: against eu-stack" "eu-stack (Debian package elfutils) is not installed"
	fi
}

dead_leader_tests() {
	# The main thread has exited (pthread_exit in main) before we attach;
	# the binary is deleted, so only /proc/TID/map_files of the live
	# thread leads to it (map_files needs root: without, it stays).
	local how="binary deleted"
	cp "$T/dead_leader" "$TMP/dead_leader"
	start "$TMP/dead_leader"
	if [ "$(id -u)" = 0 ]; then rm "$TMP/dead_leader"; else how="binary in place (not root)"; fi
	local i
	for i in $(seq 50); do
		[ -s "/proc/$TPID/maps" ] || break # empty once the main thread is gone
		sleep 0.1
	done
	local state
	state=$(sed 's/.*) //' "/proc/$TPID/stat" | cut -d' ' -f1)
	profile_n dead 1000
	stop_target "$TPID"
	local spin rest named unknown
	spin=$(share "$TMP/dead.folded" '^worker;R \((running|runnable)\);__clone3;start_thread;worker_main;spin_work( |;|$)')
	rest=$(share "$TMP/dead.folded" '^worker;S \(sleeping\);__clone3;start_thread;worker_main;rest_work;clock_nanosleep')
	named=$(share "$TMP/dead.folded" '^worker;[^;]*;__clone3;start_thread;worker_main;(spin_work|rest_work)')
	# a tick in now()'s call of clock_gettime@plt leaves the PLT's stub
	# unnamed, as every stub is (it has no symbol): "now;[dead_leader]"
	# as the leaf is right (2 of 1000 samples beside a noisy neighbour,
	# 1 of 30000 at 100 us on a quiet one), "[dead_leader (deleted)]" once
	# the binary is gone; any other is not
	unknown=$(grep -vE ';now;\[dead_leader( \(deleted\))?\] [0-9]+$' "$TMP/dead.folded" | share /dev/stdin '\[unknown\]|\[dead_leader')
	# The split (70/30) is not the point here: the names are.
	if [ "$state" = Z ] && atleast "$named" 99 && [ "$unknown" = 0.0 ]; then
		pass "main thread exited (Z), $how: the worker's frames named in ${named}% (spin_work ${spin}%, rest_work ${rest}%), none [unknown]"
	else fail "main thread exited" "leader state $state (Z), named ${named}% (>= 99), unnamed ${unknown}% (0)" "$TMP/dead.folded"; fi
	# (the split, loosely: time)
	if ! atleast "$spin" 40 || ! atleast "$rest" 15; then
		tfail "main thread exited: the worker's split" "spin_work ${spin}% (>= 40), rest_work ${rest}% (>= 15)" "$TMP/dead.folded"
	fi
}

jit_map_tests() {
	# jit writes /tmp/perf-PID.map for the code it generates.
	start "$T/jit" perfmap
	profile_n jit_map 500
	stop_target "$TPID"
	rm -f "/tmp/perf-$TPID.map"
	local named anon
	named=$(share "$TMP/jit_map.folded" ';main;run_jit;jit_spin_\[j\]( |$)')
	anon=$(share "$TMP/jit_map.folded" '\[anon\]')
	if atleast "$named" 90 && atleast 1 "$anon"; then
		pass "JIT code named in /tmp/perf-PID.map: main;run_jit;jit_spin_[j] in ${named}% ([anon] ${anon}%)"
	else fail "JIT code named in /tmp/perf-PID.map" "main;run_jit;jit_spin_[j] ${named}% (>= 90), [anon] ${anon}% (< 1)" "$TMP/jit_map.folded"; fi

	if ! command -v node >/dev/null; then
		skip "node --perf-basic-prof" "node is not installed"
		return
	fi
	# A hot JS function, compiled by V8, named in the map V8 writes.
	# (from $TMP: V8 leaves isolate-*-v8.log files where it runs)
	start env -C "$TMP" node --perf-basic-prof -e 'function hotFunctionForProfiler(n) { let s = 0; for (let i = 0; i < n; i++) s += (i * 7) % 13; return s }
		for (let t = 0; ; ) t += hotFunctionForProfiler(1e6)'
	local i
	for i in $(seq 100); do
		grep -q 'hotFunctionForProfiler' "/tmp/perf-$TPID.map" 2>/dev/null && break
		sleep 0.1
	done
	profile_n node_jit 500 --tid "$TPID"
	stop_target "$TPID"
	rm -f "/tmp/perf-$TPID.map"
	local hot
	hot=$(share "$TMP/node_jit.folded" ';JS:[*~]?hotFunctionForProfiler [^;]*_\[j\]( |;|$)')
	if atleast "$hot" 80; then
		pass "node --perf-basic-prof: the hot JS function named in ${hot}% of the main thread's samples"
	else fail "node --perf-basic-prof" "JS:*hotFunctionForProfiler ..._[j] in ${hot}% (>= 80)" "$TMP/node_jit.folded"; fi
}

layout_tests() {
	lld_gap_tests
	node_tests
	dead_leader_tests
	jit_map_tests
}
if [ $CAN_ATTACH = 1 ]; then layout_tests; else skip "names of files mapped apart, a dead main thread, JIT maps" "$WHY_NO_ATTACH"; fi
