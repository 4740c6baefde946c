/*
 * HDF5 files that reach outside themselves, refused before any of their
 * objects is opened by path.
 *
 * libhdf5 follows an external link by opening the file it names, with a
 * blocking open: a link to a named pipe hangs the reader, and a link to
 * another file reads that file in silence, as if it were this one.  A
 * dataset may also keep its data in other files (external storage, a
 * virtual dataset's sources), which the library opens when it is read.
 * Soft links point only inside the file, but may point at an external link.
 * So the whole file is walked first (H5Lvisit, which never traverses what
 * it visits), and a file holding any link that is not a hard or soft link,
 * or any dataset whose data lives elsewhere, is refused whole.
 *
 * Only formats/h5/ includes this header (it names HDF5's types).
 */
#ifndef SCOPE_H5_LINKS_H
#define SCOPE_H5_LINKS_H

#include <hdf5.h>
#include <stddef.h>

/* 0 when everything reachable in file stays in it; -1 with one sentence in
 * msg naming the first link or dataset that does not (a name from the file,
 * not escaped: the caller shows it as data). */
int h5_refuse_outside(hid_t file, char *msg, size_t len);

#endif
