#!/usr/bin/env bash
# report --html and compare --html, read back by a real browser (Debian's
# chromium, headless): the page loads with no console message (no script
# error, nothing blocked), Chromium's DOM holds every section, and every
# figure the page carries equals report --json's; a screenshot is drawn.
# Then the injection test: a run whose role, phase and counter names are
# HTML and script (html_names.c), whose pages must show them as text, run
# none of them (the title stays ours, nothing logs PWNED), and hold no raw
# bidi or control character.
#
# Usage: test_html.sh SCOPE_TUI PIPELINE HTML_NAMES HOSTILE_NAMES FAKE_NVML_DIR
# SCOPE_HTML_SHOTS=DIR keeps the screenshots of the sections there.
# Exits 77 (skipped) only where no chromium is installed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tui=$1
pipeline=$2
names_prog=$3
hostile_prog=$4
nvml_dir=$5
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "SKIP: no chromium (scripts/setup.sh installs it)"
    exit 77
fi
unset SCOPE_PROFILE SCOPE_RUN_DIR SCOPE_RUN_ID SCOPE_ROLE
# shellcheck source=lib.sh
source "$here/lib.sh"
export LC_ALL=C.UTF-8 HOME="$tmp"

# chrome ARGS... PAGE: one headless launch with its own profile; stdout in
# ./chrome.out, its log (console messages included) in ./chrome.log.
chrome() {
    timeout 180 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
        --user-data-dir="$tmp/profile" --enable-logging=stderr --v=0 "$@" \
        >chrome.out 2>chrome.log || fail "chromium $*: $(grep -v dbus chrome.log | tail -5)"
}

# no_console LABEL: the last launch logged no console message.
no_console() {
    if grep -q ':CONSOLE' chrome.log; then
        fail "$1: console messages: $(grep ':CONSOLE' chrome.log | head -5)"
    fi
}

check() {
    python3 "$here/check_html.py" "$@" || fail "check_html.py $1 ${2:-}"
}

# ---- the example pipeline: figures as report --json's ---------------------------------
# As scripts/run-example.sh --gpu-stand-in records it: lines sampled, two
# GPUs from the stand-in NVML.
SCOPE_LINES=1 SCOPE_LINES_PROJECT="$(cd "$here/../.." && pwd)" \
    SCOPE_NVML_LIBRARY="$nvml_dir/libnvidia-ml.so.1" \
    FAKE_NVML_DEVICES="85,15,30000000000,85899345920,2000000000;12,-,1000000000,85899345920,-" \
    "$pipeline" --quick --run-dir run --out ckpt >prog.out 2>&1 || fail "pipeline: $(tail -5 prog.out)"
"$pipeline" --quick --run-dir run2 --out ckpt2 >prog.out 2>&1 || fail "pipeline: $(tail -5 prog.out)"
expect_rc 0 "$tui" report run --html -o report.html
[ ! -s out ] || fail "report --html -o wrote to stdout too"
expect_rc 0 "$tui" report run --json
cp out report.json
expect_rc 2 "$tui" report run --html --json
expect_in_output "--json and --html"
expect_rc 2 "$tui" report run --html -o no-such-dir/report.html
expect_in_output "cannot write no-such-dir/report.html"
# -o is replaced by rename, so it must be a regular file: a FIFO stays one,
# and an existing file keeps its mode.
mkfifo out.fifo
expect_rc 2 "$tui" report run --html -o out.fifo
expect_in_output "not a regular file"
[ -p out.fifo ] || fail "report -o replaced a FIFO"
expect_rc 2 "$tui" compare run run --html -o out.fifo
[ -p out.fifo ] || fail "compare -o replaced a FIFO"
echo old >kept.html
chmod 640 kept.html
expect_rc 0 "$tui" report run --html -o kept.html
[ "$(stat -c %a kept.html)" = 640 ] || fail "report -o changed the file's mode to $(stat -c %a kept.html)"
ls ./*.tmp?????? >/dev/null 2>&1 && fail "report -o left a temporary file"
grep -qiE '(src|href)="(https?:)?//' report.html && fail "report.html loads something from elsewhere"
expect_in report.html '<pre class="src">'
expect_in report.html 'data-gpu="1"'
size=$(stat -c %s report.html)
echo "report.html: $size bytes"

chrome --dump-dom "file://$tmp/report.html"
cp chrome.out report.dom
no_console report.html
check report report.dom report.json
check links report.html
# A screenshot per section: html_sections.html measures where each section
# lies in the page (a frame as wide as the window), then one screenshot of
# the whole page at half scale is cut there, each cut checked drawn.
cp "$here/html_sections.html" sections.html
chrome --allow-file-access-from-files --hide-scrollbars --dump-dom "file://$tmp/sections.html"
cp chrome.out sections.dom
height=$(python3 "$here/check_html.py" height sections.dom) || fail "no page height measured"
chrome --window-size="1200,${height:-4000}" --force-device-scale-factor=0.5 --hide-scrollbars \
    --screenshot="$tmp/report.png" "file://$tmp/report.html"
no_console "report.html screenshot"
check png report.png
mkdir -p "${SCOPE_HTML_SHOTS:-shots}"
check sections report.png sections.dom "${SCOPE_HTML_SHOTS:-shots}"
# Printed: each role begins a page (print CSS), so the PDF has more pages
# than roles.
chrome --no-pdf-header-footer --print-to-pdf="$tmp/report.pdf" "file://$tmp/report.html"
pages=$(python3 -c 'import re, sys
print(len(re.findall(rb"/Type\s*/Page(?!s)", open(sys.argv[1], "rb").read())))' report.pdf)
roles=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["roles"]))' report.json)
[ "$pages" -gt "$roles" ] || fail "report.pdf has $pages pages for $roles roles"
echo "report.pdf: $pages pages"

expect_rc 0 "$tui" compare run run2 --html -o compare.html
chrome --dump-dom "file://$tmp/compare.html"
cp chrome.out compare.dom
no_console compare.html
expect_rc 0 "$tui" compare run run2 --json
cp out compare.json
check compare compare.dom compare.json
check links compare.html

# ---- hostile names: text, never markup or script ---------------------------------------
# Lines sampled: the source file's name (#line in html_names.c) is script too.
SCOPE_LINES=1 "$names_prog" evil >prog.out 2>&1 || fail "html_names: $(cat prog.out)"
"$hostile_prog" hostile >prog.out 2>&1 || fail "hostile_names: $(cat prog.out)"
expect_rc 0 "$tui" report evil --html -o evil.html
expect_rc 0 "$tui" compare evil evil --html -o evil-compare.html
expect_rc 0 "$tui" report hostile --html -o hostile.html
python3 "$here/../support/check_no_raw.py" evil.html evil-compare.html hostile.html ||
    fail "a page holds a raw control or format character"
expect_in hostile.html 'c_202e\u202ez'
expect_in hostile.html 'role\u202eevil'
names=("<script>document.title='PWNED';console.log('PWNED')</script>"
    "</script><script>console.log('PWNED')</script>"
    "\"><img src=x onerror=\"document.title='PWNED'\">"
    "'><svg onload='console.log(\"PWNED\")'>"
    "a&amp;b &lt;i&gt;"
    'bidi\u202eevil'
    'esc\x1b[31mred'
    "<b onmouseover=\"document.title='PWNED'\">role</b>\\u202e"
    "<i>spin</i>")
expect_in evil.html "&lt;script&gt;console.log(&#39;PWNED&#39;)&lt;/script&gt;&quot;&#39;.c:"
for page in evil.html evil-compare.html; do
    chrome --dump-dom "file://$tmp/$page"
    cp chrome.out "$page.dom"
    no_console "$page"
    grep -q PWNED chrome.log && fail "$page: a name ran: $(grep PWNED chrome.log | head -3)"
    check names "$page.dom" "${names[@]}"
done
finish
