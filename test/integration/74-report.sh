# --- the report: --format html, read in a browser -------------------------
# fake_pg's own schedule is the truth: 400 ms in Activity:CheckpointerMain
# (a main loop's wait: idle), then 100 ms cycles of 60 ms on CPU and 40 ms
# in IO:WALSync.  The report of 3 s at 1 ms is opened from disk in headless
# Chromium, its state set by the address (?by=, from=, to=, only=, idle=),
# and what the page shows is read back from its DOM: the selection's
# sample count against the samples the file holds in that range, the
# events' shares against the schedule, the chart's series and peaks, the
# flame graph of one series.

F=$TMP/report
mkdir -p "$F"

# report_py FILE FROM TO [ONLY] [IDLE]: from the data in the file, the
# samples in [FROM, TO) s (not idle unless IDLE=1; only event ONLY if
# given): "COUNT"
report_py() {
	PYTHONPATH=test/tools python3 - "$@" <<'EOF'
import sys, report_data
path, lo, hi = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
only = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
idle_too = len(sys.argv) > 5 and sys.argv[5] == '1'
d = report_data.load(path)
n = 0
for i in range(0, len(d['S']), 4):
    t, w, s, th = d['S'][i:i + 4]
    k = d['kinds'][s * 6:s * 6 + 6]
    if k[5] and not idle_too:
        continue
    if not (lo * 1e4 <= t < hi * 1e4):
        continue
    if only is not None and d['values'][k[1]] != only:
        continue
    n += 1
print(n)
EOF
}

# reads_py FILE FROM TO: the file's reads (D.R) in [FROM, TO) s, not idle:
# "reads N ticks T procs P CPU 59.1 IO:WALSync 40.9" (the events' shares)
reads_py() {
	PYTHONPATH=test/tools python3 - "$@" <<'EOF'
import sys, report_data
d = report_data.load(sys.argv[1])
lo, hi = float(sys.argv[2]), float(sys.argv[3])
V, R, RK = d['values'], d.get('R', []), d.get('RK', [])
step = d.get('read_bucket_ns', 1e8) / 1e9
ticks, events, procs, b = 0, {}, set(), 0
for i in range(0, len(R), 3):
    b += R[i]
    if not (lo <= b * step + 1e-9 < hi):
        continue
    if R[i + 1] < 0:
        ticks += R[i + 2]
    elif not RK[5 * R[i + 1] + 4]:
        events[V[RK[5 * R[i + 1]]]] = events.get(V[RK[5 * R[i + 1]]], 0) + R[i + 2]
        procs.add(RK[5 * R[i + 1] + 2])
n = sum(events.values())
print('reads %d ticks %d procs %d %s' % (n, ticks, len(procs), ' '.join(
    '%s %.1f' % (e, 100 * c / n) for e, c in sorted(events.items(), key=lambda x: -x[1]))))
EOF
}
# reads_share LINE EVENT: the share reads_py gave EVENT
reads_share() { echo "$1" | awk -v e="$2" '{ for (i = 1; i < NF; i++) if ($i == e) { print $(i + 1); exit } }'; }
# reads_field LINE NAME: reads_py's figure NAME (reads, ticks, procs)
reads_field() { reads_share "$@"; }

# dom_attr FILE SELECTOR-TEXT ATTR: the attribute of the first element
# whose tag text contains SELECTOR-TEXT
dom_attr() { grep -o "<[^>]*$2[^>]*>" "$1" | head -n 1 | sed -n "s/.* $3=\"\\([^\"]*\\)\".*/\\1/p"; }
# row_share FILE DIM NAME: the share a table row gives NAME under DIM
row_share() { grep -o "<tr data-dim=\"$2\" data-name=\"$3\" data-share=\"[0-9.]*\"" "$1" | head -n 1 | sed 's/.*data-share="\([0-9.]*\)"/\1/'; }

report_tests() {
	"$PP" --pg-wait-events -d 1ms -t 3s -o "$F/r.html" -- "$T/fake_pg" 2>"$F/r.err"
	local rc=$? outside
	# one file, nothing fetched: no src=, href=, fetch or XMLHttpRequest
	outside=$(grep -cE ' (src|href)=|fetch\(|XMLHttpRequest|import\(' "$F/r.html")
	if [ $rc = 0 ] && [ -s "$F/r.html" ] && [ "$outside" = 0 ] && grep -q 'const D = {' "$F/r.html"; then
		pass "report: -o r.html writes one self-contained page ($(wc -c <"$F/r.html") bytes), nothing fetched"
	else
		fail "report: -o r.html" "exit $rc, $(wc -c <"$F/r.html" 2>/dev/null) bytes, $outside references outside the file" "$F/r.err"
		return
	fi
	if [ -z "$CHROMIUM" ]; then
		skip "report in a browser" "chromium not installed (apt-get install chromium)"
		return
	fi
	if [ "$SANITIZED" = 1 ]; then # (the writer's memory is checked above)
		skip "report in a browser" "the page is read in the plain pass: under the sanitizers only our writing is checked"
		return
	fi

	# 1-2 s by event: the page's count is the file's, the shares the schedule's
	chrome "$F/c1" --dump-dom "file://$F/r.html?by=event&from=1&to=2" >"$F/d1.html"
	local want got cpu wal
	want=$(report_py "$F/r.html" 1 2)
	got=$(dom_attr "$F/d1.html" 'id="sel"' data-samples)
	cpu=$(row_share "$F/d1.html" "wait event" CPU)
	wal=$(row_share "$F/d1.html" "wait event" IO:WALSync)
	if [ -n "$got" ] && [ "$got" = "$want" ] && [ -n "$cpu" ] && [ -n "$wal" ]; then
		pass "report in chromium, 1-2 s by wait event: the selection holds the file's $want samples in that range; CPU ${cpu}%, IO:WALSync ${wal}%"
	else fail "report in chromium, a range" "selection ${got:-none} samples, the file ${want:-?} in 1-2 s; CPU ${cpu:-none}%, IO:WALSync ${wal:-none}%" "$F/d1.html"; fi
	if near "${cpu:-0}" 60 "$TOL" && near "${wal:-0}" 40 "$TOL"; then
		pass "report's shares, 1-2 s: CPU ${cpu}% (60), IO:WALSync ${wal}% (40), within $TOL points"
	else tfail "report's shares" "CPU ${cpu:-none}% (60), IO:WALSync ${wal:-none}% (40), within $TOL points"; fi

	# the chart by event is drawn from the reads (each tick's wait event,
	# read without a stop: activity.h), by OS state from the samples; the
	# reads' shares of 1-2 s are the schedule's too
	chrome "$F/c5" --dump-dom "file://$F/r.html?by=state" >"$F/d5.html"
	local by_event by_state rshares
	by_event=$(dom_attr "$F/d1.html" 'id="chart"' data-source)
	by_state=$(dom_attr "$F/d5.html" 'id="chart"' data-source)
	rshares=$(reads_py "$F/r.html" 1 2)
	if [ "$by_event" = reads ] && [ "$by_state" = samples ] && near "$(reads_share "$rshares" CPU)" 60 "$TOL" &&
		near "$(reads_share "$rshares" IO:WALSync)" 40 "$TOL"; then
		pass "report: the chart by wait event from the reads, by OS state from the samples; the reads of 1-2 s: $rshares"
	else fail "report: the reads" "chart by event from '${by_event}' (reads), by state from '${by_state}' (samples); the reads of 1-2 s: ${rshares:-none} (CPU 60, IO:WALSync 40 within $TOL)" "$F/r.err"; fi

	# idle waits: left out of the chart by default, and with idle=1 the
	# first 400 ms are Activity:CheckpointerMain, its peak in them
	chrome "$F/c2" --dump-dom "file://$F/r.html?by=event" >"$F/d2.html"
	chrome "$F/c3" --dump-dom "file://$F/r.html?by=event&idle=1&from=0&to=0.35" >"$F/d3.html"
	local hidden shown bucket peak early
	hidden=$(grep -c 'class="lg[^"]*" data-name="Activity:' "$F/d2.html")
	shown=$(grep -c 'class="lg[^"]*" data-name="Activity:CheckpointerMain"' "$F/d3.html")
	bucket=$(dom_attr "$F/d3.html" 'id="chart"' data-bucket-s)
	peak=$(grep -o 'data-name="Activity:CheckpointerMain" data-share="[0-9.]*" data-peak-bucket="[0-9]*"' "$F/d3.html" |
		sed 's/.*data-peak-bucket="\([0-9]*\)"/\1/')
	early=$(row_share "$F/d3.html" "wait event" Activity:CheckpointerMain)
	if [ "$hidden" = 0 ] && [ "$shown" = 1 ] && [ -n "$peak" ] && [ -n "$bucket" ] &&
		awk -v p="$peak" -v b="$bucket" 'BEGIN { exit !((p + 1) * b <= 0.4 + b) }' && atleast "${early:-0}" 80; then
		pass "report: idle waits out of the chart by default; with idle=1 Activity:CheckpointerMain peaks in bucket $peak of ${bucket} s (the first 400 ms) and is ${early}% of 0-0.35 s"
	else fail "report: idle waits" "Activity series by default $hidden (0), with idle=1 $shown (1), its peak bucket ${peak:-?} of ${bucket:-?} s (in the first 0.4 s), ${early:-none}% of 0-0.35 s (>= 80)" "$F/d3.html"; fi

	# one series: the flame graph holds only its samples, under cpu_phase
	chrome "$F/c4" --dump-dom "file://$F/r.html?by=event&only=CPU&from=1&to=2" >"$F/d4.html"
	local fwant fgot only
	fwant=$(report_py "$F/r.html" 1 2 CPU)
	fgot=$(dom_attr "$F/d4.html" 'id="flame"' data-samples)
	only=$(dom_attr "$F/d4.html" 'id="sel"' data-only)
	# (a sample read at a phase's edge may carry the other's word: the
	# stand-in agrees 99.9 %, so wait_phase may hold a sample or two)
	local in_cpu in_wait
	# (each path to a function is a frame of its own: summed)
	in_cpu=$(grep -o 'title="cpu_phase - [0-9.]*%' "$F/d4.html" | sed 's/.* - \([0-9.]*\)%/\1/' |
		awk '{ s += $1 } END { printf "%.1f", s }')
	in_wait=$(grep -o 'title="wait_phase - [0-9.]*%' "$F/d4.html" | sed 's/.* - \([0-9.]*\)%/\1/' |
		awk '{ s += $1 } END { printf "%.1f", s }')
	if [ -n "$fgot" ] && [ "$fgot" = "$fwant" ] && [ "$only" = CPU ] && atleast "${in_cpu:-0}" 95 &&
		atleast 2 "${in_wait:-0}"; then
		pass "report: only=CPU, 1-2 s: the flame graph holds the file's $fwant CPU samples, ${in_cpu}% under cpu_phase, ${in_wait:-0}% under wait_phase"
	else fail "report: one series" "flame ${fgot:-none} samples, the file ${fwant:-?}; only '${only}'; cpu_phase ${in_cpu:-none}% (>= 95), wait_phase ${in_wait:-0}% (<= 2)" "$F/d4.html"; fi
}

# Between the rounds --max-overhead spaces (activity_reads.h): three
# stand-ins at -d 1ms --max-overhead 1%, each process's wait event read
# at the ticks between the rounds.  Measured: 257 reads a second a
# process against 48 rounds (a tick's read and a round's each cost us
# mostly a wake-up: ~40 us of CPU on this VM), 0.83 % of the machine.
report_reads_between_test() {
	local a b c rc line rates reads samples cpu
	"$T/fake_pg" & a=$!
	"$T/fake_pg" & b=$!
	"$T/fake_pg" & c=$!
	sleep 0.5 # past their first 400 ms (Activity:CheckpointerMain)
	"$PP" -p "$a,$b,$c" --pg-wait-events -d 1ms --max-overhead 1% -t 3s -o "$F/r3.html" 2>"$F/r3.err"
	rc=$?
	kill $a $b $c 2>/dev/null
	wait $a $b $c 2>/dev/null
	rates=$(reads_py "$F/r3.html" 0 10)
	samples=$(PYTHONPATH=test/tools python3 -c 'import sys, report_data
print(len(report_data.load(sys.argv[1])["S"]) // 4)' "$F/r3.html" 2>/dev/null)
	reads=$(reads_field "$rates" reads)
	cpu=$(sed -n 's/.*profiler CPU.* \([0-9.]*\)% of the machine.*/\1/p' "$F/r3.err")
	line="$rates; $samples stack samples; our CPU ${cpu:-?}% of the machine"
	if [ $rc = 0 ] && [ "$(reads_field "$rates" procs)" = 3 ] && [ -n "$samples" ] &&
		awk -v r="${reads:-0}" -v s="$samples" 'BEGIN { exit !(r > 2 * s) }'; then
		pass "report with --max-overhead 1%: each process's wait event read between the spaced rounds: $line"
	else fail "report's reads between rounds" "exit $rc; 3 processes read, over twice the stack samples: $line" "$F/r3.err"; fi
	if near "$(reads_share "$rates" CPU)" 60 "$TOL" && near "$(reads_share "$rates" IO:WALSync)" 40 "$TOL" &&
		[ -n "$cpu" ] && atleast 1.5 "$cpu"; then
		pass "report's reads between rounds: the schedule's shares (CPU 60, IO:WALSync 40, within $TOL points) for ${cpu}% of the machine (<= 1.5)"
	else tfail "report's reads between rounds: shares and cost" "CPU 60, IO:WALSync 40 within $TOL, our CPU <= 1.5%: $line" "$F/r3.err"; fi
}

# With the mouse, as a person uses it (test/tools/report_drag.py drives
# Chromium through the DevTools protocol): a drag over the chart from 1 s
# to 2 s selects that range (to the pixel: a few ms either way), the
# selection holds the file's samples in the range the page says, and a
# click on the CPU row of its table leaves that series alone.
report_mouse_tests() {
	local got want cpu_want from to n only flame ms
	got=$(python3 test/tools/report_drag.py "$CHROMIUM" "$F/r.html" 1 2 2>"$F/drag.err")
	from=$(drag_field "$got" from) to=$(drag_field "$got" to) n=$(drag_field "$got" samples)
	ms=$(drag_field "$got" ms)
	want=$([ -n "$from" ] && report_py "$F/r.html" "$from" "$to")
	if [ -n "$n" ] && [ "$n" = "$want" ] && near "$from" 1 0.05 && near "$to" 2 0.05; then
		pass "report with the mouse: a drag from 1 s to 2 s selects $from - $to s, the file's $want samples in it (answered in $ms ms)"
	else fail "report with the mouse: a drag" "selected ${from:-?} - ${to:-?} s (1 - 2 within 0.05), ${n:-?} samples, the file ${want:-?}: $(head -c 300 "$F/drag.err")"; fi
	got=$(python3 test/tools/report_drag.py "$CHROMIUM" "$F/r.html" 1 2 "wait event" CPU 2>"$F/click.err")
	only=$(drag_field "$got" only) flame=$(drag_field "$got" flame)
	cpu_want=$([ -n "$from" ] && report_py "$F/r.html" "$from" "$to" CPU)
	if [ "$only" = CPU ] && [ -n "$flame" ] && [ "$flame" = "$cpu_want" ]; then
		pass "report with the mouse: the CPU row clicked, the flame graph holds the range's $cpu_want CPU samples alone"
	else fail "report with the mouse: a row clicked" "series '${only:-}' (CPU), flame ${flame:-?} samples, the file ${cpu_want:-?}: $(head -c 300 "$F/click.err")"; fi
}

CHROME_WINDOW=1280,900 # (lib.sh's chrome: a page, not a 272-pixel flame graph)
if ! command -v python3 >/dev/null; then skip "report" "python3 is not installed"
else
	report_tests
	report_reads_between_test
	if [ -z "$CHROMIUM" ]; then skip "report with the mouse" "chromium is not installed"
	elif [ "$SANITIZED" = 1 ]; then skip "report with the mouse" "read in the plain pass"
	elif [ ! -s "$F/r.html" ]; then skip "report with the mouse" "no report was written (above)"
	else report_mouse_tests; fi
fi
