#!/usr/bin/env python3
"""Checks a page of `scope-tui report --html` as Chromium built it.

Usage:
  check_html.py report DOM JSON       every section is there, and every figure
                                      the page carries (data-k/data-v) equals
                                      report --json's
  check_html.py compare DOM JSON      the same for compare --html against
                                      compare --json, verdicts included
  check_html.py names DOM NAME...     the names are text: each appears in the
                                      page's text, no element or attribute
                                      came from them, the title is ours
  check_html.py links PAGE...         every link within a page (href="#ID") leads to
                                      an element of that id: none is dead
  check_html.py spread PAGE JSON      each spread plot's quartiles are those of
                                      the phase's per_proc_ns in report --json,
                                      computed here
  check_html.py png FILE              a screenshot that is not blank
  check_html.py height POS             the page's height the measure says
  check_html.py sections PNG POS OUTDIR
                                      the screenshot cut at each section's place
                                      (POS: the --dump-dom of html_sections.html,
                                      which measured them), one PNG a section in
                                      OUTDIR, each drawn: not one colour

DOM is Chromium's --dump-dom of the page: the document after its scripts ran.
Exits 1 naming each failure.
"""
import json
import math
import struct
import sys
import zlib
from html.parser import HTMLParser

failures = []


def fail(msg):
    failures.append(msg)


class Dom(HTMLParser):
    """The elements with their attributes, in order, and the text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.elements = []  # (tag, attrs dict, index of its text start)
        self.text = []
        self.title = None
        self._in_title = False
        self.stack = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        self._in_title = tag == 'title' and self.title is None
        if self._in_title:
            self.title = ''

    def handle_endtag(self, tag):
        if tag == 'title':
            self._in_title = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_title:
            self.title += data


def load_dom(path):
    d = Dom()
    with open(path, encoding='utf-8') as f:
        d.feed(f.read())
    return d


def same(v, want, where):
    """data-v against the JSON value: exact for integers, 1e-12 relative
    for doubles (printed with 17 digits), null for null."""
    if want is None or (isinstance(want, float) and math.isnan(want)):
        if v != 'null':
            fail(f'{where}: {v}, JSON has null')
        return
    if v == 'null':
        fail(f'{where}: null, JSON has {want}')
        return
    if isinstance(want, bool):
        if v != ('true' if want else 'false'):
            fail(f'{where}: {v}, JSON has {want}')
        return
    if isinstance(want, int):
        if v != str(want):
            fail(f'{where}: {v}, JSON has {want}')
        return
    got = float(v)
    if not math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12):
        fail(f'{where}: {v}, JSON has {want!r}')


def check_links(path):
    """Every href="#ID" names an id the page has."""
    d = load_dom(path)
    ids = {a.get('id') for _, a in d.elements if a.get('id')}
    hrefs = [a['href'] for _, a in d.elements if a.get('href', '').startswith('#')]
    dead = sorted({h for h in hrefs if h[1:] not in ids})
    for h in dead[:10]:
        fail(f'{path}: a link to {h}, which no element is')
    if len(dead) > 10:
        fail(f'{path}: {len(dead)} dead links in all')
    print(f'{path}: {len(hrefs)} links, {len(dead)} dead')
    return len(hrefs)


def quantile(v, q):
    """The q-quantile of sorted v, linearly between neighbours."""
    at = q * (len(v) - 1)
    i = int(at)
    return v[i] + (at - i) * (v[i + 1] - v[i]) if i + 1 < len(v) else v[-1]


def check_spread(path, json_path):
    """Each box's quartiles against the phase's per-process totals."""
    d = load_dom(path)
    with open(json_path, encoding='utf-8') as f:
        doc = json.load(f)
    role, phases, row, checked = None, [], None, 0
    for tag, a in d.elements:
        if tag == 'section' and a.get('id', '').startswith('role-'):
            role = doc['roles'][int(a['id'].split('-')[1])]
            phases = preorder(role['phases'])
        if tag == 'tr' and 'data-pre' in a and role is not None:
            row = phases[int(a['data-pre']) - 1]
        if tag == 'g' and 'data-q1' in a and row is not None:
            v = sorted(x for x in row['per_proc_ns'] if x is not None)
            for k, q in (('data-min', 0), ('data-q1', 0.25), ('data-median', 0.5),
                         ('data-q3', 0.75), ('data-max', 1)):
                same(a[k], quantile(v, q), f'{path} {row["path"]} {k}')
                checked += 1
    if not checked:
        fail(f'{path}: no spread plot checked')
    print(f'{path}: {checked} spread figures equal the per-process totals\' quantiles')


def preorder(phases):
    out = []
    for p in phases:
        out.append(p)
        out.extend(preorder(p['children']))
    return out


def check_report(dom_path, json_path):
    d = load_dom(dom_path)
    with open(json_path, encoding='utf-8') as f:
        doc = json.load(f)
    ids = {a.get('id') for _, a in d.elements if a.get('id')}
    want = ['caveats', 'run']
    for i, _ in enumerate(doc['roles']):
        want += [f'{s}-{i}' for s in ('role', 'icicle', 'dominant', 'iterations', 'phases',
                                      'spread', 'lines', 'counters', 'io', 'memory', 'gpu')]
    for s in want:
        if s not in ids:
            fail(f'no section #{s}')
    checked = 0
    # The sections in document order: figures are read inside the one open.
    section, role, row, phases = '', None, None, []
    kinds, shown_caveats = [], None
    run = doc['run']
    for tag, a in d.elements:
        if (tag == 'section' or a.get('id') == 'run') and a.get('id'):
            section = a['id']
            if section.startswith('role-'):
                role = doc['roles'][int(section.split('-')[1])]
                phases = preorder(role['phases'])
            if section == 'caveats':
                shown_caveats = int(a.get('data-n'))
        if tag == 'table' and 'data-gpu' in a:
            row = dict(role['resources']['gpus'][int(a['data-gpu'])], path='gpu')
            continue
        if tag == 'tr' and section.startswith('gpu-'):
            pass
        elif tag == 'tr':
            row = None
            if 'data-pre' in a and role is not None:
                k = int(a['data-pre'])
                if not 1 <= k <= len(phases):
                    fail(f'{section}: row of phase {k}, JSON has {len(phases)}')
                else:
                    row = phases[k - 1]
                    if 'data-cn' in a:
                        row = dict(row['counters'][int(a['data-cn'])],
                                   path=row['path'] + ' counter')
            elif section and section.startswith('iterations'):
                row = role['iterations']
        if tag == 'a' and section and section.startswith('spread') and \
                a.get('href', '').startswith('#ph-'):
            row = phases[int(a['href'].split('-')[-1]) - 1]
        if tag == 'g' and 'data-min' in a and row is not None:
            sp = row['spread']
            same(a['data-min'], sp['min_ns'], f'{section} {row["path"]} min')
            same(a['data-median'], sp['median_ns'], f'{section} {row["path"]} median')
            same(a['data-max'], sp['max_ns'], f'{section} {row["path"]} max')
            checked += 3
        if tag == 'li' and 'data-kind' in a:
            kinds.append(a['data-kind'])
        k = a.get('data-k')
        if k is None or 'data-v' not in a:
            continue
        v = a['data-v']
        if section == 'run':
            same(v, run[k], f'run {k}')
        elif section.startswith('role-'):
            same(v, role[k], f'{section} {k}')
        elif row is not None and k in row:
            same(v, row[k], f'{section} {row.get("path", "iterations")} {k}')
        elif section.startswith(('io-', 'memory-')):
            res = role['resources']
            src = res['io'] if k in res['io'] else res['memory'] if k in res['memory'] \
                else res['cpu']
            same(v, src[k], f'{section} {k}')
        elif section.startswith('spread') and k == 'nprocs' and row is not None:
            same(v, row['nprocs'], f'{section} {row["path"]} nprocs')
        else:
            fail(f'{section}: data-k {k} has no JSON counterpart')
            continue
        checked += 1
    # The caveats: the JSON's, and those reading the line samples adds (kind
    # lines), which report --json does not read.
    want = sorted(c['kind'] for c in doc['caveats'] if c['kind'] != 'lines')
    got = sorted(k for k in kinds if k != 'lines')
    if got != want or shown_caveats != len(kinds):
        fail(f'caveats: {got} ({shown_caveats} said), JSON has {want}')
    checked += 1
    if checked < 20:
        fail(f'only {checked} figures checked')
    # The dominant tables list the JSON's dominant phases, in order.
    print(f'{checked} figures equal the JSON')


def check_compare(dom_path, json_path):
    d = load_dom(dom_path)
    with open(json_path, encoding='utf-8') as f:
        doc = json.load(f)
    checked, role, phase, k_row = 0, None, None, -1
    for tag, a in d.elements:
        if tag == 'section' and a.get('id', '').startswith('role-'):
            role = doc['roles'][int(a['id'].split('-')[1])]
            k_row = -1
        if tag == 'tr' and 'data-side' in a and role is not None:
            k_row += 1
            phase = role['phases'][k_row]
            if a['data-side'] != phase['side']:
                fail(f'{phase["path"]}: side {a["data-side"]}, JSON has {phase["side"]}')
        k = a.get('data-k')
        if k is None or 'data-v' not in a or phase is None:
            continue
        key, part = k.rsplit('.', 1)
        same(a['data-v'], phase[key][part], f'{phase["path"]} {k}')
        checked += 1
    if checked < 20:
        fail(f'only {checked} figures checked')
    print(f'{checked} figures and verdicts equal the JSON')


def check_names(dom_path, names):
    d = load_dom(dom_path)
    text = ''.join(d.text)
    for n in names:
        if n not in text:
            fail(f'the page text lacks {n!r}')
    allowed = {'html', 'head', 'meta', 'title', 'style', 'body', 'header', 'h1', 'h2', 'h3',
               'h4', 'p', 'span', 'code', 'nav', 'a', 'section', 'ul', 'li', 'strong', 'figure',
               'figcaption', 'svg', 'defs', 'pattern', 'rect', 'line', 'g', 'text', 'polyline',
               'circle', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'div', 'footer', 'script',
               'small', 'pre', 'br', 'em'}
    scripts = 0
    for tag, a in d.elements:
        if tag not in allowed:
            fail(f'an element <{tag}> came from a name')
        scripts += tag == 'script'
        for k in a:
            if k.startswith('on'):
                fail(f'an attribute {k} on <{tag}> came from a name')
    if scripts != 1:
        fail(f'{scripts} script elements, the page has 1 of its own')
    if not d.title or 'PWNED' in d.title or not d.title.startswith('scope '):
        fail(f'the title is {d.title!r}')
    print(f'{len(names)} names are text; {len(d.elements)} elements, all the page\'s own')


def check_png(path):
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        fail(f'{path} is not a PNG')
        return
    w, h = struct.unpack('>II', data[16:24])
    idat, at = b'', 8
    while at < len(data):
        n, kind = struct.unpack('>I4s', data[at:at + 8])
        if kind == b'IDAT':
            idat += data[at + 8:at + 8 + n]
        at += 12 + n
    raw = zlib.decompress(idat)
    distinct = len(set(raw))
    if w < 300 or h < 300 or distinct < 32:
        fail(f'{path}: {w}x{h}, {distinct} distinct bytes: blank')
    print(f'{path}: {w}x{h}, {distinct} distinct bytes')


def read_png(path):
    """(width, height, bytes per pixel, rows of raw pixel bytes): the 8-bit
    RGB and RGBA images Chromium writes, unfiltered."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        raise ValueError(f'{path} is not a PNG')
    at, idat = 8, b''
    while at < len(data):
        n, kind = struct.unpack('>I4s', data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError(f'{path}: depth {depth}, colour type {ctype}')
            bpp = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        at += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pr) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, bpp, rows


def write_png(path, w, bpp, rows):
    def chunk(kind, body):
        return struct.pack('>I', len(body)) + kind + body + \
            struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff)
    raw = b''.join(b'\x00' + r for r in rows)
    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n')
        f.write(chunk(b'IHDR', struct.pack('>IIBBBBB', w, len(rows), 8,
                                           2 if bpp == 3 else 6, 0, 0, 0)))
        f.write(chunk(b'IDAT', zlib.compress(raw, 6)))
        f.write(chunk(b'IEND', b''))


def check_sections(png, pos_dom, outdir):
    w, h, bpp, rows = read_png(png)
    scale = w / 1200  # the frame's width, in CSS pixels
    d = load_dom(pos_dom)
    text = ''.join(d.text)
    places = [line.split() for line in text.splitlines() if line.startswith('section ')]
    if not places:
        fail(f'{pos_dom}: no section was measured')
    for _, sid, top, height in places:
        y0, y1 = int(float(top) * scale), int((float(top) + float(height)) * scale)
        if y1 > h:
            fail(f'section {sid} ends at {y1}, below the screenshot ({h} rows)')
            continue
        cut = rows[y0:y1]
        colours = set()
        for r in cut[::2]:
            colours.update(r[i:i + 3] for i in range(0, len(r), bpp * 3))
        if len(colours) < 3:
            fail(f'section {sid}: {len(colours)} colours, not drawn')
        write_png(f'{outdir}/{sid}.png', w, bpp, cut)
    print(f'{len(places)} sections cut from {png} into {outdir}')


def main():
    if len(sys.argv) >= 4 and sys.argv[1] == 'report':
        check_report(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 4 and sys.argv[1] == 'compare':
        check_compare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == 'names':
        check_names(sys.argv[2], sys.argv[3:])
    elif len(sys.argv) == 3 and sys.argv[1] == 'height':
        text = ''.join(load_dom(sys.argv[2]).text)
        print([line.split()[1] for line in text.splitlines() if line.startswith('height ')][0])
        return
    elif len(sys.argv) == 5 and sys.argv[1] == 'sections':
        check_sections(sys.argv[2], sys.argv[3], sys.argv[4])
    elif len(sys.argv) >= 3 and sys.argv[1] == 'links':
        for page in sys.argv[2:]:
            check_links(page)
    elif len(sys.argv) == 4 and sys.argv[1] == 'spread':
        check_spread(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == 'png':
        check_png(sys.argv[2])
    else:
        sys.exit(__doc__)
    for m in failures[:40]:
        print('FAIL:', m, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
