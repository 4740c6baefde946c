/* Column layout; see layout.h. */
#include "layout.h"

#include <assert.h>

/* The shown column to give up next: the lowest drop rank, the leftmost of
 * equal ranks; -1 when only columns that are never dropped are left. */
static int next_to_drop(const layout_column *columns, const layout *L) {
    int best = -1;
    for (size_t c = 0; c < L->ncolumns; c++)
        if (L->shown[c] && columns[c].drop > 0 &&
            (best < 0 || columns[c].drop < columns[best].drop))
            best = (int)c;
    return best;
}

layout layout_fit(const layout_column *columns, size_t n, int width, int gap, int name_min) {
    assert(n <= LAYOUT_MAX_COLUMNS);
    assert(gap >= 0);
    layout L = {.ncolumns = n, .name_width = width};
    for (size_t c = 0; c < n; c++) {
        assert(columns[c].width >= 0 && columns[c].drop >= 0);
        L.shown[c] = !columns[c].off;
        L.width[c] = columns[c].width;
        if (L.shown[c])
            L.name_width -= gap + columns[c].width;
    }
    for (int c; L.name_width < name_min && (c = next_to_drop(columns, &L)) >= 0;) {
        L.shown[c] = 0;
        L.name_width += gap + columns[c].width;
    }
    int x = L.name_width;
    for (size_t c = 0; c < n; c++) {
        L.x[c] = L.shown[c] ? x + gap : -1;
        if (L.shown[c])
            x += gap + columns[c].width;
    }
    assert(x == width);
    return L;
}
