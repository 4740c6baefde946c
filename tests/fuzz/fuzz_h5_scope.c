/*
 * libFuzzer target for the loader of scope's own HDF5 layout
 * (src/load/run_h5_loader.c): the input is a whole file, written where the
 * loader reads it and loaded through the real HDF5 library by run_load, as
 * `scope-tui report FILE.h5` loads it.
 *
 * A file may fail to load (most mutations make it unreadable or of another
 * layout): then run_load must say why in one line naming the file.  A file
 * that loads is printed as the text report and as JSON.  Either way no HDF5
 * object may be left open (H5Fget_obj_count).  ASan, UBSan and
 * LeakSanitizer do the rest, less LeakSanitizer's reports of memory that
 * libhdf5 itself loses: 1.10.8 leaks in H5Dopen2 on a damaged object header
 * however its caller behaves (a program that only opens the dataset and
 * closes the file leaks the same), so leaks allocated inside libhdf5 are
 * suppressed; what this code leaves open, the object count catches.  Huge
 * allocations libhdf5 asks for return NULL (see __asan_default_options).  The
 * seeds are real exports of sample runs (make_h5_corpus.c).
 *
 * The file lives under /dev/shm when it can be written (no disk touched),
 * else $TMPDIR or /tmp, in a folder made once per process and removed at
 * exit; a crashed process leaves it behind, named scope-fuzz-h5-*.
 */
#define _GNU_SOURCE
#include "report_json.h"
#include "report_text.h"
#include "run_model.h"
#include "text_style.h"

#include <fcntl.h>
#include <hdf5.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_dir[256], g_path[300];

/* libhdf5 1.10 asks malloc for whatever size a damaged file's metadata
 * states (exabytes, in its metadata cache); the NULL it gets back fails the
 * open cleanly, as it does outside ASan.  This code's own allocations are
 * bounded before they are made. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) {
    return "allocator_may_return_null=1";
}

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
    return "leak:libhdf5\n";
}

static void die(const char *what) {
    perror(what);
    abort();
}

static void remove_dir(void) {
    unlink(g_path);
    rmdir(g_dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
    snprintf(g_dir, sizeof g_dir, "%s/scope-fuzz-h5-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(g_dir))
        die("mkdtemp");
    snprintf(g_path, sizeof g_path, "%s/run.h5", g_dir);
    atexit(remove_dir);
    return 0;
}

static void write_input(const uint8_t *data, size_t size) {
    int fd = open(g_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        die("open");
    for (size_t done = 0; done < size;) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            die("write");
        done += (size_t)n;
    }
    close(fd);
}

static void print_reports(const run_model *m) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        die("open_memstream");
    text_style style = {.width = 100, .color = 0, .utf8 = 1};
    report_text_print(f, m, &style);
    report_json_print(f, m);
    if (fclose(f) != 0)
        die("open_memstream");
    free(text);
}

/* Every file, dataset, type, space and attribute the loader opened is
 * closed again. */
static void check_closed(void) {
    ssize_t open = H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
    if (open != 0) {
        fprintf(stderr, "fuzz: %zd HDF5 objects left open\n", open);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    write_input(data, size);
    run_options opt = {.threads = 1};
    run_model *m = NULL;
    char msg[1024] = "";
    enum run_load_error e = run_load(g_path, &opt, &m, msg, sizeof msg);
    check_closed();
    if (e != RUN_OK) {
        /* One plain line, naming the file. */
        if (!msg[0] || strchr(msg, '\n') || !strstr(msg, "run.h5")) {
            fprintf(stderr, "fuzz: a failed load says '%s'\n", msg);
            abort();
        }
        if (m)
            abort();
        return 0;
    }
    print_reports(m);
    run_free(m);
    return 0;
}
