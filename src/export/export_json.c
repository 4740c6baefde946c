/* export --format json: the report's JSON document, written to a file. */
#include "export_formats.h"
#include "report_json.h"

#include <stdio.h>

static int write_json(const run_model *m, const char *run, int fd, char *msg, size_t msglen) {
    (void)run;
    FILE *f = export_stream(fd, msg, msglen);
    if (!f)
        return -1;
    int rc = report_json_print(f, m);
    return export_stream_close(f, rc, "the JSON document", msg, msglen);
}

const export_format export_format_json = {
    "json", "the report's JSON document (docs/json.md), as report --json prints it", write_json};
