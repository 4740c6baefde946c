/*
 * Host names as folder names: each process's log lies in
 * RUN/workers/<folder>/, where <folder> encodes the name of its host so that
 * every host name, whatever its bytes, is one visible folder of its own.
 * A host named ".", "..", ".x", "a/b" or "" would otherwise put its log in
 * RUN/workers itself, in RUN, in a folder readers skip, or nowhere.
 *
 * The encoding is percent-encoding of the bytes that are unsafe there: '%',
 * '/', every byte that is not printable ASCII (controls, space, DEL, bytes
 * >= 0x80) and a '.' that begins the name, each as "%XX" with two uppercase
 * hex digits.  Every other byte stands for itself, so an ordinary host name
 * ("node07") is its own folder.  The empty name is the folder "%".  The
 * recorder encodes; readers find logs by listing folders, and decode only to
 * show a folder as the host it names.
 */
#ifndef SCOPE_HOST_DIR_H
#define SCOPE_HOST_DIR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The longest folder name, with its NUL: a name of at most NAME_MAX bytes. */
#define SCOPE_HOST_DIR_CAP 256

/* Writes the folder for the len bytes of host into out (cap bytes with the
 * NUL).  Returns the folder's length, or -1 when it does not fit. */
int scope_host_dir_encode(const char *host, size_t len, char *out, size_t cap);

/* Writes the host that folder names into out (cap bytes with the NUL; a
 * host holding a NUL byte is not one).  Returns its length, or -1 when
 * folder is not what scope_host_dir_encode writes for any host, or the host
 * does not fit. */
int scope_host_dir_decode(const char *folder, char *out, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
