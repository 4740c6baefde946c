/* Folded stacks; see stacks_folded.h. */
#include "stacks_folded.h"

#include <inttypes.h>

static void put_frame(FILE *f, const run_flame_frame *fr) {
    char name[1024];
    run_flame_name(fr, name, sizeof name);
    for (char *p = name; *p; p++)
        if (*p == ';')
            *p = ':';
    fputs(name, f);
}

size_t stacks_folded_print(FILE *f, const run_flame *fl) {
    size_t lines = 0;
    size_t path[2048];
    for (size_t k = 1; k < fl->nframes; k++) {
        const run_flame_frame *fr = &fl->frames[k];
        if (!fr->self)
            continue;
        size_t n = 0;
        for (size_t a = k; a != 0 && a != RUN_FLAME_NONE && n < sizeof path / sizeof *path;
             a = fl->frames[a].parent)
            path[n++] = a;
        while (n--) {
            put_frame(f, &fl->frames[path[n]]);
            fputc(n ? ';' : ' ', f);
        }
        fprintf(f, "%" PRIu64 "\n", fr->self);
        lines++;
    }
    return lines;
}
