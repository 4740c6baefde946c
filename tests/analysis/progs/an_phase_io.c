/*
 * Per-phase sampled I/O on two threads (tests/analysis/test_phase_io.c): a
 * process whose thread "out" writes and whose thread "in" reads known byte
 * counts, each in a phase of its own, over many sampling intervals and
 * frames, then prints what each moved.
 *
 *   an_phase_io RUN DIR:
 *     main: DIR/source, SOURCE_BYTES, written before any phase
 *     out:  write_out { 100 ms, flush; 60 x (48 KiB to DIR/sink, 10 ms); 100 ms, flush }
 *     in:   read_in   { 100 ms, flush; DIR/source in 32 KiB reads, 10 ms apart;
 *                       100 ms, flush }
 *   stdout: "write_out N\nread_in N\n", the bytes write() and read() returned.
 *
 * The sampler puts an interval's bytes under the phase open on the thread
 * when the interval began.  A flush at each end of a phase, after its quiet
 * 100 ms (ten intervals at SCOPE_SAMPLE_INTERVAL=0.01), takes a sample
 * before its frame and returns once that is written: the first and last
 * bytes are inside intervals that began in the phase whenever a loaded
 * machine lets the sampler's own ticks run.
 */
#define _GNU_SOURCE
#include <scope/scope.h>

#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK_OUT    (48 * 1024)
#define CHUNKS_OUT   60
#define CHUNK_IN     (32 * 1024)
#define SOURCE_BYTES (80 * CHUNK_IN)

static char dir[4096];
static uint64_t wrote, got;
static int failed;

static void sleep_ms(long ms) {
    struct timespec ts = {0, ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* The quiet at one end of a phase, closed by a sample for certain. */
static void quiet_then_sample(void) {
    sleep_ms(100);
    if (scope_flush() != 0)
        failed = 1;
}

static int open_in(const char *name, int flags) {
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return open(path, flags | O_CLOEXEC, 0644);
}

static void *out_thread(void *arg) {
    (void)arg;
    static char buf[CHUNK_OUT];
    memset(buf, 'o', sizeof buf);
    int fd = open_in("sink", O_WRONLY | O_CREAT | O_TRUNC);
    if (fd < 0) {
        failed = 1;
        return NULL;
    }
    SCOPE_PHASE("write_out") {
        quiet_then_sample();
        for (int i = 0; i < CHUNKS_OUT; i++) {
            ssize_t k = write(fd, buf, sizeof buf);
            if (k > 0)
                wrote += (uint64_t)k;
            sleep_ms(10);
        }
        quiet_then_sample();
    }
    close(fd);
    return NULL;
}

static void *in_thread(void *arg) {
    (void)arg;
    static char buf[CHUNK_IN];
    int fd = open_in("source", O_RDONLY);
    if (fd < 0) {
        failed = 1;
        return NULL;
    }
    SCOPE_PHASE("read_in") {
        quiet_then_sample();
        ssize_t k;
        while ((k = read(fd, buf, sizeof buf)) > 0) {
            got += (uint64_t)k;
            sleep_ms(10);
        }
        quiet_then_sample();
    }
    close(fd);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: an_phase_io RUN DIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[2]);
    if (scope_init(argv[1], "phaseio") != 0)
        return 1;
    static char src[SOURCE_BYTES];
    memset(src, 'i', sizeof src);
    int fd = open_in("source", O_WRONLY | O_CREAT | O_TRUNC);
    if (fd < 0 || write(fd, src, sizeof src) != (ssize_t)sizeof src || close(fd) != 0)
        return 1;
    pthread_t out, in;
    if (pthread_create(&out, NULL, out_thread, NULL) || pthread_create(&in, NULL, in_thread, NULL))
        return 1;
    pthread_join(out, NULL);
    pthread_join(in, NULL);
    scope_shutdown();
    printf("write_out %" PRIu64 "\nread_in %" PRIu64 "\n", wrote, got);
    return failed || wrote != (uint64_t)CHUNK_OUT * CHUNKS_OUT || got != SOURCE_BYTES;
}
