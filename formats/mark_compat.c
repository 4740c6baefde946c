/*
 * Compatibility with format 1.0 marks.
 *
 * Format 1.0 wrote two different UNBALANCED marks and told them apart only
 * by their text:
 *   "scope_phase_end() with no phase open"  value: that thread's running
 *                                           total of such ends;
 *   "N phase(s) still open <when>"          value: the innermost open node,
 *                                           N only in the text.
 * From 1.1 on a mark states its subkind and figures in fields.  This file is
 * the one place that reads a 1.0 mark's text, so that every reader (the
 * analysis, dump, tests) sees a 1.0 log as if a 1.1 writer had written it.
 */
#include "record_codec.h"

#include <string.h>

/* N from "N phase(s) still open ...", or 1 for any other wording: each
 * such mark stood for at least one phase. */
static int64_t open_phases_in(scope_bytes text) {
    static const char suffix[] = " phase(s) still open";
    int64_t n = 0;
    size_t i = 0;
    for (; i < text.len && i < 10 && text.ptr[i] >= '0' && text.ptr[i] <= '9'; i++)
        n = n * 10 + (text.ptr[i] - '0');
    if (!i || !n || text.len - i < sizeof suffix - 1 ||
        memcmp(text.ptr + i, suffix, sizeof suffix - 1))
        return 1;
    return n;
}

void scope_mark_classify_1_0(scope_rec_mark *mk) {
    static const char end_empty[] = "scope_phase_end()";
    if (mk->kind != SCOPE_MARK_UNBALANCED || mk->subkind != SCOPE_UNBALANCED_UNSTATED)
        return;
    if (mk->text.len >= sizeof end_empty - 1 &&
        !memcmp(mk->text.ptr, end_empty, sizeof end_empty - 1)) {
        mk->subkind = SCOPE_UNBALANCED_END_EMPTY;
    } else {
        mk->subkind = SCOPE_UNBALANCED_LEFT_OPEN;
        mk->value2 = open_phases_in(mk->text);
    }
}
