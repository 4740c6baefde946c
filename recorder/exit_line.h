/*
 * The line a recorded program prints as it exits: where its run went and
 * how to open it, as perf prints "wrote perf.data".
 */
#ifndef SCOPE_REC_EXIT_LINE_H
#define SCOPE_REC_EXIT_LINE_H

/* Prints "scope: run recorded in DIR; open it with: scope-tui DIR" on
 * stderr when stderr is a terminal and SCOPE_QUIET is not set; nothing
 * otherwise.  DIR is run_dir relative to the working directory when it lies
 * inside it, quoted for a shell when it needs to be.  The caller decides
 * that this process is the one to say it (lifecycle.c: the one that started
 * the run). */
void rec_exit_line(const char *run_dir);

#endif
