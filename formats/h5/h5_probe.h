/*
 * Is a file HDF5?  Judged by content, never by name: the HDF5 superblock
 * signature sits at byte 0, or at 512, 1024, 2048, ... when a user block
 * precedes it (HDF5 file format specification, "Superblock").
 */
#ifndef SCOPE_H5_PROBE_H
#define SCOPE_H5_PROBE_H

/* 1 when path is a regular file holding the HDF5 signature where the format
 * puts it; 0 for anything else (a directory, a missing file, a log, a
 * symlink's target is followed as open(2) does).  Reads at most a few bytes
 * at each candidate offset, and never more candidates than the file's size
 * allows. */
int scope_h5_probe(const char *path);

#endif
