/*
 * Data source: the PROCESS record (identity, command line, settings).
 */
#ifndef SCOPE_REC_SOURCE_PROCESS_H
#define SCOPE_REC_SOURCE_PROCESS_H

#include "source.h"

extern const rec_source rec_source_process;

/* The role changed: the next frame carries a new PROCESS record, which
 * supersedes the first.  Call with the writer held (rec_writer_lock). */
void rec_source_process_changed(void);

#endif
