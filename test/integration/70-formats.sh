# --- output formats, read by the tools they are for ---------------------
# build/test/write_formats writes a hand-made profile (test/tools/
# write_formats.c: db_main 60 % in cpu_work, 1/3 of that in mix_[i], 25 %
# asleep in the kernel, 15 % under a name that is hostile markup; db_writer
# asleep in read() under an Oracle state) in each format through
# output_write(), so these tests do not depend on main.c's wiring.  The
# readers are optional: each test skips, saying so, where its tool is absent.
FT=build/test/write_formats
F="$TMP/formats"
mkdir -p "$F"
if [ ! -x "$FT" ]; then
	fail "formats" "$FT not built (make $FT)"
else
for fmt in folded svg speedscope pprof perf-script stap; do
	"$FT" "$fmt" "$F/demo.$fmt" 2>"$F/$fmt.err" || fail "formats: write $fmt" "$(cat "$F/$fmt.err")"
done

# folded, the reference: 2000 samples
if [ "$(total "$F/demo.folded")" = 2000 ]; then pass "formats: folded reference (2000 samples)"
else fail "formats: folded reference" "$(total "$F/demo.folded") samples, expected 2000" "$F/demo.folded"; fi

# SVG: well-formed for xmllint, with the hostile name escaped
if command -v xmllint >/dev/null 2>&1; then
	if xmllint --noout "$F/demo.svg" 2>"$F/xmllint.err"; then
		pass "formats: svg is well-formed XML (xmllint)"
	else fail "formats: svg well-formed" "$(head -n 3 "$F/xmllint.err")"; fi
	n=$(xmllint --xpath 'count(//*[local-name()="g"][@class="f"])' "$F/demo.svg" 2>/dev/null)
	hostile=$(xmllint --xpath 'count(//*[local-name()="title"][starts-with(., "<script>alert(")])' "$F/demo.svg" 2>/dev/null)
	scripts=$(xmllint --xpath 'count(//*[local-name()="script"])' "$F/demo.svg" 2>/dev/null)
	if [ "$n" = 27 ] && [ "$hostile" = 1 ] && [ "$scripts" = 1 ]; then
		pass "formats: svg has 27 frames, the hostile name as title text, one script"
	else fail "formats: svg content" "frames $n (27), hostile titles $hostile (1), scripts $scripts (1)"; fi
else
	skip "formats: svg well-formed" "xmllint not installed (apt-get install libxml2-utils)"
fi

# SVG in a browser: it renders, ?s= searches, ?z= zooms
if [ -n "$CHROMIUM" ]; then # (lib.sh's chrome)
	chrome "$F/c1" --dump-dom "file://$F/demo.svg?s=cpu_work&z=main" >"$F/dom.txt"
	matched=$(grep -o 'data-matched="[0-9.]*"' "$F/dom.txt" | head -n 1)
	hits=$(grep -c 'fill="rgb(230,0,230)"' "$F/dom.txt")
	hidden=$(grep -c 'class="f hid"' "$F/dom.txt")
	# the widest main (750 samples) now spans the whole width
	zoomed=$(awk 'prev ~ /><title>main$/ && /^750 samples, 37\.50%<\/title><rect x="10\.00" y="[0-9]*" width="1180\.00"/ { n++ } { prev = $0 } END { print n + 0 }' "$F/dom.txt")
	if [ "$matched" = 'data-matched="30.00"' ] && [ "$hits" = 1 ] && [ "$zoomed" = 1 ] && [ "$hidden" -ge 10 ]; then
		pass "formats: svg in chromium: ?s=cpu_work matches 30.00% (1 frame highlighted), ?z=main fills the width, $hidden frames hidden"
	else fail "formats: svg in chromium" "matched '$matched' (30.00), highlighted $hits (1), main zoomed $zoomed (1), hidden $hidden (>=10)"; fi
	# a screenshot that is not blank: against the same size of background
	printf '<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="272"><rect width="1200" height="272" fill="#f7f7f2"/></svg>\n' >"$F/blank.svg"
	chrome "$F/c2" --screenshot="$F/shot.png" "file://$F/demo.svg?s=cpu_work" >/dev/null
	chrome "$F/c3" --screenshot="$F/blank.png" "file://$F/blank.svg" >/dev/null
	shot=$(stat -c %s "$F/shot.png" 2>/dev/null || echo 0)
	blank=$(stat -c %s "$F/blank.png" 2>/dev/null || echo 0)
	if [ "$blank" -gt 0 ] && [ "$shot" -gt $((blank * 5)) ]; then
		pass "formats: svg screenshot is not blank ($shot bytes of PNG, a blank page $blank)"
	else fail "formats: svg screenshot" "$shot bytes of PNG, a blank page $blank"; fi
	# The header as seen: a command line of 300 characters (issue 34: one
	# ran under the Search button) stays clear of Search, and the
	# subtitle of Reset search, measured by the browser's own layout.
	"$PP" -d 1ms -o "$F/long.svg" -- sleep $(printf '0.005 %.0s' $(seq 1 56)) 2>"$F/long.err"
	# (a script of ours in a copy: the boxes of the header's texts, Reset
	# search shown)
	sed 's|</svg>|<script>window.addEventListener("load", function () { var c = document.getElementById("clearsearch"); c.classList.remove("hid"); var t = document.getElementById("title").getBBox(), s = document.getElementById("search").getBBox(), u = document.getElementById("subtitle").getBBox(), r = c.getBBox(), d = document.documentElement; d.setAttribute("data-gap-title", Math.round(s.x - t.x - t.width)); d.setAttribute("data-gap-subtitle", Math.round(r.x - u.x - u.width)); });</script></svg>|' \
		"$F/long.svg" >"$F/long-measured.svg"
	chrome "$F/c4" --dump-dom "file://$F/long-measured.svg" >"$F/long-dom.txt"
	gap1=$(sed -n 's/.*data-gap-title="\(-\{0,1\}[0-9]*\)".*/\1/p' "$F/long-dom.txt" | head -n 1)
	gap2=$(sed -n 's/.*data-gap-subtitle="\(-\{0,1\}[0-9]*\)".*/\1/p' "$F/long-dom.txt" | head -n 1)
	cut=$(grep -c '<text id="title" x="10" y="22"><title>[^<]*ptrace_profiler -d 1ms -o [^<]* -- sleep 0.005 [^<]*0.005</title>' "$F/long.svg")
	if [ -n "$gap1" ] && [ "$gap1" -ge 4 ] && [ -n "$gap2" ] && [ "$gap2" -ge 4 ] && [ "$cut" = 1 ]; then
		pass "formats: svg in chromium: a 300-character command line cut ${gap1} px before Search (whole in its tooltip), the subtitle ${gap2} px before Reset search"
	else fail "formats: svg header in chromium" "title ${gap1:-?} px before Search, subtitle ${gap2:-?} px before Reset search (>= 4 each), the command cut with a tooltip: $cut (1)" "$F/long.err"; fi
else
	skip "formats: svg in a browser" "chromium not installed (apt-get install chromium)"
fi

# pprof: go tool pprof reads it; -top and -tags give the demo's figures
if command -v go >/dev/null 2>&1; then
	if HOME=$F PPROF_TMPDIR=$F go tool pprof -top "$F/demo.pprof" >"$F/top.txt" 2>"$F/top.err"; then
		if grep -q '^Type: wall' "$F/top.txt" &&
			grep -Eq '^ +1000ms +50\.00% .* pipe_read_\[k\]$' "$F/top.txt" &&
			grep -Eq '^ +400ms +20\.00% .* 600ms +30\.00% +cpu_work$' "$F/top.txt" &&
			grep -Eq '^Duration: 1s, Total samples = 2000ms' "$F/top.txt"; then
			pass "formats: go tool pprof -top reads the pprof file (wall: cpu_work 600 ms of 2000, pipe_read_[k] 1000 ms)"
		else fail "formats: go tool pprof -top" "unexpected figures: $(head -n 12 "$F/top.txt" | tr '\n' '|')"; fi
	else fail "formats: go tool pprof -top" "$(tail -n 3 "$F/top.err")"; fi
	HOME=$F PPROF_TMPDIR=$F go tool pprof -tags -sample_index=samples "$F/demo.pprof" >"$F/tags.txt" 2>/dev/null
	if grep -Eq ' 1000(\.0)? \(50\.00%\): 4243$' "$F/tags.txt" && grep -Eq ' 1250(\.0)? \(62\.50%\): S \(sleeping\)$' "$F/tags.txt" &&
		grep -Eq ' 1000(\.0)? \(  100%\): event=db file sequential read \(Oracle state\)$' "$F/tags.txt"; then
		pass "formats: go tool pprof -tags: tid, state and Oracle state labels"
	else fail "formats: go tool pprof -tags" "$(tr '\n' '|' <"$F/tags.txt" | cut -c1-400)"; fi
else
	skip "formats: go tool pprof" "go not installed (apt-get install golang-go)"
fi

# speedscope: JSON that a JSON parser takes, with one profile per thread
if command -v jq >/dev/null 2>&1; then
	if jq -e '.profiles | length == 2 and all(.[]; (.samples | length) == (.weights | length))' \
		"$F/demo.speedscope" >/dev/null 2>&1; then pass "formats: speedscope JSON parses (jq), 2 profiles, samples and weights alike"
	else fail "formats: speedscope JSON" "jq refused it or the profiles are wrong"; fi
elif command -v python3 >/dev/null 2>&1; then
	if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["profiles"]; sys.exit(not (len(p)==2 and all(len(x["samples"])==len(x["weights"]) for x in p)))' \
		"$F/demo.speedscope" 2>/dev/null; then pass "formats: speedscope JSON parses (python3), 2 profiles, samples and weights alike"
	else fail "formats: speedscope JSON" "python3's json refused it or the profiles are wrong"; fi
else
	skip "formats: speedscope JSON" "neither jq nor python3 to parse it"
fi

# perf-script: 2000 blocks, times in order
blocks=$(grep -c ': 1 wall:$' "$F/demo.perf-script")
ordered=$(awk '/: 1 wall:$/ { t = $(NF - 2); sub(":", "", t); if (t + 0 < last) bad++; last = t + 0 } END { print bad + 0 }' "$F/demo.perf-script")
if [ "$blocks" = 2000 ] && [ "$ordered" = 0 ]; then pass "formats: perf-script has 2000 blocks, time never goes back"
else fail "formats: perf-script" "$blocks blocks (2000), $ordered times going back"; fi

# perf-script through FlameGraph's own stackcollapse-perf.pl: the roots,
# events and states whole (issue 34: the script cuts a name at its first
# '(', and "R (running)" read "R ").
SC=$(fg_tool stackcollapse-perf.pl)
if [ -n "$SC" ]; then
	"$SC" --all "$F/demo.perf-script" >"$F/demo.collapsed" 2>"$F/collapse.err"
	# each stack's root, events and state, and its count: the folded
	# output's, its annotations in brackets
	heads() { awk -v open="$2" '{ n = split($0, f, ";"); c = f[n]; sub(/.* /, "", c); h = f[1]
		for (i = 2; i < n; i++) { h = h ";" f[i]; if (index(f[i], open) == 2) break }
		s[h] += c } END { for (h in s) print h, s[h] }' "$1" | sort; }
	heads "$F/demo.folded" " (" | sed 's/ (\([^;()]*\))\(;\| [0-9]*$\)/ [\1]\2/g' >"$F/heads.want"
	heads "$F/demo.collapsed" " [" >"$F/heads.got"
	if [ -s "$F/heads.want" ] && cmp -s "$F/heads.want" "$F/heads.got" && [ "$(total "$F/demo.collapsed")" = 2000 ]; then
		pass "formats: perf-script through stackcollapse-perf.pl --all: 2000 samples, each stack's root, event and state whole ($(wc -l <"$F/heads.got") of them)"
	else fail "formats: perf-script through stackcollapse-perf.pl" "roots, events and states: $(diff "$F/heads.want" "$F/heads.got" | head -n 6 | tr '\n' '|')" "$F/demo.collapsed"; fi
else
	skip "formats: perf-script through stackcollapse-perf.pl" "stackcollapse-perf.pl is not installed (not in Debian: put FlameGraph's directory in FLAMEGRAPH_DIR)"
fi

# The real binary: one run per format on the same target, each file read
# by its own tool, its samples counted against the run's summary.
if [ "$CAN_ATTACH" = 1 ]; then
	start "$T/split"
	for out in real.svg real.speedscope.json real.pb.gz real.perf; do
		extra=""
		[ "$out" = real.perf ] && extra="--format perf-script"
		# shellcheck disable=SC2086
		"$PP" -p "$TPID" -d 1ms -t 500ms $extra -o "$F/$out" >/dev/null 2>"$F/$out.err"
		echo $? >"$F/$out.rc"
	done
	stop_target "$TPID"
	samples_of() { sed -n 's/.* ticks in .*, \([0-9]*\) thread samples/\1/p' "$F/$1.err"; }

	if [ "$(cat "$F/real.svg.rc")" = 0 ] && command -v xmllint >/dev/null 2>&1 &&
		xmllint --noout "$F/real.svg" 2>/dev/null && grep -q '>main<' "$F/real.svg"; then
		pass "formats: the binary's -o x.svg is well-formed, with main"
	else fail "formats: the binary's -o x.svg" "exit $(cat "$F/real.svg.rc"), not well-formed or no main" "$F/real.svg.err"; fi

	n=$(samples_of real.speedscope.json)
	if command -v jq >/dev/null 2>&1; then
		got=$(jq '[.profiles[].samples | length] | add' "$F/real.speedscope.json" 2>/dev/null)
		same=$(jq '[.profiles[] | (.samples | length) == (.weights | length)] | all' "$F/real.speedscope.json" 2>/dev/null)
		if [ "$(cat "$F/real.speedscope.json.rc")" = 0 ] && [ -n "$n" ] && [ "$got" = "$n" ] && [ "$same" = true ]; then
			pass "formats: the binary's -o x.speedscope.json holds every sample ($got), weights alike"
		else fail "formats: the binary's speedscope" "exit $(cat "$F/real.speedscope.json.rc"), $got samples in the file, $n in the run" "$F/real.speedscope.json.err"; fi
	else
		skip "formats: the binary's speedscope" "jq is not installed"
	fi

	n=$(samples_of real.perf)
	blocks=$(grep -c ' 1 wall:' "$F/real.perf")
	back=$(awk '/ 1 wall:/ { t = $3 + 0; if (t < last) b++; last = t } END { print b + 0 }' "$F/real.perf")
	if [ "$(cat "$F/real.perf.rc")" = 0 ] && [ "$blocks" = "$n" ] && [ "$back" = 0 ]; then
		pass "formats: the binary's --format perf-script: a block per sample ($blocks), time never goes back"
	else fail "formats: the binary's perf-script" "exit $(cat "$F/real.perf.rc"), $blocks blocks for $n samples, $back steps back" "$F/real.perf.err"; fi

	if command -v go >/dev/null 2>&1; then
		n=$(samples_of real.pb.gz)
		if [ "$(cat "$F/real.pb.gz.rc")" = 0 ] &&
			go tool pprof -sample_index=samples -top "$F/real.pb.gz" >"$F/real.top" 2>&1 &&
			grep -q "of $n total" "$F/real.top" && grep -q 'cpu_work' "$F/real.top"; then
			pass "formats: the binary's -o x.pb.gz read by go tool pprof: $n samples, cpu_work among them"
		else fail "formats: the binary's pprof" "exit $(cat "$F/real.pb.gz.rc"), $n samples in the run" "$F/real.top"; fi
	else
		skip "formats: the binary's pprof" "go is not installed (Debian's golang-go)"
	fi
else
	skip "formats: the binary's -o x.svg" "$WHY_NO_ATTACH"
fi
fi
