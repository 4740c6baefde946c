/*
 * The Help view, written from the key table the dispatcher uses
 * (keymap.c), so it lists exactly the keys that work.
 */
#include "keymap.h"
#include "style.h"
#include "text_view.h"

static void fill_help(view *v, text_lines *t) {
    size_t n;
    const key_binding *k = keymap_table(&n);
    for (size_t i = 0; i < n; i++) {
        if (k[i].group) {
            if (i)
                text_add(t, TH_NORMAL, 0, "%s", "");
            text_add(t, TH_ROLE, 0, "%s", k[i].group);
        }
        if (!k[i].help)
            continue;
        char keys[128];
        keymap_keys_of(k[i].action, keys, sizeof keys);
        text_add(t, TH_NORMAL, 26, "  %-23s %s", keys, k[i].help);
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
    text_add(t, TH_DIM, 2, "theme: %s (--theme, $SCOPE_THEME or theme: in config.yaml)",
             v->app->theme.name);
}

static int help_build(view *v) {
    if (text_view_setup(v, fill_help) < 0)
        return -1;
    return text_view_build(v);
}

const view_ops help_view_ops = {
    .name = "help",
    .title = "Help",
    .build = help_build,
    .draw = text_view_draw,
    .row_text = text_view_row_text,
    .row_key = text_view_row_key,
    .release = text_view_release,
};
