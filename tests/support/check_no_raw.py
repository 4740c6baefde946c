#!/usr/bin/env python3
"""Checks that output files hold no raw control or format character.

Usage: check_no_raw.py [--json] FILE...

Each FILE must be UTF-8 without a control character (C0, DEL, C1) but the
newline, and without a format character that can disguise text: the
bidirectional overrides, embeddings, isolates and marks, the zero-width
characters and the line and paragraph separators (src/base/text_escape.h lists
the same).  --json also allows the tab a JSON document is indented with.
Exits 1, naming the first offenders, when one is found.
"""
import sys

HIDDEN = ({0x061C, 0x200E, 0x200F, 0xFEFF} | set(range(0x200B, 0x200E))
          | set(range(0x2028, 0x202F)) | set(range(0x2060, 0x2065))
          | set(range(0x2066, 0x206A)))


def offenders(text, allowed):
    return [(i, "U+%04X" % ord(c)) for i, c in enumerate(text)
            if (ord(c) < 0x20 and c not in allowed) or 0x7F <= ord(c) <= 0x9F
            or ord(c) in HIDDEN]


def main(args):
    allowed = "\n"
    if args and args[0] == "--json":
        allowed, args = "\n\t", args[1:]
    failed = False
    for path in args:
        try:
            text = open(path, "rb").read().decode("utf-8")
        except UnicodeDecodeError as e:
            print(f"{path}: not UTF-8: {e}", file=sys.stderr)
            failed = True
            continue
        bad = offenders(text, allowed)
        if bad:
            print(f"{path}: raw characters at (offset, code point): {bad[:10]}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
