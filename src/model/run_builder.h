/*
 * Building a model: the one way a run_model comes to be, whatever it is
 * loaded from.  A loader (run_loader.h) adds its processes and fills each
 * one's worker_log; finishing merges them into attempts, roles and phase
 * trees and words the caveats.  Implemented by run_model.c.
 */
#ifndef SCOPE_RUN_BUILDER_H
#define SCOPE_RUN_BUILDER_H

#include "run_model.h"
#include "worker_log.h"

typedef struct run_model_builder run_model_builder;

/* A builder for a model of the run at `source` (kept as run_model.dir),
 * loaded with opt (NULL: defaults).  NULL when out of memory. */
run_model_builder *run_builder_new(const char *source, const run_options *opt);

/* n more processes, readied by worker_log_init, for the loader to fill:
 * their identity and figures, and w.path, the name of each one's source
 * (run_str_dup into its mem).  The pointer is valid until the next call.
 * NULL when out of memory. */
worker_log *run_builder_add_workers(run_model_builder *b, size_t n);

/* Builds the model from n processes already read, which the caller keeps:
 * the model reads them (and a merge writes its scratch into them) until
 * run_free, which leaves them to the caller.  Instead of
 * run_builder_add_workers, on a builder nothing was added to. */
void run_builder_borrow_logs(run_model_builder *b, worker_log *logs, size_t n);

/* What the source is, for the header (run_model.source): copied. */
void run_builder_set_source(run_model_builder *b, const char *text);

/* Merges what the loader filled into the model and adds the caveats; the
 * builder is used up either way.  Returns RUN_OK with *out set, or an error
 * with one plain line in msg naming the source: RUN_ERR_NO_READABLE when no
 * process could be read at all, RUN_ERR_NOMEM. */
enum run_load_error run_builder_finish(run_model_builder *b, run_model **out, char *msg,
                                       size_t msglen);

/* Builds the model from partial models instead of logs: parts[i] a model
 * of consecutive logs of the run (run_dir_load_part), in order, each
 * finished by run_builder_finish.  Its processes are theirs one after the
 * other, its roles theirs merged (run_merge_parts), its caveats theirs (a
 * run-level caveat said once).  The model points into the parts, which the
 * caller frees after it.  It holds no logs: hot lines and one process's
 * tree (run_worker_role) are not in it.  Returns as run_builder_finish;
 * RUN_ERR_NO_ATTEMPT also when the parts show different attempts. */
enum run_load_error run_builder_finish_parts(run_model_builder *b, const run_model *const *parts,
                                             size_t nparts, run_model **out, char *msg,
                                             size_t msglen);

/* Hands the builder n partial models (run_model_builder_finish'd or built
 * by a loader, run_h5_summary.h), which it frees with its model: a model
 * merged from them keeps pointers into them (names, resources).  When the
 * builder has no processes of its own, run_builder_finish merges them
 * (run_builder_finish_parts).  Returns 0, or -1 when out of memory (the
 * parts stay the caller's). */
int run_builder_own_parts(run_model_builder *b, run_model *const *parts, size_t n);

/* The model being built, for a loader that fills it itself (a partial
 * model read from a file, run_h5_summary.h), to be freed with run_free. */
run_model *run_builder_model(run_model_builder *b);

/* Frees a builder that will not be finished (its loader failed). */
void run_builder_abandon(run_model_builder *b);

/* ---- what a finished model keeps behind it -------------------------------- */

/* The processes' tables (logs[i] is m->workers[i]) and the arena that
 * lives as long as the model, for parts of the model computed on demand
 * (hot lines). */
worker_log *run_model_logs(run_model *m);
/* 1 when the model keeps its processes' tables (logs[i] for every worker):
 * not a model merged from partial models (run_builder_finish_parts), which
 * has none, so what needs one process's own log cannot be done on it. */
int run_model_has_logs(const run_model *m);
/* 0 when the model has its processes' logs; else -1 with one line in msg
 * saying that `what` needs them and that the run directory has them. */
int run_model_needs_logs(const run_model *m, const char *what, char *msg, size_t msglen);

/* Hands the processes' tables (and the array holding them; n of them) to
 * the caller, who frees them (worker_log_release, free) after run_free,
 * which no longer does. */
worker_log *run_model_release_logs(run_model *m, size_t *n);
arena *run_model_arena(run_model *m);

/* A part computed on demand, kept by the model and freed by run_free with
 * free_fn (one slot: the hot lines' cache).  NULL until set. */
void *run_model_extension(const run_model *m);
void run_model_set_extension(run_model *m, void *ext, void (*free_fn)(void *));

/* The worker whose run_worker_role tree has this root, SIZE_MAX when none
 * (never creates one). */
size_t run_model_alone_worker(const run_model *m, const run_phase *root);

/* Writes the printf-style message into msg (if any) and returns e: how
 * every step of loading says why it failed. */
enum run_load_error run_load_fail(char *msg, size_t len, enum run_load_error e, const char *fmt,
                                  ...) __attribute__((format(printf, 4, 5)));

#endif
