/*
 * Which Debian package installed a file: the advice a module without debug
 * info gets ("Debian's liblzma5-dbgsym package installs its debug file").
 *
 * dpkg keeps no index by path, only one list of files per package
 * (DPKG_INFO_DIR/PACKAGE[:ARCH].list), so the owners of every module asked
 * about are found in one pass over those lists.  A path matches as the
 * loader gave it, as its symbolic links resolve, and with or without its
 * leading /usr (Debian's merged /usr lists some files under /lib, which the
 * loader reaches as /usr/lib, or the other way round).  The pass is bounded
 * (DPKG_MAX_LISTS files, DPKG_MAX_BYTES in all) and made only for paths
 * under the folders packages install to (/usr, /lib*, /bin, /sbin, /opt);
 * a system without dpkg simply names no package.
 */
#ifndef SCOPE_LINES_PACKAGE_H
#define SCOPE_LINES_PACKAGE_H

#include <stddef.h>

#define DPKG_INFO_DIR    "/var/lib/dpkg/info"
#define DPKG_MAX_LISTS   20000
#define DPKG_MAX_BYTES   (256u << 20)
#define PACKAGE_NAME_MAX 128

/* For each of the n absolute paths, the package that installed it, less
 * its ":ARCH", into owners[i]; "" when no package lists it. */
void lines_package_owners(const char *const *paths, size_t n, char (*owners)[PACKAGE_NAME_MAX]);

#endif
