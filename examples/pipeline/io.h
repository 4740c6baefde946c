/* Whole reads and writes on pipes and files, through short counts and EINTR. */
#ifndef PIPELINE_IO_H
#define PIPELINE_IO_H

#include <stddef.h>
#include <sys/types.h>

/* Returns 0, or -1 with errno set. */
int io_write_all(int fd, const void *buf, size_t len);

/* Returns the bytes read: len, or fewer at end of file; -1 with errno set. */
ssize_t io_read_all(int fd, void *buf, size_t len);

#endif
