# --- names: C++, inlining, late libraries, stripped, split, deleted -------

cxx_tests() {
	if ! command -v c++filt >/dev/null || ! command -v nm >/dev/null || ! command -v readelf >/dev/null; then
		skip "C++ names" "c++filt, nm and readelf (binutils) are needed for the expected names"
		return
	fi
	# The names as c++filt prints them, from the out-of-line copies' own
	# symbols (cpp_names keeps one of each inlined function but twice).
	local syms run lambda scramble mix churn add closure invoke call_line scramble_line
	syms=$(nm "$T/cpp_names" | c++filt)
	run=$(sed -n 's/^[0-9a-f]* W \(app::Worker<int>::run(int)\)$/\1/p' <<<"$syms")
	lambda=$(sed -n 's/^[0-9a-f]* W \(app::Worker<int>::run(int)::{lambda.*\)$/\1/p' <<<"$syms")
	scramble=$(sed -n 's/^[0-9a-f]* W \(app::Worker<int>::scramble(int)\)$/\1/p' <<<"$syms")
	churn=$(sed -n 's/^[0-9a-f]* T \(app::churn(int)\)$/\1/p' <<<"$syms")
	add=$(sed -n 's/^[0-9a-f]* t \(app::churn(int)::{lambda.*\)$/\1/p' <<<"$syms")
	mix=$(echo _ZN3app3mixEm | c++filt)
	# twice has no copy and no mangled name: std::invoke's instances keep
	# GCC's own spelling of its closure type, from their DW_AT_name; its
	# operator() is spelled as c++filt would print it, the second lambda
	# of churn (add is the first).
	invoke=$(readelf --debug-dump=info "$T/cpp_names" 2>/dev/null |
		sed -n 's/.*DW_AT_name .*: \(invoke<app::churn(int)::<lambda(int)>&, int&>\)$/\1/p' | head -n 1)
	closure=${invoke#invoke<}
	closure=${closure%&, int&>}
	local twice
	twice=$(sed 's/#1}.*/#2}::operator()(int) const/' <<<"$add")
	call_line=$(grep -n 'total += scramble' test/targets/cpp_names.cpp | cut -d: -f1)
	scramble_line=$(grep -n 'return mix(' test/targets/cpp_names.cpp | cut -d: -f1)
	if [ -z "$run" ] || [ -z "$lambda" ] || [ -z "$scramble" ] || [ -z "$churn" ] || [ -z "$add" ] || [ -z "$invoke" ]; then
		fail "C++ names" "expected names missing: run '$run' lambda '$lambda' scramble '$scramble' churn '$churn' add '$add' invoke '$invoke'"
		return
	fi
	start "$T/cpp_names"
	profile cxx 1s
	profile cxx_noinl 1s --no-inline
	profile cxx_lines 1s --lines
	stop_target "$TPID"
	local halves in_run in_churn inl_run inl_churn bare
	halves=$(share_str "$TMP/cxx.folded" ";main;$run;$lambda")
	in_churn=$(share_str "$TMP/cxx.folded" ";main;$churn;")
	halves=$(awk -v a="$halves" -v b="$in_churn" 'BEGIN { printf "%.1f", a + b }')
	in_run=$(share_str "$TMP/cxx.folded" ";main;$run;")
	# Out-of-line, then inlined: the class template's method, the helper.
	inl_run=$(share_str "$TMP/cxx.folded" ";main;$run;$lambda;${scramble}_[i];${mix}_[i] ")
	# std::invoke and twice from their scopes, add from its copy's symbol.
	inl_churn=$(share_str "$TMP/cxx.folded" ";main;$churn;std::$invoke""_[i];std::__invoke<$closure&, int&>_[i];std::__invoke_impl<void, $closure&, int&>_[i];${twice}_[i];${add}_[i];${mix}_[i] ")
	# Every inlined frame is qualified: before, twice and add were a bare
	# "operator()_[i]" and std::invoke "invoke<...>_[i]".
	bare=$(tr ';' '\n' <"$TMP/cxx.folded" | sed 's/ [0-9]*$//' | grep -F '_[i]' | grep -vc '::')
	# The names are function (fail); how the time splits between run and
	# churn, and between each one's inlined chain and its own code, is time
	# (tfail).
	local run_chain churn_chain
	run_chain=$(awk -v a="$inl_run" -v b="$in_run" 'BEGIN { print b ? 100 * a / b : 0 }')
	churn_chain=$(awk -v a="$inl_churn" -v b="$in_churn" 'BEGIN { print b ? 100 * a / b : 0 }')
	if atleast "$halves" 95 && atleast "$inl_run" 0.1 && atleast "$inl_churn" 0.1 && [ "$bare" = 0 ]; then
		pass "C++ names as c++filt prints them: '$run' ${in_run}%, '${scramble}_[i]' and '${mix}_[i]' inlined under its lambda in ${inl_run}%; '$churn' ${in_churn}%, '${add}_[i]' (from its copy) under '${twice}_[i]' and std::invoke in ${inl_churn}%; no unqualified inlined frame"
	else fail "C++ names" "run+lambda and churn ${halves}% (>= 95), run's inlined chain ${inl_run}% (> 0), churn's chain ${inl_churn}% (> 0), unqualified inlined frames $bare (0)" "$TMP/cxx.folded"; fi
	if atleast "$in_run" 25 && atleast "$in_churn" 25 && atleast "$run_chain" 80 && atleast "$churn_chain" 80; then
		pass "C++ names' shares: run ${in_run}%, churn ${in_churn}% (>= 25 each), each one's inlined chain ${run_chain}%/${churn_chain}% of it (>= 80)"
	else tfail "C++ names' shares" "run ${in_run}% (>= 25) with its inlined chain ${inl_run}% (${run_chain}% of it, >= 80), churn ${in_churn}% (>= 25) with its chain ${inl_churn}% (${churn_chain}% of it, >= 80)" "$TMP/cxx.folded"; fi
	if nowhere "$TMP/cxx_noinl.folded" "_[i]" && grep -qF -- ";$lambda " "$TMP/cxx_noinl.folded" &&
		grep -qF -- ";$churn " "$TMP/cxx_noinl.folded"; then
		pass "--no-inline: no _[i] frames, the lambda and churn are the leaves"
	else fail "--no-inline" "inline frames left, or no lambda or churn leaf" "$TMP/cxx_noinl.folded"; fi
	if grep -qF -- ";$lambda (cpp_names.cpp:$call_line);$scramble (cpp_names.cpp:$scramble_line)_[i];$mix (cpp_names.cpp:" "$TMP/cxx_lines.folded"; then
		pass "--lines: the lambda at its call of scramble (cpp_names.cpp:$call_line), scramble at its call of mix ($scramble_line), mix at its own lines"
	else fail "--lines" "no '$lambda (cpp_names.cpp:$call_line);$scramble (cpp_names.cpp:$scramble_line)_[i];$mix (cpp_names.cpp:N)_[i]'" "$TMP/cxx_lines.folded"; fi
	glibc_inline_names
	lambda_spellings
}

# A lambda inlined is named from DWARF, where GCC gives it no mangled
# name; out of line, from its symbol.  Both spelled as c++filt prints the
# symbol (issue 34), so one search finds both: each of cpp_lambdas_ool's
# six lambda symbols (numbers 1 to 5 of spin, one a block's, one mutable;
# main's first) is a frame of cpp_lambdas, the same source with every
# lambda inlined.  Before, those frames read "spin(int)::<lambda(int)>::
# operator()", GCC's spelling.
lambda_spellings() {
	local names name missing= found=0
	names=$(nm "$T/cpp_lambdas_ool" | c++filt | sed -n 's/^[0-9a-f]* [tTW] \(.*{lambda.*\)$/\1/p' | sed 's/ \[clone .*//')
	if [ "$(grep -c . <<<"$names")" != 6 ]; then
		fail "lambdas spelled as c++filt prints them" "cpp_lambdas_ool has $(grep -c . <<<"$names") lambda symbols (6): $names"
		return
	fi
	start "$T/cpp_lambdas"
	profile lambdas 2s
	stop_target "$TPID"
	while IFS= read -r name; do
		if grep -qF -- ";${name}_[i]" "$TMP/lambdas.folded"; then found=$((found + 1))
		else missing="$missing '$name';"; fi
	done <<<"$names"
	if [ -z "$missing" ]; then
		pass "lambdas inlined, named from DWARF as c++filt prints their out-of-line symbols: all $found, e.g. '$(grep -F '#3}' <<<"$names")_[i]'"
	else fail "lambdas spelled as c++filt prints them" "not in the inlined build's frames:$missing (its lambda frames: $(tr ';' '\n' <"$TMP/lambdas.folded" | sed 's/ [0-9]*$//' | grep -F lambda | sort -u | tr '\n' '|' | cut -c1-600))" "$TMP/lambdas.err"; fi
}

# read() blocked in glibc: with libc6-dbg, DWARF describes an inlined
# __libc_read in it whose linkage name is glibc's internal alias
# __GI___libc_read.  Every frame must carry a public name of that code
# (read, __read: the global symbols at its address), never __GI_.  That
# inlined __libc_read is __libc_read itself, "called" from its own first
# line (GCC's artifact, as in send(): issue 42's "__send;__send_[i]"): no
# frame of its own, so no "read;read_[i]".
glibc_inline_names() {
	local libc id debug addr size public frames
	start "$T/blocked"
	settle "$TPID" blocked S
	libc=$(awk '$6 ~ /\/libc\.so\.6$/ { print $6; exit }' "/proc/$TPID/maps")
	id=$(readelf -n "$libc" 2>/dev/null | sed -n 's/.*Build ID: //p')
	debug=/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug
	if [ -z "$id" ] || [ ! -f "$debug" ]; then
		stop_target "$TPID"
		skip "glibc's inlined read named publicly" "no debug info for $libc (install libc6-dbg)"
		return
	fi
	read -r addr size < <(readelf -sW "$debug" 2>/dev/null | awk '$8 == "__GI___libc_read" { print $2, $3; exit }')
	if [ -z "$addr" ]; then
		stop_target "$TPID"
		skip "glibc's inlined read named publicly" "this glibc has no __GI___libc_read"
		return
	fi
	# The public names of that code: global, default visibility, same size.
	public=$(readelf -sW "$debug" 2>/dev/null | awk -v a="$addr" -v z="$size" \
		'$2 == a && $3 == z && $4 == "FUNC" && ($5 == "GLOBAL" || $5 == "WEAK") && $6 == "DEFAULT" { print $8 }' | sort -u)
	profile glibc 0.5s
	stop_target "$TPID"
	# The user frames between wait_for_input and the kernel.
	frames=$(grep '^blocked;S (sleeping);' "$TMP/glibc.folded" | sed 's/ [0-9]*$//; s/.*;wait_for_input;//; s/;[^;]*_\[k\].*//' | sort -u)
	local ok=1 f n=0 self=0 prev
	while IFS= read -r line; do
		IFS=';' read -ra parts <<<"$line"
		prev=""
		for f in "${parts[@]}"; do
			n=$((n + 1))
			[ "$f" = "${prev}_[i]" ] && self=$((self + 1))
			prev=$f
			grep -qxF -- "${f%_\[i\]}" <<<"$public" || ok=0
		done
	done <<<"$frames"
	if [ -n "$public" ] && [ $ok = 1 ] && [ "$n" -gt 0 ] && [ "$self" = 0 ] && nowhere "$TMP/glibc.folded" "__GI_"; then
		pass "glibc's inlined read: '$(head -n 1 <<<"$frames")' below wait_for_input, public names ($(echo $public)), none inlined into itself, no __GI_ name"
	else fail "glibc's inlined read" "frames below wait_for_input: '$(echo $frames)', public names of $addr: '$(echo $public)', each a public name, $self inlined into itself (0)" "$TMP/glibc.folded"; fi
}

late_library_tests() {
	# liblate.so is loaded 600 ms after we attach.
	start "$T/late_load" "$PWD/$T/liblate.so" 600
	profile late 1.5s
	stop_target "$TPID"
	local late waiting reads unnamed
	late=$(share "$TMP/late.folded" ';main;late_spin;')
	waiting=$(share "$TMP/late.folded" ';main;wait_a_while;')
	reads=$(sed -n 's/.*, \([0-9]*\) re-reads\{0,1\} of maps$/\1/p' "$TMP/late.err")
	# The library's functions are named; its PLT stubs (the call to
	# clock_gettime) have no symbol and may say [liblate.so].
	unnamed=$(share "$TMP/late.folded" ';main;\[|\[unknown\]')
	# named at all and never [unknown]: function; the split: time
	if atleast "$late" 0.1 && [ "$unnamed" = 0.0 ] && [ "${reads:-99}" -le 5 ]; then
		pass "library loaded after attach: late_spin in ${late}% (named, no [unknown]), wait_a_while ${waiting}%, maps re-read ${reads} times"
	else fail "library loaded after attach" "late_spin ${late}% (> 0), unnamed ${unnamed}% (0), re-reads ${reads:-?} (<= 5)" "$TMP/late.err"; fi
	if atleast "$late" 40 && atleast "$waiting" 20; then
		pass "library loaded after attach, its shares: late_spin ${late}% (>= 40), wait_a_while ${waiting}% (>= 20)"
	else tfail "library loaded after attach: shares" "late_spin ${late}% (>= 40), wait_a_while ${waiting}% (>= 20)" "$TMP/late.folded"; fi
}

stripped_tests() {
	strip -o "$TMP/split.stripped" "$T/split"
	strip -o "$TMP/split_dynsym.stripped" "$T/split_dynsym"
	start "$TMP/split.stripped"
	profile stripped 1s
	stop_target "$TPID"
	local own main
	own=$(share "$TMP/stripped.folded" '\[split.stripped\]')
	# main, cpu_work...: not exported, so not named; glibc's caller of main
	# is __libc_start_call_main (debug info) or [libc.so.6], never the
	# exported __libc_init_first the original tool printed.
	if atleast "$own" 95 && nowhere "$TMP/stripped.folded" ';main;' && nowhere "$TMP/stripped.folded" 'cpu_work' &&
		nowhere "$TMP/stripped.folded" '__libc_init_first'; then
		pass "stripped binary: its frames [split.stripped] in ${own}%, no guessed names"
	else fail "stripped binary" "[split.stripped] in ${own}% (>= 95), or a name it cannot have" "$TMP/stripped.folded"; fi
	start "$TMP/split_dynsym.stripped"
	profile dynsym 1s
	stop_target "$TPID"
	main=$(share "$TMP/dynsym.folded" ';main;(cpu_work|sleep_work|cpu_other)')
	if atleast "$main" 95 && grep -qF ';cpu_work;[split_dynsym.stripped];' "$TMP/dynsym.folded"; then
		pass "stripped, exported symbols: main;cpu_work... from .dynsym in ${main}%, static now() as [split_dynsym.stripped]"
	else fail "stripped, exported symbols" "named ${main}% (>= 95)" "$TMP/dynsym.folded"; fi
}

# split_off_debug BIN DEBUG: a copy of the split target at BIN, stripped,
# its debug info kept apart in DEBUG.
split_off_debug() {
	cp "$T/split" "$1"
	objcopy --only-keep-debug "$1" "$2"
	strip "$1"
}

split_debug_tests() {
	# Debug info split off, found by build-id in a --debuginfo-path
	# directory, and by .gnu_debuglink next to the binary.
	mkdir -p "$TMP/bid" "$TMP/debug" "$TMP/dl"
	split_off_debug "$TMP/bid/split" "$TMP/bid.debug"
	local id
	id=$(readelf -n "$TMP/bid/split" | sed -n 's/.*Build ID: //p')
	mkdir -p "$TMP/debug/.build-id/${id:0:2}"
	mv "$TMP/bid.debug" "$TMP/debug/.build-id/${id:0:2}/${id:2}.debug"
	split_off_debug "$TMP/dl/split" "$TMP/dl/split.debug"
	objcopy --add-gnu-debuglink="$TMP/dl/split.debug" "$TMP/dl/split"

	local line
	line=$(grep -n 'cpu_work(cycle' test/targets/split.c | head -n 1 | cut -d: -f1)
	start "$TMP/bid/split"
	profile bid_none 0.5s
	profile bid 1s --lines --debuginfo-path ":.debug:/usr/lib/debug:$TMP/debug"
	stop_target "$TPID"
	local named
	named=$(share "$TMP/bid.folded" ';main [(]split.c:[0-9]+[)];(cpu_work|sleep_work|cpu_other) [(]split.c:')
	if atleast "$named" 95 && grep -qF ";main (split.c:$line);cpu_work (split.c:" "$TMP/bid.folded" &&
		grep -qF '[split];' "$TMP/bid_none.folded"; then
		pass "debug info by build-id (--debuginfo-path): named with lines in ${named}%, [split] without it"
	else fail "debug info by build-id" "named with lines ${named}% (>= 95)" "$TMP/bid.folded"; fi
	start "$TMP/dl/split"
	profile dl 0.5s
	stop_target "$TPID"
	named=$(share "$TMP/dl.folded" ';main;(cpu_work|sleep_work|cpu_other)')
	if atleast "$named" 95; then pass "debug info by .gnu_debuglink: named in ${named}%"
	else fail "debug info by .gnu_debuglink" "named ${named}% (>= 95)" "$TMP/dl.folded"; fi
}

minidebuginfo_tests() {
	# MiniDebugInfo, as Fedora ships binaries: .gnu_debugdata holds an
	# xz-compressed ELF with the symbols .dynsym lacks.
	if ! command -v xz >/dev/null; then
		skip "MiniDebugInfo" "xz is needed to build one"
		return
	fi
	local d=$TMP/mini
	mkdir -p "$d"
	cp "$T/split" "$d/split"
	nm -D "$d/split" --format=posix --defined-only | awk '{ print $1 }' | sort >"$d/dynsyms"
	nm "$d/split" --format=posix --defined-only | awk '$2 ~ /^[TtD]$/ { print $1 }' | sort >"$d/funcsyms"
	comm -13 "$d/dynsyms" "$d/funcsyms" >"$d/keep"
	objcopy --only-keep-debug "$d/split" "$d/mini"
	objcopy -S --remove-section .gdb_index --remove-section .comment --keep-symbols="$d/keep" "$d/mini"
	strip --strip-all -R .comment "$d/split"
	xz "$d/mini"
	objcopy --add-section .gnu_debugdata="$d/mini.xz" "$d/split"
	start "$d/split"
	profile mini 0.5s
	stop_target "$TPID"
	local named
	named=$(share "$TMP/mini.folded" ';main;(cpu_work|sleep_work|cpu_other)')
	if atleast "$named" 95; then pass "MiniDebugInfo (.gnu_debugdata): named in ${named}%"
	else fail "MiniDebugInfo" "named ${named}% (>= 95)" "$TMP/mini.folded"; fi
}

debuginfod_tests() {
	# Debug info from a debuginfod server (libdw's client, DEBUGINFOD_URLS),
	# here a local one on loopback serving a split-off debug file.
	if ! command -v debuginfod >/dev/null || ! command -v debuginfod-find >/dev/null; then
		skip "debug info from debuginfod" "the debuginfod package (server and debuginfod-find) is not installed"
		return
	fi
	mkdir -p "$TMP/dfd/serve" "$TMP/dfd/bin"
	split_off_debug "$TMP/dfd/bin/split" "$TMP/dfd/serve/split.debug"
	local id port url server ready=0 i
	id=$(readelf -n "$TMP/dfd/bin/split" | sed -n 's/.*Build ID: //p')
	# a port of its own: a server that died at once (the port taken by
	# something of this machine's) is started again on another
	dfd_serve() {
		port=$((20000 + RANDOM % 20000))
		url=http://127.0.0.1:$port
		rm -f "$TMP/dfd/index.sqlite"
		debuginfod -p "$port" -F "$TMP/dfd/serve" -d "$TMP/dfd/index.sqlite" >"$TMP/dfd/server.log" 2>&1 &
		server=$!
		PIDS+=("$server")
	}
	dfd_serve
	for i in $(seq 50); do
		if ! kill -0 "$server" 2>/dev/null && [ "$i" -le 5 ]; then
			dfd_serve
		fi
		# A fresh cache each try: the client remembers a miss for 10 min.
		if DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$TMP/dfd/probe.$i \
			debuginfod-find debuginfo "$id" >/dev/null 2>&1; then ready=1; break; fi
		sleep 0.2
	done
	if [ $ready = 0 ]; then
		skip "debug info from debuginfod" "the local server did not serve in 10 s: $(tail -n 1 "$TMP/dfd/server.log")"
		stop_target "$server"
		return
	fi
	start "$TMP/dfd/bin/split"
	profile dfd_none 0.5s
	DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$TMP/dfd/cache profile dfd 0.5s
	stop_target "$TPID"
	stop_target "$server"
	local named
	named=$(share "$TMP/dfd.folded" ';main;(cpu_work|sleep_work|cpu_other)')
	if atleast "$named" 95 && grep -qF '[split];' "$TMP/dfd_none.folded"; then
		pass "debug info from a debuginfod server (DEBUGINFOD_URLS): named in ${named}%, [split] without it"
	else fail "debug info from debuginfod" "named ${named}% (>= 95)" "$TMP/dfd.folded"; fi
}

replaced_binary_tests() {
	# Deleted while running, and another program put at its path.
	cp "$T/split" "$TMP/app"
	start "$TMP/app"
	rm "$TMP/app"
	cp "$T/recursion" "$TMP/app"
	profile replaced 1s
	local deleted
	deleted=$(grep -c "$TMP/app (deleted)" "/proc/$TPID/maps")
	stop_target "$TPID"
	local named
	named=$(share "$TMP/replaced.folded" ';main;(cpu_work|sleep_work|cpu_other)')
	if [ "$deleted" -gt 0 ] && atleast "$named" 95 && nowhere "$TMP/replaced.folded" recurse_; then
		pass "binary deleted and replaced while running: its own names in ${named}%, none of the new file's"
	else fail "binary deleted and replaced" "(deleted) mappings $deleted, named ${named}% (>= 95)" "$TMP/replaced.folded"; fi

	# Another mount namespace, where the path holds another file than here.
	if [ "$(id -u)" != 0 ] || ! command -v unshare >/dev/null; then
		skip "other mount namespace" "needs root and unshare"
		return
	fi
	mkdir -p "$TMP/ns"
	cp "$T/recursion" "$TMP/ns/app"
	start unshare --mount --propagation private sh -c \
		"mount -t tmpfs tmpfs '$TMP/ns' && cp '$T/split' '$TMP/ns/app' && exec '$TMP/ns/app'"
	profile ns 1s
	stop_target "$TPID"
	named=$(share "$TMP/ns.folded" ';main;(cpu_work|sleep_work|cpu_other)')
	if atleast "$named" 95 && nowhere "$TMP/ns.folded" recurse_; then
		pass "other mount namespace, another file at the same path here: its own names in ${named}%"
	else fail "other mount namespace" "named ${named}% (>= 95)" "$TMP/ns.folded"; fi
}

signal_and_jit_tests() {
	start "$T/sighandler"
	profile sig 1s
	stop_target "$TPID"
	local handler through
	handler=$(share "$TMP/sig.folded" ';handler_work')
	through=$(share_of "$TMP/sig.folded" ';handler_work' ';main;interrupted_loop;(.*;)?\[signal\];on_alarm;handler_work')
	if atleast "$handler" 0.1 && atleast "$through" 95; then
		pass "signal handler: handler_work ${handler}%, unwound through [signal] into interrupted_loop and main in ${through}%"
	else fail "signal handler" "handler_work ${handler}% (> 0), through [signal] to main ${through}% (>= 95)" "$TMP/sig.folded"; fi
	if near "$handler" 50 15; then pass "signal handler's share: handler_work ${handler}% (50 +- 15)"
	else tfail "signal handler's share" "handler_work ${handler}% (50 +- 15)" "$TMP/sig.folded"; fi

	start "$T/jit"
	profile jit 1s
	stop_target "$TPID"
	local jit failures
	jit=$(share "$TMP/jit.folded" ';main;run_jit;\[anon\]$|;main;run_jit;\[anon\] ')
	failures=$(sed -n 's/.*unwind failures *\([0-9]*\) of.*/\1/p' "$TMP/jit.err")
	if atleast "$jit" 90 && [ "${failures:-1}" = 0 ]; then
		pass "JIT code: [anon] under run_jit and main in ${jit}%, no unwind failures"
	else fail "JIT code" "main;run_jit;[anon] ${jit}% (>= 90), unwind failures ${failures:-?}" "$TMP/jit.folded"; fi
}

symbol_tests() {
	cxx_tests
	late_library_tests
	if command -v strip >/dev/null && command -v objcopy >/dev/null && command -v readelf >/dev/null; then
		stripped_tests
		split_debug_tests
		minidebuginfo_tests
		debuginfod_tests
	else
		skip "stripped and split-debug binaries" "strip, objcopy and readelf (binutils) are needed"
	fi
	replaced_binary_tests
	signal_and_jit_tests
}
if [ $CAN_ATTACH = 1 ]; then symbol_tests; else skip "names (C++, late libraries, stripped, split debug, deleted, signals, JIT)" "$WHY_NO_ATTACH"; fi
