/* Deterministic sample records of every kind and whole sample logs, written
 * through the real writer.  Used by the unit tests, the fuzz corpus and the
 * benchmarks, so all three exercise the same realistic data. */
#ifndef SCOPE_TESTS_LOG_SAMPLES_H
#define SCOPE_TESTS_LOG_SAMPLES_H

#include <scope/log_format.h>
#include <stddef.h>
#include <stdint.h>

/* Writes a log of `nframes` data frames to `path` (created or truncated)
 * through scope_log_writer: the first frame holds a PROCESS record and the
 * definitions, later frames hold aggregates, counters, resource samples,
 * stacks, marks and trace events, and snapshot frames restate them
 * (log_sample_is_snapshot), so every record kind appears when nframes >= 2.  `seed` varies
 * the figures.  When frame_offsets is not NULL it receives the byte offset of
 * each data frame, and file_size (if not NULL) the final size.
 * Returns 0, or a negative errno. */
int log_sample_write_log(const char *path, unsigned nframes, unsigned seed, uint64_t *frame_offsets,
                         uint64_t *file_size);

/* Whether frame `frame` (0..) of a sample log of `nframes` frames is a
 * snapshot frame (docs/format.md 5.2.1): the last, right after the exit
 * frame, and one after every fourth data frame; none in a one-frame log.
 * A snapshot restates every definition and aggregate, and copies the marks
 * (MARK_STATE) and the resource samples (RESOURCE_SERIES) before it. */
int log_sample_is_snapshot(unsigned frame, unsigned nframes);

/* ---- single sample records (round-trip tests) ------------------------- */

/* Variants of each sample record:
 *   0  typical values, as a recorder would write them;
 *   1  extremes: 0, UINT64_MAX, INT64_MIN, INT32_MIN, -1 ranks, UINT32_MAX
 *      ids, and byte strings holding control characters, invalid UTF-8 and
 *      NUL bytes, which must be stored exactly as given;
 *   2  empty: every array of length 0 and every byte string empty;
 *   3  large arrays: hundreds of argv entries, every histogram bucket,
 *      dozens of GPUs, deep stacks, long traces. */
#define LOG_SAMPLE_VARIANTS 4

/* Fills *rec with variant `variant` of the sample record of kind `type`
 * (any known kind, SCOPE_REC_FRAME included).  Arrays and byte strings point
 * into storage owned by this module that stays valid until the next call
 * asking for the same kind and variant 3.  Returns 0, or -EINVAL for an
 * unknown kind or variant. */
int log_sample_record(scope_record *rec, uint32_t type, unsigned variant);

/* The body of a MARK as a format 1.0 writer encoded it: kind, thread,
 * mono_ns, value and text, nothing after (no subkind, no value2).  For
 * scope_log_writer_add_raw, to test that logs written the old way still
 * read the same.  Returns the body length, or what it would need when cap
 * is too small. */
size_t log_sample_mark_1_0(uint8_t *buf, size_t cap, uint32_t kind, uint32_t thread,
                           uint64_t mono_ns, int64_t value, const char *text);

/* Compares the decoded fields of two records of the same kind, array
 * elements and byte strings included (raw is not compared).  Returns 1 when
 * they are equal; otherwise 0, with the first differing field named in `why`
 * (e.g. "process.argv[2]: 3 bytes vs 4 bytes"). */
int log_sample_record_equal(const scope_record *a, const scope_record *b, char *why, size_t whylen);

/* ---- whole-log dumps (damage tests) ----------------------------------- */

/* One data frame as a reader returned it: its FRAME record and its records
 * as (type, raw body) pairs packed into one blob, which is enough to say two
 * reads of a frame returned identical contents. */
typedef struct log_sample_frame {
    uint64_t offset;
    scope_rec_frame frame;
    size_t nrecords;
    uint8_t *blob;
    size_t bloblen;
} log_sample_frame;

/* Everything a reader made of one file. */
typedef struct log_sample_dump {
    int rc;        /* scope_log_reader_open_mem's result */
    char msg[256]; /* its message when rc < 0 */
    scope_log_info info;
    size_t nframes;
    log_sample_frame *frames;
    size_t ndamage;
    scope_log_damage *damage;
    int runaway; /* 1: the reader gave more frames or records than it could hold */
} log_sample_dump;

/* Reads data[0..size) with scope_log_reader_open_mem and copies out every
 * frame, record and damage report.  Reading stops (runaway = 1) after
 * max_frames frames or a million records in one frame, so a reader that never
 * ends shows up as a failure rather than a hang.  Returns 0, or -ENOMEM. */
int log_sample_dump_mem(const void *data, size_t size, size_t max_frames, log_sample_dump *d);

/* The same through scope_log_reader_open on a file: the reader that reads
 * through a window rather than holding the file, which must give exactly
 * what the reader over memory gives for the same bytes. */
int log_sample_dump_file(const char *path, size_t max_frames, log_sample_dump *d);

/* 1 when two dumped frames have the same offset, FRAME record and records. */
int log_sample_frame_equal(const log_sample_frame *a, const log_sample_frame *b);

void log_sample_dump_free(log_sample_dump *d);

/* Reads a whole file into a malloc'd buffer.  Returns 0 or a negative errno. */
int log_sample_read_file(const char *path, uint8_t **data, size_t *size);

/* Writes a whole buffer to a file (created or truncated).  Returns 0 or a
 * negative errno. */
int log_sample_write_file(const char *path, const void *data, size_t size);

#endif
