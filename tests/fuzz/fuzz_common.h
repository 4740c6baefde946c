/* Shared by the fuzz harness and the corpus writer. */
#ifndef SCOPE_TESTS_FUZZ_COMMON_H
#define SCOPE_TESTS_FUZZ_COMMON_H

/* In fuzz_log_records inputs, this separates the contents of consecutive data
 * frames, so one input can span frames (sequence gaps, decoder state carried
 * from frame to frame).  libFuzzer learns it from the memmem() that looks for
 * it; the corpus also holds multi-frame inputs that use it. */
#define SCOPE_FUZZ_FRAME_SEP     "\n--scope-frame--\n"
#define SCOPE_FUZZ_FRAME_SEP_LEN (sizeof SCOPE_FUZZ_FRAME_SEP - 1)

#endif
