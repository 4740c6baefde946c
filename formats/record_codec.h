/*
 * Decoding of record bodies, shared by the reader and the tests.  Internal to
 * formats/: the public face is scope_log_reader_next_record().
 */
#ifndef SCOPE_FORMATS_RECORD_CODEC_H
#define SCOPE_FORMATS_RECORD_CODEC_H

#include <scope/log_format.h>

/* Growable arrays that decoded records point into.  Two slots, because the
 * PROCESS record carries two arrays (argv and settings); every other kind
 * uses one.  Memory is kept between records and freed by scratch_free. */
typedef struct scope_decode_scratch {
    void *slot[2];
    size_t cap[2];
} scope_decode_scratch;

void scope_decode_scratch_free(scope_decode_scratch *s);

enum scope_decode_status {
    SCOPE_DECODE_OK = 0,
    SCOPE_DECODE_MALFORMED = -1, /* the body does not decode as its kind */
    SCOPE_DECODE_NOMEM = -2,
};

/* Decodes a body of a known kind into rec (rec->type and rec->raw are set for
 * every kind, known or not).  Trailing bytes after the known fields are
 * ignored: that is how later minor versions add fields. */
int scope_record_decode(uint32_t type, const uint8_t *body, size_t len, scope_record *rec,
                        scope_decode_scratch *s);

/* Gives a format 1.0 UNBALANCED mark (subkind UNSTATED) the subkind and
 * value2 a 1.1 writer states, read from its text (formats/mark_compat.c).
 * Any other mark is left as it is. */
void scope_mark_classify_1_0(scope_rec_mark *mk);

#endif
