/* export --format json: the report's JSON document, written to a file. */
#include "export_formats.h"
#include "report_json.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int write_json(const run_model *m, const char *run, int fd, char *msg, size_t msglen) {
    (void)run;
    FILE *f = export_stream(fd, msg, msglen);
    if (!f)
        return -1;
    int rc = report_json_print(f, m);
    int saved = errno;
    if (fclose(f) != 0 && rc == 0) {
        saved = errno;
        rc = -1;
    }
    if (rc < 0)
        snprintf(msg, msglen, "cannot write the JSON document: %s",
                 saved ? strerror(saved) : "out of memory");
    return rc;
}

const export_format export_format_json = {
    "json", "the report's JSON document (docs/json.md), as report --json prints it", write_json};
