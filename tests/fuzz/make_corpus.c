/*
 * Writes a seed corpus for the fuzz targets: real logs written through the
 * real writer (tests/support/log_samples.c), so the fuzzer starts from inputs
 * that reach deep into the reader instead of having to discover the format.
 *
 *   make_corpus [--mode file|suffix|records] OUTDIR
 *
 *   file     whole logs (fuzz_log_reader): several sizes and seeds, plus a
 *            truncated copy, a bit-flipped copy, a copy with a frame cut out,
 *            an empty file and a header-only file;
 *   suffix   the same logs without their file header (fuzz_log_suffix);
 *   records  the decompressed content of every data frame, alone and all of a
 *            log's frames joined by SCOPE_FUZZ_FRAME_SEP (fuzz_log_records).
 *
 * Output names are stable, so rerunning overwrites rather than piles up.
 */
#include "fuzz_common.h"
#include "log_samples.h"

#include <scope/log_format.h>

#include <zstd.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum mode { MODE_FILE, MODE_SUFFIX, MODE_RECORDS };

/* Sample logs to start from: one tiny, a few medium, one long enough to hold
 * many aggregate rewrites. */
static const struct {
    unsigned nframes, seed;
} k_logs[] = {{1, 1}, {2, 7}, {3, 11}, {5, 3}, {12, 42}};

#define MAX_FRAMES 64

typedef struct blob {
    uint8_t *p;
    size_t len;
} blob;

static int read_file(const char *path, blob *out) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return -errno;
    out->p = NULL;
    out->len = 0;
    size_t cap = 0;
    for (;;) {
        if (out->len == cap) {
            cap = cap ? 2 * cap : 65536;
            uint8_t *p = realloc(out->p, cap);
            if (!p) {
                fclose(f);
                return -ENOMEM;
            }
            out->p = p;
        }
        size_t n = fread(out->p + out->len, 1, cap - out->len, f);
        if (n == 0)
            break;
        out->len += n;
    }
    int bad = ferror(f);
    fclose(f);
    return bad ? -EIO : 0;
}

static int write_file(const char *dir, const char *name, const void *p, size_t len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "make_corpus: %s: %s\n", path, strerror(errno));
        return -1;
    }
    int ok = (len == 0 || fwrite(p, 1, len, f) == len);
    ok &= (fclose(f) == 0);
    if (!ok)
        fprintf(stderr, "make_corpus: writing %s failed\n", path);
    return ok ? 0 : -1;
}

/* Writes `log` as the mode wants it: whole, without its header, or as one
 * file per decompressed data frame. */
static int emit(enum mode mode, const char *dir, const char *name, const blob *log,
                const uint64_t *offsets, unsigned nframes) {
    char fname[256];
    if (mode == MODE_FILE) {
        snprintf(fname, sizeof fname, "%s.%s", name, SCOPE_LOG_FILE_EXT);
        return write_file(dir, fname, log->p, log->len);
    }
    if (mode == MODE_SUFFIX) {
        size_t skip = log->len < SCOPE_LOG_HEADER_SIZE ? log->len : SCOPE_LOG_HEADER_SIZE;
        snprintf(fname, sizeof fname, "%s.suffix", name);
        return write_file(dir, fname, log->p + skip, log->len - skip);
    }
    /* Each frame alone, and all of them in one input joined by the harness's
     * frame separator. */
    blob all = {0};
    int rc = 0;
    for (unsigned i = 0; i < nframes && rc == 0; i++) {
        uint64_t start = offsets[i];
        uint64_t end = i + 1 < nframes ? offsets[i + 1] : log->len;
        if (start >= end || end > log->len)
            continue;
        unsigned long long content = ZSTD_getFrameContentSize(log->p + start, end - start);
        if (content == ZSTD_CONTENTSIZE_ERROR || content == ZSTD_CONTENTSIZE_UNKNOWN ||
            content > SCOPE_LOG_MAX_FRAME_CONTENT)
            continue; /* a damaged copy: nothing to decompress */
        uint8_t *grown = realloc(all.p, all.len + SCOPE_FUZZ_FRAME_SEP_LEN + content + 1);
        if (!grown) {
            rc = -1;
            break;
        }
        all.p = grown;
        uint8_t *out = all.p + all.len + (all.len ? SCOPE_FUZZ_FRAME_SEP_LEN : 0);
        size_t n = ZSTD_decompress(out, content, log->p + start, end - start);
        if (ZSTD_isError(n))
            continue; /* the damaged frame of a damaged copy */
        snprintf(fname, sizeof fname, "%s.frame%02u.records", name, i);
        rc = write_file(dir, fname, out, n);
        if (all.len)
            memcpy(all.p + all.len, SCOPE_FUZZ_FRAME_SEP, SCOPE_FUZZ_FRAME_SEP_LEN);
        all.len = (size_t)(out - all.p) + n;
    }
    if (rc == 0 && nframes > 1 && all.len) {
        snprintf(fname, sizeof fname, "%s.all.records", name);
        rc = write_file(dir, fname, all.p, all.len);
    }
    free(all.p);
    return rc;
}

/* mkdir -p: ctest and fuzz.sh name folders whose parents may not exist yet. */
static int mkdir_p(const char *dir) {
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(path, 0777) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(path, 0777) < 0 && errno != EEXIST ? -1 : 0;
}

static int usage(void) {
    fprintf(stderr, "usage: make_corpus [--mode file|suffix|records] OUTDIR\n");
    return 2;
}

int main(int argc, char **argv) {
    enum mode mode = MODE_FILE;
    const char *dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc) {
            const char *m = argv[++i];
            if (strcmp(m, "file") == 0)
                mode = MODE_FILE;
            else if (strcmp(m, "suffix") == 0)
                mode = MODE_SUFFIX;
            else if (strcmp(m, "records") == 0)
                mode = MODE_RECORDS;
            else
                return usage();
        } else if (argv[i][0] == '-' || dir) {
            return usage();
        } else {
            dir = argv[i];
        }
    }
    if (!dir)
        return usage();
    if (mkdir_p(dir) < 0) {
        fprintf(stderr, "make_corpus: %s: %s\n", dir, strerror(errno));
        return 1;
    }

    int failed = 0;
    int wrote_derived = 0;
    for (size_t k = 0; k < sizeof k_logs / sizeof k_logs[0]; k++) {
        unsigned nframes = k_logs[k].nframes;
        char path[4096], name[64];
        uint64_t offsets[MAX_FRAMES], size = 0;
        snprintf(name, sizeof name, "log_f%02u_s%02u", nframes, k_logs[k].seed);
        /* Written in place, then read back: the sample writer wants a path. */
        snprintf(path, sizeof path, "%s/.tmp-%s", dir, name);
        int rc = log_sample_write_log(path, nframes, k_logs[k].seed, offsets, &size);
        if (rc < 0) {
            fprintf(stderr, "make_corpus: log_sample_write_log(%u, %u): %s\n", nframes,
                    k_logs[k].seed, strerror(-rc));
            remove(path);
            failed = 1;
            continue;
        }
        blob log = {0};
        rc = read_file(path, &log);
        remove(path);
        if (rc < 0 || log.len != size) {
            fprintf(stderr, "make_corpus: reading back %s: %s\n", name,
                    rc < 0 ? strerror(-rc) : "size differs from what the writer reported");
            if (rc == 0)
                free(log.p);
            failed = 1;
            continue;
        }
        failed |= emit(mode, dir, name, &log, offsets, nframes) < 0;

        /* Damaged copies of the first log with at least three frames: the
         * reader's recovery paths need seeds too. */
        if (!wrote_derived && nframes >= 3) {
            wrote_derived = 1;
            uint64_t last = offsets[nframes - 1];
            blob b;

            /* Cut in the middle of the last frame: what a crash leaves. */
            b.p = log.p;
            b.len = (size_t)(last + (log.len - last) / 2);
            failed |= emit(mode, dir, "damaged_truncated", &b, offsets, nframes - 1) < 0;

            /* One flipped bit in the middle of the second frame: its
             * checksum fails, the frames around it must still read. */
            b.p = malloc(log.len);
            if (!b.p)
                return 1;
            memcpy(b.p, log.p, log.len);
            b.len = log.len;
            size_t flip = (size_t)(offsets[1] + (offsets[2] - offsets[1]) / 2);
            b.p[flip] ^= 0x10;
            failed |= emit(mode, dir, "damaged_bitflip", &b, offsets, nframes) < 0;

            /* The second frame cut out whole: a gap in the sequence numbers. */
            size_t cut = (size_t)(offsets[2] - offsets[1]);
            memcpy(b.p, log.p, log.len);
            memmove(b.p + offsets[1], b.p + offsets[2], log.len - offsets[2]);
            b.len = log.len - cut;
            uint64_t gap_offsets[MAX_FRAMES];
            gap_offsets[0] = offsets[0];
            for (unsigned i = 2; i < nframes; i++)
                gap_offsets[i - 1] = offsets[i] - cut;
            failed |= emit(mode, dir, "damaged_gap", &b, gap_offsets, nframes - 1) < 0;
            free(b.p);

            /* The header alone, and nothing at all. */
            if (mode == MODE_FILE) {
                b.p = log.p;
                b.len = SCOPE_LOG_HEADER_SIZE;
                failed |= emit(mode, dir, "header_only", &b, offsets, 0) < 0;
                b.len = 0;
                failed |= emit(mode, dir, "empty", &b, offsets, 0) < 0;
            }
        }
        free(log.p);
    }
    if (!wrote_derived) {
        fprintf(stderr, "make_corpus: no sample log had three frames; damaged copies missing\n");
        failed = 1;
    }
    return failed ? 1 : 0;
}
