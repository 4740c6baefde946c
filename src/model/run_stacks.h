/*
 * Stacks: the run's sampled call paths summed into a flame tree (an icicle:
 * the root on top, each frame as wide as the samples in it or under it),
 * and the callers and callees of one function with their shares (perf
 * report's caller/callee, pprof's peek).  They select samples as the hot
 * lines do (run_lines_query: role, process, phase; its function and
 * attribution are not used, since a path is every frame) and name frames
 * through the same symbolized locations (run_lines.h), so a function's
 * name, file and line read the same in Lines, Flame and the exports.
 *
 * Every figure is a sample count or its share; a share carries one
 * standard deviation, sqrt(p (1 - p) / n), as the hot lines' do.
 */
#ifndef SCOPE_RUN_STACKS_H
#define SCOPE_RUN_STACKS_H

#include "run_lines.h"
#include "run_model.h"

#include <stddef.h>
#include <stdint.h>

enum run_flame_names {
    RUN_FLAME_FUNCTIONS = 0, /* a frame per function: calls from different lines merge */
    RUN_FLAME_LINES = 1,     /* a frame per source line (function and file:line) */
};

enum run_frame_kind {
    RUN_FRAME_ROOT = 0, /* every sample selected */
    RUN_FRAME_ROLE = 1, /* one role's samples (when the query names no role) */
    RUN_FRAME_CODE = 2, /* a function (or line) of the program */
};

#define RUN_FLAME_NONE SIZE_MAX

typedef struct run_flame_frame {
    enum run_frame_kind kind;
    run_str function;   /* ROLE: the role's name; ROOT: empty */
    run_str file;       /* len 0: unknown */
    run_str module;     /* path of the module; len 0: unknown */
    uint32_t line;      /* RUN_FLAME_LINES: the line (0: unknown); RUN_FLAME_FUNCTIONS: 0 */
    int approximate;    /* no debug info: the function from the symbol table, or unknown */
    int in_project;     /* its file lies under the project folder */
    size_t parent;      /* RUN_FLAME_NONE for the root */
    size_t first_child; /* RUN_FLAME_NONE: a leaf; children widest first */
    size_t next_sibling;
    uint32_t depth;   /* the root's is 0 */
    uint64_t samples; /* in this frame or under it */
    uint64_t self;    /* this frame was the one running */
    uint64_t left;    /* samples left of it on its row: its left edge, from the root's */
    double seconds;   /* estimated CPU time of samples */
} run_flame_frame;

typedef struct run_flame {
    run_flame_frame *frames; /* depth first (a frame before its children), [0] the root */
    size_t nframes;
    uint32_t depth;   /* the deepest frame's */
    uint64_t samples; /* the root's */
    double seconds;
    double period_ns;  /* as run_lines_result's */
    double per_signal; /* samples per sampling signal: shares' sd (run_lines_share_sd) */
} run_flame;

/* The flame tree of the samples q selects.  With no role named, the root's
 * children are the roles (RUN_FRAME_ROLE), each role's code under it.
 * Returns 0 with *out filled (free with run_flame_free; an empty tree when
 * no sample is selected), or -1 with one plain line in msg. */
int run_flame_build(run_model *m, const run_lines_query *q, enum run_flame_names names,
                    run_flame *out, char *msg, size_t msglen);
void run_flame_free(run_flame *f);

/* Whether two frames name the same function (or line): name, file, module
 * and line. */
int run_flame_same(const run_flame_frame *a, const run_flame_frame *b);

/* One caller or callee of a function. */
typedef struct run_peer {
    enum run_peer_kind {
        RUN_PEER_FUNCTION = 0,
        RUN_PEER_SELF = 1,     /* callees: the function itself was running */
        RUN_PEER_OUTERMOST = 2 /* callers: the function was the stack's outermost frame */
    } kind;
    run_str function, file, module;
    uint64_t samples;
    double share, share_sd; /* of the function's samples */
} run_peer;

typedef struct run_callers {
    run_str function, file, module; /* as asked */
    uint64_t samples;               /* samples with the function on the stack (once each,
                                       however often it recursed) */
    uint64_t self;                  /* samples in which it was running */
    uint64_t total;                 /* every sample the query selected */
    double share, share_sd;         /* samples / total */
    run_peer *callers;              /* most first; their samples sum to samples */
    size_t ncallers;
    run_peer *callees; /* most first, RUN_PEER_SELF among them; their samples sum to samples */
    size_t ncallees;
} run_callers;

/* The callers and callees of the function named by (function, file,
 * module) among the samples q selects.  Each sample counts once, at the
 * outermost call of the function on its stack: its caller is the frame
 * above that call, its callee the frame below (or the function itself).
 * Returns 0, or -1 with one plain line in msg (no line data, no such
 * function among the samples). */
int run_callers_select(run_model *m, const run_lines_query *q, run_str function, run_str file,
                       run_str module, run_callers *out, char *msg, size_t msglen);
void run_callers_free(run_callers *c);

/* A frame's name as every output shows it, escaped (text_escape.h): the
 * function; "[libm.so.6]" for a function unknown in a known module,
 * "[unknown]" when the module is unknown too; a role's name; "all" for the
 * root.  Returns buf. */
const char *run_flame_name(const run_flame_frame *f, char *buf, size_t cap);

#endif
