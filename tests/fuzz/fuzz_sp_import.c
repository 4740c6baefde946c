/*
 * libFuzzer target for the scope-profiler importer (fuzz_sp_import): the
 * input is an HDF5 file, written as it is into a private file and loaded by
 * run_load through the real HDF5 library, as `scope-tui report FILE.h5`
 * loads it; a model that loads is printed as the text report and the JSON
 * (to /dev/null) and freed.  A refusal is fine, but must come with a
 * message naming the file; ASan, UBSan and LeakSanitizer do the rest.
 *
 * The HDF5 library itself is not instrumented (it is Debian's), so the
 * fuzzer steers by the importer's own edges, and a crash inside HDF5 on a
 * malformed file is the library's limit, not the importer's: see README.md.
 *
 * Seeds: the files of tests/fixtures/scope-profiler-h5 (scripts/fuzz.sh and
 * the fuzz build's ctest copy them).
 */
#include "report_json.h"
#include "report_text.h"
#include "run_model.h"

#include <errno.h>
#include <hdf5.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* HDF5 1.10 leaks memory of its own on some error paths: H5Dopen2 on a
 * damaged layout message returns failure, with no id to close, and keeps
 * what it had allocated (the saved input regressions/fuzz_sp_import/
 * hdf5-open-leak).  Nothing the importer can free, so leaks allocated
 * inside libhdf5 are not reported here.  That also hides a leak of the
 * importer's own whose stack passes through HDF5 (the group walks'
 * callbacks); test_sp_import runs those paths under LeakSanitizer with no
 * suppression, on good and bad files. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) {
    return "leak:libhdf5\n";
}

static char g_path[4096]; /* the file each input is written to */
static FILE *g_null;

static void die(const char *what) {
    fprintf(stderr, "fuzz: %s: %s\n", what, strerror(errno));
    abort();
}

static void remove_file(void) {
    unlink(g_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    const char *base = getenv("TMPDIR");
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
        base = "/dev/shm";
    else if (!base || !*base)
        base = "/tmp";
    snprintf(g_path, sizeof g_path, "%s/scope-fuzz-h5-XXXXXX", base);
    int fd = mkstemp(g_path);
    if (fd < 0)
        die(g_path);
    close(fd);
    atexit(remove_file);
    if (!(g_null = fopen("/dev/null", "w")))
        die("/dev/null");
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    int fd = open(g_path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd < 0)
        die(g_path);
    for (size_t off = 0; off < size;) {
        ssize_t n = write(fd, data + off, size - off);
        if (n <= 0)
            die(g_path);
        off += (size_t)n;
    }
    close(fd);

    run_model *m = NULL;
    char msg[1024];
    run_options opt = {.threads = 1};
    enum run_load_error e = run_load(g_path, &opt, &m, msg, sizeof msg);
    /* Loaded or not, the importer has closed everything it opened: HDF5
     * keeps an open object's file (and its memory) alive. */
    ssize_t open_ids = H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);
    if (open_ids != 0) {
        fprintf(stderr, "fuzz: %zd HDF5 object(s) left open\n", open_ids);
        abort();
    }
    if (e != RUN_OK) {
        if (m || !strstr(msg, g_path)) {
            fprintf(stderr, "fuzz: a refusal without the file's name: %s\n", msg);
            abort();
        }
        return 0;
    }
    text_style st = {.width = 100, .utf8 = 1};
    report_text_print(g_null, m, &st);
    if (report_json_print(g_null, m) < 0) {
        fprintf(stderr, "fuzz: report_json_print failed\n");
        abort();
    }
    run_free(m);
    return 0;
}
