/* A counter's figures; see counter_cells.h. */
#include "counter_cells.h"

#include "fmt.h"

#include <math.h>
#include <string.h>

int counter_counts_bytes(run_str name) {
    if (name.len >= 2 && !memcmp(name.s + name.len - 2, "_b", 2))
        return 1;
    for (size_t i = 0; i + 5 <= name.len; i++)
        if (!memcmp(name.s + i, "bytes", 5))
            return 1;
    return 0;
}

void counter_cells_of(const run_counter *k, counter_cells *c) {
    int bytes = counter_counts_bytes(k->name);
    char buf[48];
    c->rate[0] = c->unit[0] = '\0';
    if (bytes && k->total >= 0)
        fmt_bytes(c->total, sizeof c->total, (double)k->total);
    else
        fmt_count(c->total, sizeof c->total, k->total);
    /* With no phase open there is no time to divide by: the total alone. */
    if (!isnan(k->rate_per_s)) {
        if (bytes && k->rate_per_s >= 0)
            snprintf(c->rate, sizeof c->rate, "%s/s", fmt_bytes(buf, sizeof buf, k->rate_per_s));
        else
            fmt_rate(c->rate, sizeof c->rate, k->rate_per_s);
    }
    if (bytes && k->calls && k->total >= 0)
        snprintf(c->unit, sizeof c->unit, "%s/call",
                 fmt_bytes(buf, sizeof buf, (double)k->total / (double)k->calls));
    else if (!bytes && !isnan(k->ns_per_unit))
        snprintf(c->unit, sizeof c->unit, "%s/ea", fmt_duration(buf, sizeof buf, k->ns_per_unit));
}
