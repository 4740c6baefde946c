/*
 * The Help view, written from the key table the dispatcher uses
 * (keymap.c), so it lists exactly the keys that work.
 */
#include "keymap.h"
#include "style.h"
#include "text_view.h"
#include "views.h"

#include <assert.h>
#include <stdio.h>

static void fill_help(view *v, text_lines *t) {
    for (size_t i = 0; i < keymap_count(); i++) {
        key_binding k = keymap_binding(i);
        if (k.group) {
            if (i)
                text_add(t, TH_NORMAL, 0, "%s", "");
            text_add(t, TH_ROLE, 0, "%s", k.group);
        }
        /* A binding without a help line is another key for the one above. */
        assert(k.help || k.action == ACT_VIEW || (i && keymap_binding(i - 1).action == k.action));
        char what[256];
        if (k.action == ACT_VIEW)
            snprintf(what, sizeof what, "%s: %s", view_table[k.view].name,
                     view_table[k.view].about);
        else if (k.help)
            snprintf(what, sizeof what, "%s", k.help);
        else
            continue;
        char keys[128];
        keymap_keys_of(&k, keys, sizeof keys);
        text_add(t, TH_NORMAL, 26, "  %-23s %s", keys, what);
    }
    text_add(t, TH_NORMAL, 0, "%s", "");
    text_add(t, TH_ROLE, 0, "Figures");
    text_add(t, TH_NORMAL, 12, "  share     of the role's phase time (all its processes)");
    text_add(t, TH_NORMAL, 12, "  self      total minus the phases inside it");
    text_add(t, TH_NORMAL, 12, "  wait      share of wall time off the CPU");
    text_add(t, TH_NORMAL, 12, "  p50 p99   entry durations, from merged histograms");
    text_add(t, TH_NORMAL, 12, "  imbalance the busiest process's phase time over the role's mean");
    text_add(t, TH_NORMAL, 12, "  n/a       not measured, never the same as 0");
    text_add(t, TH_NORMAL, 0, "%s", "");
    text_add(t, TH_ROLE, 0, "Lines");
    text_add(t, TH_NORMAL, 12,
             "  share     of the role's line samples (Source: of the function's)");
    text_add(t, TH_NORMAL, 12, "  %s one standard deviation of the share, from the sample count",
             style_utf8 ? "±        " : "+-       ");
    text_add(t, TH_NORMAL, 12, "  time      estimated CPU time: samples times the sampling period");
    text_add(t, TH_NORMAL, 12,
             "  project   a sample counts for its innermost line in the project folder, so time in "
             "a library lands on the line that called it; a shows the line that ran instead");
    text_add(t, TH_NORMAL, 0, "%s", "");
    text_add(t, TH_DIM, 2, "theme: %s (--theme, $SCOPE_THEME or theme: in config.yaml)",
             v->app->theme.name);
}

static int help_init(view *v) {
    return text_view_init(v, fill_help);
}

const view_ops help_view_ops = TEXT_VIEW_OPS(help_init);
