/* Callers and callees as text; see callers_text.h. */
#include "callers_text.h"

#include "text_escape.h"

#include <inttypes.h>
#include <math.h>

static void put_name(FILE *f, run_str s) {
    scope_fput_escaped(f, (const uint8_t *)s.s, s.len, 0);
}

static void peers(FILE *f, const char *title, const run_peer *v, size_t n) {
    fprintf(f, "%-9s %9s %9s %6s  %s\n", title, "Samples", "% of fn", "+-", "Function  File");
    for (size_t i = 0; i < n; i++) {
        const run_peer *p = &v[i];
        fprintf(f, "%-9s %9" PRIu64 " %9.1f %6.1f  ", "", p->samples, 100 * p->share,
                100 * p->share_sd);
        if (p->kind == RUN_PEER_SELF) {
            fputs("(self: the function itself was running)\n", f);
            continue;
        }
        if (p->kind == RUN_PEER_OUTERMOST) {
            fputs("(none: the stack's outermost frame)\n", f);
            continue;
        }
        char name[1024];
        run_flame_frame fr = {.kind = RUN_FRAME_CODE, .function = p->function, .module = p->module};
        fputs(run_flame_name(&fr, name, sizeof name), f);
        if (p->file.len) {
            fputs("  ", f);
            put_name(f, p->file);
        }
        fputc('\n', f);
    }
}

void callers_text_print(FILE *f, const run_callers *c) {
    char name[1024];
    run_flame_frame fr = {.kind = RUN_FRAME_CODE, .function = c->function, .module = c->module};
    fprintf(f, "Function: %s", run_flame_name(&fr, name, sizeof name));
    if (c->file.len) {
        fputs(" in ", f);
        put_name(f, c->file);
    }
    if (c->module.len) {
        fputs(" (", f);
        put_name(f, c->module);
        fputc(')', f);
    }
    fprintf(f,
            "\nSamples: %" PRIu64 " of %" PRIu64 " (%.1f%% +- %.1f of the selection), running "
            "itself in %" PRIu64 "\n\n",
            c->samples, c->total, 100 * c->share, 100 * c->share_sd, c->self);
    peers(f, "Callers", c->callers, c->ncallers);
    fputc('\n', f);
    peers(f, "Callees", c->callees, c->ncallees);
}
