/* The stream every format writes through; see export_formats.h.  Here, not
 * in cmd/cmd_export.c, because the formats below the command call it. */
#include "export_formats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

FILE *export_stream(int fd, char *msg, size_t msglen) {
    int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    FILE *f = copy >= 0 ? fdopen(copy, "w") : NULL;
    if (!f) {
        snprintf(msg, msglen, "cannot write: %s", strerror(errno));
        if (copy >= 0)
            close(copy);
    }
    return f;
}

int export_stream_close(FILE *f, int rc, const char *what, char *msg, size_t msglen) {
    int saved = errno;
    if (fclose(f) != 0 && rc == 0) {
        saved = errno;
        rc = -1;
    }
    if (rc < 0)
        snprintf(msg, msglen, "cannot write %s: %s", what,
                 saved ? strerror(saved) : "out of memory");
    return rc;
}
