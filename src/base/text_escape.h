/*
 * Names in logs are data.  Everything that prints a name from a log goes
 * through here: valid, printable UTF-8 passes as is; control characters
 * (C0, DEL, C1), the invisible format characters of scope_is_hidden_format
 * and bytes that are not valid UTF-8 come out as escapes (\x1b, \xff,
 * \u0085, \u202e), never raw, so a name can neither move the cursor, change
 * the terminal's state, nor reorder or hide the text around it.  A backslash
 * is doubled so the escaped form is unambiguous.
 */
#ifndef SCOPE_TEXT_ESCAPE_H
#define SCOPE_TEXT_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SCOPE_ESCAPE_QUOTE 0x1 /* also escape '"', for quoted output */
/* Also escape every character beyond ASCII (\u4f11, \U0001f600), for a
 * terminal whose locale is not UTF-8: it would show their bytes as garbage. */
#define SCOPE_ESCAPE_ASCII 0x2

/* Escapes n bytes into out (always NUL-terminated when cap > 0).  Returns
 * the length the full escaped text needs, excluding the NUL. */
size_t scope_escape(const uint8_t *p, size_t n, char *out, size_t cap, unsigned flags);

/* Writes the escaped form of n bytes to f. */
void scope_fput_escaped(FILE *f, const uint8_t *p, size_t n, unsigned flags);

/* Whether code point cp is a control character: C0, DEL or C1. */
int scope_is_control(uint32_t cp);

/* Whether cp is an invisible format character that can disguise text: the
 * bidirectional overrides, embeddings, isolates and marks (U+202A-202E,
 * U+2066-2069, U+200E, U+200F, U+061C), the zero-width characters (U+200B-200D,
 * U+2060-2064, U+FEFF) and the line and paragraph separators (U+2028,
 * U+2029), which some viewers take for line breaks. */
int scope_is_hidden_format(uint32_t cp);

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when p[0..n) does
 * not start with one (stray continuation, overlong form, surrogate, beyond
 * U+10FFFF, or cut short). */
size_t scope_utf8_seq_len(const uint8_t *p, size_t n, uint32_t *codepoint);

#endif
