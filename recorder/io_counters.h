/*
 * The kernel's I/O counters of a task (/proc/.../io): what a thread or a
 * process passed to read and write calls, and what reached the block
 * device.
 */
#ifndef SCOPE_REC_IO_COUNTERS_H
#define SCOPE_REC_IO_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

typedef struct rec_io_counters {
    uint64_t rchar, wchar;            /* bytes through read/write calls, page cache included */
    uint64_t read_bytes, write_bytes; /* bytes fetched from / sent to the block layer */
} rec_io_counters;

/* Reads the counters from an open io file.  Returns the bytes the read
 * itself returned (which the kernel adds to the reader's rchar once the
 * read ends: a caller that differences its own counters subtracts them),
 * or -1 when the file could not be read or did not hold all four. */
long rec_io_read(int fd, rec_io_counters *out);

/* The same through a descriptor of its own (an io file's path:
 * /proc/self/io, /proc/thread-self/io, /proc/self/task/TID/io), closed
 * again before it returns: for a file read once, or once a sample, so that
 * no descriptor is kept between reads. */
long rec_io_read_path(const char *path, rec_io_counters *out);

#endif
