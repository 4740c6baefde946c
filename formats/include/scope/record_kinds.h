/*
 * The record kinds and mark kinds of the scope event log, each declared once.
 *
 * Every list below is an X-macro: a macro taking another macro X and applying
 * it to one row per kind.  The enums of log_format.h, the names of
 * formats/log_names.c, the record union, the codec's switches and
 * scope-tui dump are all generated from these rows, so they cannot drift
 * apart: adding a kind is one row here plus its encoder and decoder (and
 * its dump line).  docs/format.md specifies each kind.
 */
#ifndef SCOPE_RECORD_KINDS_H
#define SCOPE_RECORD_KINDS_H

/* X(NAME, type number, member): SCOPE_REC_<NAME> = number, decoded into
 * scope_record.u.<member> of type scope_rec_<member>, named "<NAME>".
 * Numbers ascend from 1 and are never reused: readers skip unknown ones.
 * A number may be missing where another minor version holds it (15 is
 * format 1.4's); every list below is built from these rows alone. */
#define SCOPE_REC_KINDS(X)                                                                         \
    X(FRAME, 1, frame)                  /* first record of every data frame */                     \
    X(PROCESS, 2, process)              /* who wrote this log; in the first data frame */          \
    X(STRING, 3, string)                /* id -> bytes, for names used by other records */         \
    X(THREAD, 4, thread)                /* recorder thread index -> OS thread */                   \
    X(PHASE_NODE, 5, phase_node)        /* a node of one thread's phase tree */                    \
    X(PHASE_AGG, 6, phase_agg)          /* full aggregate of one phase node (newest wins) */       \
    X(COUNTER, 7, counter)              /* full total of one counter in one phase (newest wins) */ \
    X(RESOURCE, 8, resource)            /* one resource-sampler interval */                        \
    X(MODULE, 9, module)                /* a mapped executable or library, for symbolization */    \
    X(STACK, 10, stack)                 /* id -> call stack (module-relative addresses) */         \
    X(STACK_SAMPLES, 11, stack_samples) /* full sample counts of stacks (newest wins) */           \
    X(MARK, 12, mark)                   /* an event: signal, fork, exec, failure, shutdown */      \
    X(TRACE, 13, trace)                 /* full phase events of a bounded trace window */          \
    X(LINES, 14, lines)                 /* line sampling settings and totals (newest wins) */      \
    X(OPEN, 15, open)                   /* one thread's open phases at its frame (newest frame) */ \
    X(TRACE_WINDOW, 16, trace_window)   /* a trace window's bounds and state (newest wins) */      \
    X(TRACE_COUNTS, 17, trace_counts)   /* counter events of a trace window, one thread */         \
    X(RESOURCE_SERIES, 18, resource_series) /* one resource figure over the whole run (newest) */  \
    X(MARK_STATE, 19, mark_state)           /* a snapshot's copy of a mark written earlier */      \
    X(RESOURCE_BATCH, 20, resource_batch)   /* a frame's RESOURCE intervals, delta-coded */        \
    X(NODE_IO, 21, node_io)                 /* a snapshot's bytes of intervals under one phase */  \
    X(OFFCPU_SAMPLES, 22, offcpu_samples)   /* STACK_SAMPLES taken while the thread was off-CPU */

/* X(NAME, kind number, "name"): SCOPE_MARK_<NAME>, shown as "name".  What
 * value, value2, subkind and text hold for each kind is in docs/format.md. */
#define SCOPE_MARK_KINDS(X)                                                                        \
    X(SIGNAL, 1, "signal")             /* value: signal number */                                  \
    X(FORK, 2, "fork")                 /* value: child pid */                                      \
    X(EXEC, 3, "exec")                 /* text: the program exec'd */                              \
    X(FLUSH_FAILED, 4, "flush-failed") /* value: errno */                                          \
    X(SHUTDOWN, 5, "shutdown")         /* value: enum scope_shutdown_reason */                     \
    X(CAVEAT, 6, "caveat")             /* text: plainly worded caveat */                           \
    X(DROPPED, 7, "dropped")           /* value: items dropped so far by the thread; text: what */ \
    X(UNBALANCED, 8, "unbalanced")     /* subkind: enum scope_unbalanced_subkind */                \
    X(SATURATED, 9, "saturated")       /* value: COUNTER id whose total held at an int64 limit */  \
    X(FOLDED, 10, "folded")            /* value: fold-map bits set so far (5.13); text: why */

/* X(NAME, subkind number, "name"): what an UNBALANCED mark counts,
 * SCOPE_UNBALANCED_<NAME>.  Format 1.0 wrote no subkind: such marks decode
 * as UNSTATED and are classified from their text once, by the decoder
 * (formats/mark_compat.c), so no reader of a mark reads its text. */
#define SCOPE_UNBALANCED_SUBKINDS(X)                                                               \
    X(UNSTATED, 0, "unstated")   /* format 1.0 encoding, before classification */                  \
    X(END_EMPTY, 1, "end-empty") /* value: scope_phase_end() calls with nothing open so far */     \
    X(LEFT_OPEN, 2, "left-open") /* value: innermost open node; value2: phases left open */        \
    X(LEFT_IN_BLOCK, 3, "left-in-block") /* value: begun phases a block closed so far */

#endif
