/* The page around scope's HTML reports: its head, inline style and inline
 * script (html_out.h).  Hand-written and small: no external files, fonts
 * or libraries, so the page works offline, from an e-mail or a CI
 * artifact. */
#include "html_out.h"

/* Colours come in pairs for a light and a dark scheme; nothing is told by
 * colour alone (labels, dash patterns and hatching carry it too).  Print:
 * no colour backgrounds lost, each role on its own page, no row split. */
static const char css[] =
    ":root{--bg:#fff;--fg:#1b1b1b;--dim:#666;--rule:#ccc;--acc:#1f5fa8;--warn:#8a4b00;"
    "--c0:#1f5fa8;--c1:#b3541e;--c2:#2e7d32;--c3:#7b1fa2;--h0:#dce8f5;--h1:#a9c5e6;"
    "--h2:#6f9fd4;--h3:#3d76b8;--h4:#1d4d86}\n"
    "@media (prefers-color-scheme:dark){:root{--bg:#16181c;--fg:#e4e4e4;--dim:#9a9a9a;"
    "--rule:#3a3d44;--acc:#7fb0ef;--warn:#f0b060;--c0:#7fb0ef;--c1:#f09060;--c2:#80c884;"
    "--c3:#c98de0;--h0:#23354d;--h1:#2f4e78;--h2:#3f68a0;--h3:#5585c4;--h4:#7aa7e0}"
    ":root .ice text.lt{fill:#111}}\n"
    "body{background:var(--bg);color:var(--fg);font:14px/1.4 system-ui,sans-serif;"
    "margin:1.5em auto;max-width:1100px;padding:0 1em}\n"
    "h1{font-size:1.5em}h2{border-bottom:2px solid var(--rule);margin-top:2em}"
    "h3{margin-bottom:.3em}\n"
    "a{color:var(--acc)}.dim,figcaption{color:var(--dim);font-size:.9em}\n"
    "table{border-collapse:collapse;margin:.5em 0}th,td{padding:2px 8px;"
    "border-bottom:1px solid var(--rule);vertical-align:top}"
    "th{text-align:left;cursor:pointer;white-space:nowrap}"
    "th[aria-sort=ascending]::after{content:' \\25B2'}"
    "th[aria-sort=descending]::after{content:' \\25BC'}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
    "td.name{font-family:ui-monospace,monospace;white-space:pre}"
    ".wide{overflow-x:auto}\n"
    "code,pre{font-family:ui-monospace,monospace}pre.src{margin:0;white-space:pre-wrap}\n"
    ".caveats{border:2px solid var(--warn);padding:.5em 1em}"
    ".caveats li{margin:.2em 0}.caveats h2{margin-top:.3em}\n"
    ".heat{display:inline-block;height:.8em;background:var(--c1);"
    "border:1px solid var(--fg);vertical-align:middle}\n"
    "svg text{fill:var(--fg);font-size:11px}svg .axis{fill:none;stroke:var(--rule)}\n"
    "polyline,line{fill:none;stroke-width:1.5}.s0{stroke:var(--c0)}.s1{stroke:var(--c1)}"
    ".s2{stroke:var(--c2)}.s3{stroke:var(--c3)}\n"
    ".key{white-space:nowrap;margin-right:1em}\n"
    ".ice rect.w0{fill:var(--h0)}.ice rect.w1{fill:var(--h1)}.ice rect.w2{fill:var(--h2)}"
    ".ice rect.w3{fill:var(--h3)}.ice rect.w4{fill:var(--h4)}"
    ".ice rect{stroke:var(--bg)}.ice rect.q{fill:url(#hatch);stroke:none}"
    ".ice text{pointer-events:none}.ice text.lt{fill:#fff}\n"
    ".box rect{fill:var(--h1);stroke:var(--fg)}.box line{stroke:var(--fg)}"
    ".box circle{fill:var(--c1)}\n"
    "nav a{margin-right:1em}\n"
    ".up{color:var(--c1)}.down{color:var(--c2)}\n"
    "@media print{body{max-width:none;font-size:11px}nav,.noprint{display:none}"
    "section.role{break-before:page}figure,tr,.caveats{break-inside:avoid}"
    "h2,h3{break-after:avoid}*{-webkit-print-color-adjust:exact;print-color-adjust:exact}}\n";

/* Sortable tables: a click on a heading sorts by the exact values in
 * data-v where the cells have them (n/a last), else by text. */
static const char script[] =
    "(function(){\n"
    "function key(td){if(!td)return null;var v=td.getAttribute('data-v');"
    "if(v===null)return td.textContent;if(v==='null')return null;return parseFloat(v);}\n"
    "function cmp(a,b){if(a===b)return 0;if(a===null)return 1;if(b===null)return -1;"
    "if(typeof a==='number'&&typeof b==='number')return a-b;"
    "return String(a).localeCompare(String(b));}\n"
    "document.querySelectorAll('table.sortable').forEach(function(t){"
    "var ths=t.querySelectorAll('thead th');"
    "ths.forEach(function(th,i){th.tabIndex=0;th.title=th.title||'sort';"
    "function go(){var desc=th.getAttribute('aria-sort')!=='descending';"
    "ths.forEach(function(o){o.removeAttribute('aria-sort');});"
    "th.setAttribute('aria-sort',desc?'descending':'ascending');"
    "var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows);"
    "rows.sort(function(x,y){var a=key(x.cells[i]),b=key(y.cells[i]);"
    "if(a===null||b===null)return cmp(a,b);var c=cmp(a,b);return desc?-c:c;});"
    "rows.forEach(function(r){tb.appendChild(r);});}\n"
    "th.addEventListener('click',go);"
    "th.addEventListener('keydown',function(e){if(e.key==='Enter')go();});});});\n"
    "})();\n";

void html_page_begin(FILE *f, const char *title) {
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n"
          "<meta name=\"generator\" content=\"scope-tui\">\n"
          /* Nothing may load from anywhere: a page from a run is data. */
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n<title>",
          f);
    html_str(f, title);
    fputs("</title>\n<style>\n", f);
    fputs(css, f);
    fputs("</style></head><body>\n"
          /* The icicle's hatching, for the queued part of wait. */
          "<svg width=\"0\" height=\"0\" style=\"position:absolute\" aria-hidden=\"true\">"
          "<defs><pattern id=\"hatch\" width=\"5\" height=\"5\" patternUnits=\"userSpaceOnUse\" "
          "patternTransform=\"rotate(45)\"><rect width=\"5\" height=\"5\" fill=\"none\"/>"
          "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"5\" stroke=\"#000\" stroke-width=\"2\" "
          "stroke-opacity=\"0.6\"/></pattern></defs></svg>\n",
          f);
}

void html_page_end(FILE *f) {
    fputs("<script>\n", f);
    fputs(script, f);
    fputs("</script>\n</body></html>\n", f);
}
