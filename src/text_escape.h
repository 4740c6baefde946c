/*
 * Names in logs are data.  Everything that prints a name from a log goes
 * through here: valid, printable UTF-8 passes as is; control characters
 * (C0, DEL, C1) and bytes that are not valid UTF-8 come out as escapes
 * (\x1b, \xff, \u0085), never raw, so a name can neither move the cursor nor
 * change the terminal's state.  A backslash is doubled so the escaped form is
 * unambiguous.
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

/* Length of the valid UTF-8 sequence at p (1..4), or 0 when p[0..n) does
 * not start with one (stray continuation, overlong form, surrogate, beyond
 * U+10FFFF, or cut short). */
size_t scope_utf8_seq_len(const uint8_t *p, size_t n, uint32_t *codepoint);

#endif
