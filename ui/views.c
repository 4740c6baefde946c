/* The table of views; see views.h. */
#include "views.h"

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* One line a view: NAME (--view, the saved screen's file name), KEY, the
 * tab's TITLE and the help's line; its ops are NAME_view_ops, defined in
 * view_NAME.c.  The tab bar and Tab follow this order.  KEY 0: a view
 * reached from another one (views.h). */
#define VIEWS(X)                                                                                   \
    X(diff, 0, "Diff", "runs A and B compared (scope-tui A B); D shows it")                        \
    X(phases, '1', "Phases", "the phase tree of each role")                                        \
    X(lines, '2', "Lines", "the hot source lines of each role")                                    \
    X(source, 0, "Source", "a function's source, each line's share of the samples")                \
    X(flame, 'F', "Flame",                                                                         \
      "the sampled call stacks of the phase selected in Phases, as an icicle")                     \
    X(callers, 0, "Callers", "a function's callers and callees, each with its share")              \
    X(io, '3', "I/O", "exact I/O by phase and the sampled I/O over time")                          \
    X(gpu, '4', "GPU", "each device's busy, this run's share and memory over time")                \
    X(processes, '5', "Processes", "every worker, host, rank and caveat")                          \
    X(overview, '6', "Overview", "the run, its attempts and caveats")                              \
    X(help, '7', "Help", "this list")

#define DECLARE_OPS(NAME, KEY, TITLE, ABOUT) extern const struct view_ops NAME##_view_ops;
VIEWS(DECLARE_OPS)

#define ROW(NAME, KEY, TITLE, ABOUT) {#NAME, KEY, TITLE, ABOUT, &NAME##_view_ops},
const view_def view_table[] = {VIEWS(ROW)};
const size_t view_count = sizeof view_table / sizeof view_table[0];
static_assert(sizeof view_table / sizeof view_table[0] <= VIEW_MAX, "VIEW_MAX holds every view");

size_t view_named(const char *name) {
    for (size_t i = 0; i < view_count; i++)
        if (view_table[i].key && !strcmp(view_table[i].name, name))
            return i;
    return SIZE_MAX;
}

size_t view_of_ops(const struct view_ops *ops) {
    for (size_t i = 0; i < view_count; i++)
        if (view_table[i].ops == ops)
            return i;
    return SIZE_MAX;
}

size_t view_keyed(size_t k) {
    for (size_t i = 0; i < view_count; i++)
        if (view_table[i].key && k-- == 0)
            return i;
    return SIZE_MAX;
}

size_t view_keyed_count(void) {
    size_t n = 0;
    for (size_t i = 0; i < view_count; i++)
        n += view_table[i].key != 0;
    return n;
}

const char *view_names(char *buf, size_t cap, const char *last) {
    size_t len = 0, nkeyed = view_keyed_count();
    buf[0] = '\0';
    for (size_t k = 0; k < nkeyed && len < cap; k++) {
        const char *sep = k == 0 ? "" : k + 1 == nkeyed ? last : ", ";
        int n = snprintf(buf + len, cap - len, "%s%s", sep, view_table[view_keyed(k)].name);
        if (n < 0)
            break;
        len += (size_t)n;
    }
    return buf;
}
