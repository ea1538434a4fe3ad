# --- continuous profiling: windows, SIGUSR1, pushes to Pyroscope ---------
# A local stand-in for Pyroscope (test/tools/ingest_server.py, on
# 127.0.0.1) records every request and checks it against the /ingest API;
# the window notes on stderr say how many samples each window holds.
# (serve, notes, summary_samples, folded_ok: lib.sh)

# achieved FILE: the rate achieved, % of the asked one.
achieved() { sed -n 's/.*achieved [0-9.e+]*\/s (\([0-9]*\)%).*/\1/p' "$1"; }

continuous_input_tests() {
	bad_input "--label without =" "invalid label 'env' for --label" -p 1 --push http://127.0.0.1:9 --label env
	bad_input "--label key with a dot" "invalid label key 'a.b'" -p 1 --push http://127.0.0.1:9 --label a.b=1
	bad_input "--label value with a comma" "invalid label value 'a,b'" -p 1 --push http://127.0.0.1:9 --label k=a,b
	bad_input "--label reserved key" "invalid label key '__name__'" -p 1 --push http://127.0.0.1:9 --label __name__=x
	bad_input "--label given twice" "label key 'k' given twice" -p 1 --push http://127.0.0.1:9 --label k=1 --label k=2
	bad_input "--app-name with a space" "invalid application name 'my db'" -p 1 --push http://127.0.0.1:9 --app-name "my db"
	bad_input "--push without a scheme" "invalid URL '127.0.0.1:4040' for --push" -p 1 --push 127.0.0.1:4040
	bad_input "--push with a query" "invalid URL 'http://h/?x=1' for --push" -p 1 --push "http://h/?x=1"
	bad_input "--period under a second" "invalid period '500ms' for --period" -p 1 --period 500ms
	bad_input "--period with stap" "--format stap is written sample by sample" -p 1 --period 2s --format stap
	bad_input "--period svg to stdout" "give -o FILE" -p 1 --period 2s --format svg
	bad_input "--push speedscope without -o" "--format speedscope needs -o FILE" -p 1 --push http://127.0.0.1:9 --format speedscope
	bad_input "--label without --push" "--label needs --push URL" -p 1 --label a=b
	bad_input "--push-queue 0" "invalid queue length '0' for --push-queue" -p 1 --push http://h --push-queue 0
}
continuous_input_tests

# Windows pushed to a server that takes them: each request as the API
# documents it, one per window, the counts in its body those of the window.
push_ok_test() {
	serve ok ok
	start "$T/split"
	local t0 t1 rc
	"$PP" -p "$TPID" -d 5ms -t 3.5s --period 1s --push "$URL" --app-name pg.main \
		--label env=test --label host=db-1 >"$TMP/push.out" 2>"$TMP/push.err"
	rc=$?
	stop_target "$TPID"
	stop_target "$SPID"
	notes "$TMP/push.err" >"$TMP/push.notes"
	local verdict
	verdict=$(python3 - "$TMP/ok.log" "$TMP/push.notes" "$(summary_samples "$TMP/push.err")" <<'PY'
import json, sys, urllib.parse
reqs = [json.loads(l) for l in open(sys.argv[1])]
notes = [l.split() for l in open(sys.argv[2]) if l.strip()]
total = int(sys.argv[3] or 0)
bad = []
if not reqs: bad.append("no request")
if len(reqs) != len(notes): bad.append("%d requests for %d windows" % (len(reqs), len(notes)))
for r in reqs:
    bad += r["errors"]
    p = r["params"]
    if p.get("name") != "pg.main.wall{env=test,host=db-1}": bad.append("name %r" % p.get("name"))
    if p.get("sampleRate") != "200": bad.append("sampleRate %r for -d 5ms" % p.get("sampleRate"))
    if "%7B" not in r["raw_query"] or "%3D" not in r["raw_query"] or "%2C" not in r["raw_query"]:
        bad.append("name not URL-encoded: %s" % r["raw_query"])
by_window = {(n[1], n[2]): int(n[3]) for n in notes}
for r in reqs:
    key = (r["params"].get("from"), r["params"].get("until"))
    if key not in by_window: bad.append("request from %s until %s matches no window" % key)
    elif by_window[key] != r["total"]: bad.append("window %s: body counts %d, window %d samples" % (key, r["total"], by_window[key]))
froms = sorted((int(n[1]), int(n[2])) for n in notes)
for a, b in zip(froms, froms[1:]):
    if b[0] != a[1]: bad.append("windows not contiguous: %s then %s" % (a, b))
if sum(by_window.values()) != total: bad.append("windows hold %d samples, the run %d" % (sum(by_window.values()), total))
print("; ".join(bad[:5]) if bad else "ok %d requests, %d samples" % (len(reqs), total))
PY
)
	if [ $rc = 0 ] && [ "${verdict%% *}" = ok ] && [ ! -s "$TMP/push.out" ] &&
		grep -q "pushed  *[0-9]* of [0-9]* windows" "$TMP/push.err"; then
		pass "--push: every request as /ingest documents it, one per window, body counts = the window's samples ($verdict)"
	else fail "--push to a server that takes it" "exit $rc: $verdict" "$TMP/push.err"; fi
}

# A server that refuses (HTTP 500) or hangs: sampling goes on at the asked
# rate, retries and drops are counted, the run ends on time.
push_trouble_test() {
	local mode=$1 t0 t1 rc rate secs what="hangs (accepts, never answers)"
	[ "$mode" = fail ] && what="answers HTTP 500"
	serve "$mode" "$mode"
	start "$T/split"
	t0=$(date +%s%N)
	timeout 30 "$PP" -p "$TPID" -d 5ms -t 4s --period 1s --push "$URL" --push-queue 1 \
		>"$TMP/$mode.out" 2>"$TMP/$mode.err"
	rc=$?
	t1=$(date +%s%N)
	stop_target "$TPID"
	stop_target "$SPID"
	secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1e9 }')
	rate=$(achieved "$TMP/$mode.err")
	local line retries given dropped requests
	line=$(grep "push failures" "$TMP/$mode.err")
	retries=$(echo "$line" | sed -n 's/.* \([0-9]*\) retries.*/\1/p')
	given=$(echo "$line" | sed -n 's/.* \([0-9]*\) given up.*/\1/p')
	dropped=$(echo "$line" | sed -n 's/.* \([0-9]*\) dropped.*/\1/p')
	requests=$(wc -l <"$TMP/$mode.log")
	local ok=1 why="" tok=1 twhy="" bound
	# it ends: exit 0 within timeout 30 (exit 124), over 4 times what it needs
	[ $rc = 0 ] || { ok=0; why="$why exit $rc"; }
	awk -v s="$secs" 'BEGIN { exit !(s < 30) }' || { ok=0; why="$why took ${secs} s (>= 30)"; }
	[ -n "$rate" ] || { ok=0; why="$why no rate said"; }
	atleast "${rate:-0}" 80 || { tok=0; twhy="$twhy rate ${rate:-?}% (>= 80)"; }
	# -t 4s, and at most the 2 s the sender gets at the end, and slack
	bound=$(pick 7.5 6.5)
	awk -v s="$secs" -v b="$bound" 'BEGIN { exit !(s < b) }' || { tok=0; twhy="$twhy took ${secs} s (< $bound)"; }
	atleast "${retries:-0}" 2 || { ok=0; why="$why ${retries:-?} retries"; }
	if [ "$mode" = fail ]; then
		atleast "${given:-0}" 1 || { ok=0; why="$why ${given:-?} given up"; }
		# each window given up was tried 3 times
		atleast "$requests" $((3 * ${given:-0})) || { ok=0; why="$why $requests requests"; }
	else
		atleast "${dropped:-0}" 1 || { ok=0; why="$why ${dropped:-?} dropped"; }
	fi
	if [ $ok = 1 ]; then
		pass "--push to a server that $what: exit 0, $retries retries, ${given} given up, ${dropped} dropped, $requests requests"
	else fail "--push to a server that $what" "$why" "$TMP/$mode.err"; fi
	if [ $tok = 1 ]; then
		pass "--push to a server that $what: ${rate}% of the asked rate (>= 80), over in ${secs} s (< $bound)"
	else tfail "--push to a server that $what: rate and duration" "$twhy" "$TMP/$mode.err"; fi
}

# A server that answers 400: our request is at fault, so it is not tried
# again: one request per window, each counted as refused.
push_refused_test() {
	serve reject reject
	start "$T/split"
	"$PP" -p "$TPID" -d 5ms -t 2.5s --period 1s --push "$URL" >/dev/null 2>"$TMP/reject.err"
	local rc=$? windows requests refused
	stop_target "$TPID"
	stop_target "$SPID"
	windows=$(notes "$TMP/reject.err" | wc -l)
	requests=$(wc -l <"$TMP/reject.log")
	refused=$(sed -n 's/.* \([0-9]*\) refused.*/\1/p' "$TMP/reject.err")
	if [ $rc = 0 ] && [ "$windows" -ge 2 ] && [ "$requests" = "$windows" ] && [ "$refused" = "$windows" ] &&
		grep -q "push refused (HTTP 400), not tried again" "$TMP/reject.err"; then
		pass "--push to a server that answers HTTP 400: each of $windows windows sent once and counted refused"
	else fail "--push to a server that answers 400" "exit $rc, $windows windows, $requests requests, ${refused:-?} refused" "$TMP/reject.err"; fi
}

# SIGUSR1 mid-run: the file holds the samples so far, the run goes on and
# ends with the whole profile.
sigusr1_file_test() {
	start "$T/split"
	"$PP" -p "$TPID" -d 2ms -t 3s -o "$TMP/usr1.folded" 2>"$TMP/usr1.err" &
	local prof=$! i n_dump note alive=0 rc
	sleep 1
	kill -USR1 $prof
	for i in $(seq 1 40); do grep -q "SIGUSR1: the profile so far" "$TMP/usr1.err" && break; sleep 0.05; done
	n_dump=$(folded_ok "$TMP/usr1.folded")
	note=$(sed -n 's/.*SIGUSR1: the profile so far (\([0-9]*\) samples.*/\1/p' "$TMP/usr1.err")
	kill -0 $prof 2>/dev/null && alive=1
	wait $prof
	rc=$?
	local n_end total
	n_end=$(folded_ok "$TMP/usr1.folded")
	total=$(summary_samples "$TMP/usr1.err")
	stop_target "$TPID"
	if [ $rc = 0 ] && [ $alive = 1 ] && [ -n "$n_dump" ] && [ "$n_dump" = "$note" ] &&
		[ "$n_dump" -gt 0 ] && [ "$n_end" = "$total" ] && [ "$n_end" -gt "$n_dump" ]; then
		pass "SIGUSR1 with -o: the file then holds the $n_dump samples so far, the run goes on, and ends with all $n_end"
	else fail "SIGUSR1 with -o" "exit $rc, alive $alive, file ${n_dump:-unparsable} (note ${note:-none}), at the end ${n_end:-unparsable} of ${total:-?}" "$TMP/usr1.err"; fi
	# 1 s at -d 2ms before the signal
	if [ "${n_dump:-0}" -gt 100 ]; then pass "SIGUSR1 with -o: $n_dump samples in the first second (> 100)"
	else tfail "SIGUSR1 with -o: samples in the first second" "${n_dump:-unparsable} samples so far (> 100)" "$TMP/usr1.err"; fi
}

# To stdout: the profile so far, an empty line, the whole profile.
sigusr1_stdout_test() {
	start "$T/split"
	"$PP" -p "$TPID" -d 2ms -t 2s >"$TMP/usr1s.folded" 2>"$TMP/usr1s.err" &
	local prof=$! rc
	sleep 1
	kill -USR1 $prof
	wait $prof
	rc=$?
	stop_target "$TPID"
	local parts note total
	parts=$(awk 'BEGIN { RS = "" } { n = split($0, L, "\n"); t = 0; for (i = 1; i <= n; i++) { m = split(L[i], F, " "); t += F[m] }; printf "%s ", t }' "$TMP/usr1s.folded")
	note=$(sed -n 's/.*SIGUSR1: the profile so far (\([0-9]*\) samples.*/\1/p' "$TMP/usr1s.err")
	total=$(summary_samples "$TMP/usr1s.err")
	if [ $rc = 0 ] && [ "$parts" = "$note $total " ]; then
		pass "SIGUSR1 to stdout: the $note samples so far, an empty line, then the whole run's $total"
	else fail "SIGUSR1 to stdout" "exit $rc, parts '$parts', note $note, run $total" "$TMP/usr1s.err"; fi
}

# --period with -o: a file per window, named after its start (UTC), each
# well-formed and holding the window's samples.
period_files_test() {
	start "$T/split"
	mkdir -p "$TMP/win"
	"$PP" -p "$TPID" -d 5ms -t 3.5s --period 1s -o "$TMP/win/out.folded" 2>"$TMP/win.err"
	local rc=$? bad="" n=0 stamp from until samples file t
	while read -r stamp from until samples; do
		n=$((n + 1))
		[ "$stamp" = "$(date -u -d "@$from" +%Y%m%dT%H%M%SZ)" ] || bad="$bad stamp $stamp for $from;"
		file=$TMP/win/out.$stamp.folded
		t=$(folded_ok "$file") || { bad="$bad $file missing or malformed;"; continue; }
		[ "$t" = "$samples" ] || bad="$bad $file holds $t of $samples;"
	done < <(notes "$TMP/win.err")
	local files
	files=$(find "$TMP/win" -type f | wc -l)
	[ "$files" = "$n" ] || bad="$bad $files files for $n windows;"
	[ -e "$TMP/win/out.folded" ] && bad="$bad out.folded itself made;"
	# two-part extensions
	"$PP" -p "$TPID" -d 5ms -t 2.2s --period 1s -o "$TMP/win/db.speedscope.json" 2>"$TMP/win2.err"
	"$PP" -p "$TPID" -d 5ms -t 2.2s --period 1s -o "$TMP/win/db.pb.gz" 2>>"$TMP/win2.err"
	stop_target "$TPID"
	local json gz
	json=$(find "$TMP/win" -name 'db.????????T??????Z.speedscope.json' | wc -l)
	gz=$(find "$TMP/win" -name 'db.????????T??????Z.pb.gz' | wc -l)
	for file in "$TMP"/win/db.*.pb.gz; do gzip -t "$file" 2>/dev/null || bad="$bad $file not gzip;"; done
	if command -v jq >/dev/null; then
		for file in "$TMP"/win/db.*.speedscope.json; do
			jq -e '.profiles[0].samples | length > 0' "$file" >/dev/null 2>&1 || bad="$bad $file not speedscope;"
		done
	fi
	if [ $rc = 0 ] && [ -z "$bad" ] && [ "$n" -ge 3 ] && [ "$json" -ge 2 ] && [ "$gz" -ge 2 ]; then
		pass "--period 1s -o out.folded: $n files out.YYYYmmddTHHMMSSZ.folded, each well-formed with its window's samples; db.STAMP.speedscope.json ($json), db.STAMP.pb.gz ($gz)"
	else fail "--period with -o" "exit $rc, $n windows, $json json, $gz gz:$bad" "$TMP/win.err"; fi
}

if [ $CAN_ATTACH = 1 ]; then
	run_test push_ok_test
	run_test push_trouble_test fail
	run_test push_trouble_test hang
	run_test push_refused_test
	sigusr1_file_test
	sigusr1_stdout_test
	run_test period_files_test
else
	skip "continuous profiling (push, SIGUSR1, windows)" "$WHY_NO_ATTACH"
fi
