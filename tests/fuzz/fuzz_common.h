/* Shared by the fuzz harnesses and the corpus writer. */
#ifndef SCOPE_TESTS_FUZZ_COMMON_H
#define SCOPE_TESTS_FUZZ_COMMON_H

/* In fuzz_log_records inputs, this separates the contents of consecutive data
 * frames, so one input can span frames (sequence gaps, decoder state carried
 * from frame to frame).  libFuzzer learns it from the memmem() that looks for
 * it; the corpus also holds multi-frame inputs that use it. */
#define SCOPE_FUZZ_FRAME_SEP     "\n--scope-frame--\n"
#define SCOPE_FUZZ_FRAME_SEP_LEN (sizeof SCOPE_FUZZ_FRAME_SEP - 1)

/* fuzz_run_load inputs are a run: up to SCOPE_FUZZ_MAX_LOGS worker logs
 * separated by SCOPE_FUZZ_LOG_SEP, each the record streams of its frames as
 * above.  Two more frame separators damage the frame before them after the
 * writer wrote it: LOST cuts it out of the file (a gap in the sequence
 * numbers), TORN cuts it in half (a damaged stretch, or a truncated log when
 * nothing follows). */
#define SCOPE_FUZZ_LOG_SEP      "\n--scope-log--\n"
#define SCOPE_FUZZ_LOG_SEP_LEN  (sizeof SCOPE_FUZZ_LOG_SEP - 1)
#define SCOPE_FUZZ_LOST_SEP     "\n--scope-lost--\n"
#define SCOPE_FUZZ_LOST_SEP_LEN (sizeof SCOPE_FUZZ_LOST_SEP - 1)
#define SCOPE_FUZZ_TORN_SEP     "\n--scope-torn--\n"
#define SCOPE_FUZZ_TORN_SEP_LEN (sizeof SCOPE_FUZZ_TORN_SEP - 1)
#define SCOPE_FUZZ_MAX_LOGS     3

#endif
