/* The hot lines' shared parts; see hot_lines.h. */
#include "hot_lines.h"

#include "style.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

void hot_scope_set(app *a, hot_scope *sc, const run_role *role, const run_phase *phase) {
    sc->role = role;
    sc->phase = phase;
    sc->model = a->model;
    sc->worker = a->focus_worker;
    snprintf(sc->role_name, sizeof sc->role_name, "%.*s", role ? (int)role->name.len : 0,
             role ? role->name.s : "");
    if (phase)
        run_phase_path(phase, sc->phase_path, sizeof sc->phase_path);
    else
        sc->phase_path[0] = '\0';
}

int hot_scope_resolve(app *a, hot_scope *sc) {
    if (sc->model == a->model && sc->worker == a->focus_worker)
        return 0;
    const run_role *role = NULL;
    if (sc->role_name[0]) {
        /* Under the process filter a phase is one of that process's tree. */
        const run_role *own =
            a->focus_worker != SIZE_MAX ? run_worker_role(a->model, a->focus_worker) : NULL;
        if (own && !strcmp(own->name.s, sc->role_name))
            role = own;
        else if (a->focus_worker == SIZE_MAX)
            role = run_find_role(a->model, sc->role_name);
    }
    const run_phase *phase =
        role && sc->phase_path[0] ? run_find_phase(role, sc->phase_path) : NULL;
    int dropped = sc->phase_path[0] && !phase;
    if (sc->role_name[0] && !role)
        dropped = 1;
    hot_scope_set(a, sc, role, phase);
    return dropped;
}

/* Loads a run's line data into its fields (the shown run's in app, or
 * app.other's), once per model.  Returns 1 when it loaded them now, 0 when
 * they were loaded, -1 with msg. */
static int load_lines(run_model *m, const char *source_dir, lines_symbolizer **sym,
                      const run_model **lines_model, run_lines_info *info, size_t *caveats_before,
                      char *msg, size_t cap) {
    if (*lines_model == m)
        return 0;
    size_t caveats = m->ncaveats;
    if (!*sym && !(*sym = lines_sym_new())) {
        snprintf(msg, cap, "out of memory");
        return -1;
    }
    if (run_lines_load_with(m, source_dir, *sym, info, msg, cap) < 0)
        return -1;
    *lines_model = m;
    *caveats_before = caveats;
    return 1;
}

int hot_lines_load_both(app *a, char *msg, size_t cap) {
    if (load_lines(a->model, a->source_dir, &a->symbolizer, &a->lines_model, &a->lines_info,
                   &a->caveats_before_lines, msg, cap) < 0)
        return -1;
    app_run *o = &a->other;
    if (a->diff && load_lines(o->model, a->source_dir, &o->symbolizer, &o->lines_model,
                              &o->lines_info, &o->caveats_before_lines, msg, cap) < 0)
        return -1;
    return 0;
}

const run_lines_info *hot_lines_info(app *a, char *msg, size_t cap) {
    return hot_lines_info_in_build(a, NULL, msg, cap);
}

const run_lines_info *hot_lines_info_in_build(app *a, const view *building, char *msg, size_t cap) {
    size_t caveats = a->model->ncaveats;
    int loaded = load_lines(a->model, a->source_dir, &a->symbolizer, &a->lines_model,
                            &a->lines_info, &a->caveats_before_lines, msg, cap);
    if (loaded <= 0)
        return loaded < 0 ? NULL : &a->lines_info;
    /* Loading adds the lines' caveats (missing debug info, dropped samples):
     * the views that list caveats are built again to show them, all but
     * the one being built now, which goes on with them. */
    if (a->model->ncaveats != caveats)
        for (size_t i = 0; i < view_count; i++) {
            const view_ops *ops = a->views[i].ops;
            if (&a->views[i] != building && ops != &lines_view_ops && ops != &source_view_ops &&
                app_rebuild(&a->views[i]) < 0)
                app_message(a, 1, "out of memory");
        }
    return &a->lines_info;
}

size_t app_run_caveats(const app *a) {
    return a->lines_model == a->model ? a->caveats_before_lines : a->model->ncaveats;
}

const char *hot_lines_none(const app *a, char *buf, size_t cap) {
    snprintf(buf, cap, "no line samples in this run: %s", run_lines_how_to_record(a->model));
    return buf;
}

int hot_lines_select(app *a, const hot_scope *sc, const char *function, enum run_lines_sort sort,
                     run_lines_result *out, char *msg, size_t cap) {
    const run_lines_info *info = hot_lines_info(a, msg, cap);
    if (!info)
        return -1;
    if (!info->has_lines) {
        hot_lines_none(a, msg, cap);
        return -1;
    }
    run_lines_query q = {
        .role = sc->role ? sc->role->name.s : NULL,
        .worker = a->focus_worker,
        .phase = sc->phase,
        .function = function,
        .attr = sc->attr,
        .sort = sort,
    };
    return run_lines_select(a->model, &q, out, msg, cap);
}

const char *hot_file_shown(app *a, run_str file, char *buf, size_t cap) {
    run_str project = a->lines_model == a->model ? a->lines_info.project : (run_str){"", 0};
    size_t n = project.len;
    while (n > 1 && project.s[n - 1] == '/')
        n--;
    if (n && file.len > n + 1 && !memcmp(file.s, project.s, n) && file.s[n] == '/')
        file = (run_str){file.s + n + 1, file.len - n - 1};
    if (!file.len)
        return snprintf(buf, cap, "%s", "??"), buf;
    return style_escape(file, buf, cap);
}
