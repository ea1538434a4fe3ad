# --- the documentation: links that lead somewhere, every option written down --
# README.md is the front door (at most 300 lines) and docs/*.md the manual;
# man/ptrace_profiler.1 is the option reference.  Nothing here runs a target.

DOC_FILES=(README.md docs/*.md)

# doc_links FILE: "LINE<TAB>TARGET" for each Markdown link and image of FILE
# ([text](target), ![alt](target), [label]: target), outside fenced and
# indented code blocks and code spans.
doc_links() {
	awk '
	/^[ \t]*(```|~~~)/ { fenced = !fenced; prev_blank = 0; next }
	fenced { next }
	/^(    |\t)/ && (prev_blank || in_code) { in_code = 1; next }
	{ in_code = 0; prev_blank = ($0 ~ /^[ \t]*$/) }
	{
		line = $0
		gsub(/`[^`]*`/, "", line)
		if (match(line, /^( |  |   )?\[[^]]+\]:[ \t]+[^ \t]+/)) {
			t = substr(line, RSTART, RLENGTH); sub(/^[^]]*\]:[ \t]+/, "", t)
			print NR "\t" t
		}
		while (match(line, /\]\([^)]*\)/)) {
			t = substr(line, RSTART + 2, RLENGTH - 3)
			line = substr(line, RSTART + RLENGTH)
			sub(/^[ \t]+/, "", t); sub(/[ \t].*$/, "", t)
			gsub(/^<|>$/, "", t)
			print NR "\t" t
		}
	}' "$1"
}

# doc_anchors FILE: the anchors GitHub makes of FILE's headings: lowercase,
# spaces to '-', punctuation dropped ('-' and '_' kept), "-1", "-2"... after
# a repeated one.  Non-ASCII characters are dropped (GitHub keeps letters
# such as é: give such headings no links).  No {m,n} in the regular
# expressions: Debian's awk, mawk 1.3.4, does not know it.
doc_anchors() {
	LC_ALL=C awk '
	/^[ \t]*(```|~~~)/ { fenced = !fenced; next }
	fenced { next }
	/^( |  |   )?#+([ \t]|$)/ && match($0, /#+/) && RLENGTH <= 6 {
		h = $0
		sub(/^ *#+[ \t]*/, "", h); sub(/[ \t]+#+[ \t]*$/, "", h); sub(/[ \t]+$/, "", h)
		h = tolower(h)
		gsub(/[^a-z0-9 _-]/, "", h)
		gsub(/ /, "-", h)
		a = h
		if (h in seen) a = h "-" seen[h]
		seen[h]++
		print a
	}' "$1"
}

docs_bad=0
for f in "${DOC_FILES[@]}"; do
	[ -f "$f" ] || continue
	dir=$(dirname "$f")
	while IFS="$(printf '\t')" read -r ln target; do
		case $target in
		http://* | https://* | mailto:* | ftp://*) continue ;;
		'') fail "docs: link" "$f:$ln: an empty link"; docs_bad=1; continue ;;
		esac
		path=${target%%#*}
		anchor=
		case $target in *'#'*) anchor=${target#*#} ;; esac
		path=${path%%\?*}
		path=${path//%20/ }
		if [ -z "$path" ]; then dest=$f
		elif [ "${path#/}" != "$path" ]; then dest=${path#/}
		else dest=$dir/$path
		fi
		if [ ! -e "$dest" ]; then
			fail "docs: link" "$f:$ln: $target: no file $dest"
			docs_bad=1
		elif [ -n "$anchor" ] && [ "${dest%.md}" != "$dest" ]; then
			if ! doc_anchors "$dest" | grep -qxF -- "$anchor"; then
				fail "docs: link" "$f:$ln: $target: no heading of $dest has the anchor #$anchor"
				docs_bad=1
			fi
		fi
	done < <(doc_links "$f")
done
[ "$docs_bad" = 1 ] || pass "docs: every relative link in README.md and docs/*.md leads to a file (and heading)"

# Every option --help prints is in the man page as it writes options:
# \-\-name (the name's own hyphens plain or as \-), not followed by more of
# a name - the bare word (top, dump, pid) is found in any prose; in the
# manual and in README.md as --name, not followed by more of a name either
# (so that --push-queue does not stand for --push).
"$PP" --help >"$TMP/docs-help.out" 2>&1
docs_opts=$(grep -oE -- '--[a-z][a-z0-9-]*' "$TMP/docs-help.out" | sort -u)
if [ -z "$docs_opts" ]; then
	fail "docs: options" "no --option in $PP --help"
else
	docs_bad=0
	for opt in $docs_opts; do
		missing=
		man_name=${opt#--}
		man_name=${man_name//-/'\\?-'}
		grep -qE -- "\\\\-\\\\-${man_name}([^a-z0-9\\\\-]|\\\\[^-]|\$)" man/ptrace_profiler.1 ||
			missing="$missing man/ptrace_profiler.1"
		grep -qE -- "${opt}([^a-z0-9-]|\$)" docs/*.md || missing="$missing docs/*.md"
		grep -qE -- "${opt}([^a-z0-9-]|\$)" README.md || missing="$missing README.md"
		if [ -n "$missing" ]; then
			fail "docs: option $opt" "printed by --help but not in:$missing"
			docs_bad=1
		fi
	done
	[ "$docs_bad" = 1 ] || pass "docs: all $(echo "$docs_opts" | wc -l) options of --help in the man page, docs/ and README.md"
fi

docs_lines=$(wc -l <README.md)
if [ "$docs_lines" -le 300 ]; then pass "docs: README.md is $docs_lines lines (at most 300)"
else fail "docs: README.md length" "$docs_lines lines, at most 300: move the detail into docs/"; fi

# The table of source files and their unit tests in docs/how-it-works.md is
# scripts/source_map.sh's output, as it is now (a file added, renamed or
# tested since without the table made again is a failure).
sed -n '/^<!-- source_map.sh: begin -->$/,/^<!-- source_map.sh: end -->$/p' docs/how-it-works.md |
	sed '1d;$d' >"$TMP/docs-map.md"
sh scripts/source_map.sh >"$TMP/docs-map.now"
if [ -s "$TMP/docs-map.md" ] && cmp -s "$TMP/docs-map.md" "$TMP/docs-map.now"; then
	pass "docs: how-it-works.md's table of files and unit tests is source_map.sh's ($(($(wc -l <"$TMP/docs-map.now") - 2)) files)"
else
	fail "docs: how-it-works.md's table of files and unit tests" "not source_map.sh's output: run sh scripts/source_map.sh and paste it between the markers"
	diff "$TMP/docs-map.md" "$TMP/docs-map.now" | head -n 6 | sed 's/^/    /'
fi

# The comments in src/ and include/ name only identifiers the code has (a
# rename that forgot a comment: scripts/comment_names.py).  The check
# itself is checked: a comment naming one that does not exist, in a copy
# of a header, is found.
if ! command -v python3 >/dev/null 2>&1; then
	skip "docs: source comments' names" "no python3"
elif python3 scripts/comment_names.py >"$TMP/docs-names.out" 2>&1; then
	# (a name made here: written out in this file, it would exist)
	planted=planted_$$
	mkdir -p "$TMP/names-copy"
	cp -r scripts src include test Makefile "$TMP/names-copy/" 2>/dev/null
	printf '/* %s: no such function. */\n' "$planted" >>"$TMP/names-copy/include/options.h"
	if python3 "$TMP/names-copy/scripts/comment_names.py" 2>&1 | grep -q "options.h:.*$planted"; then
		pass "docs: source comments name only identifiers the code has (and a planted one is found)"
	else fail "docs: comment_names.py" "did not find a name planted in a copy of options.h"; fi
else
	fail "docs: source comments name identifiers the code lacks" "$(head -n 5 "$TMP/docs-names.out" | tr '\n' ' ')"
fi
