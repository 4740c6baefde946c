/*
 * Finding a module's separate debug file for libdwfl, opening regular files
 * only (open_regular.h).
 *
 * elfutils' own finder (dwfl_standard_find_debuginfo) opens each candidate
 * with a blocking open(): a .gnu_debuglink naming a named pipe beside the
 * module hangs the reader.  This one looks where that one and perf look, in
 * the same order:
 *
 *   - by GNU build-id: DEBUG_ROOT/.build-id/xx/yyyy.debug;
 *   - by the module's .gnu_debuglink name (else the module's name plus
 *     ".debug"): beside the module, in its .debug/ folder, and under
 *     DEBUG_ROOT followed by the module's folder (then that folder less its
 *     leading components, one at a time); again from the module's real path
 *     when its path goes through a symbolic link;
 *   - a dwz file (.gnu_debugaltlink): its build-id path, its name (absolute,
 *     or relative to the module's folder), DEBUG_ROOT/.dwz/NAME;
 *
 * and takes the first that is a regular file of the right build-id (else,
 * for a module without one, of the debuglink's CRC).  Every candidate that
 * is there but is not a regular file, is too large or cannot be opened is
 * written down for the module's caveat.  libdwfl is never handed a name to
 * open by itself.
 */
#ifndef SCOPE_LINES_DEBUGFILE_H
#define SCOPE_LINES_DEBUGFILE_H

#include <elfutils/libdwfl.h>
#include <stddef.h>

#define DEBUG_ROOT "/usr/lib/debug"

/* The candidates refused while looking for one module's debug files,
 * escaped, "PATH (why); PATH (why)": libdwfl's user data for the module. */
typedef struct debugfile_notes {
    char text[1024];
    unsigned refused;
    int searching; /* a search for this module is under way (never nested) */
} debugfile_notes;

/* libdwfl's find_debuginfo callback (above).  *userdata, when set, is the
 * module's debugfile_notes. */
int lines_find_debugfile(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                         const char *file_name, const char *debuglink_file, GElf_Word debuglink_crc,
                         char **debuginfo_file_name);

/* libdwfl's find_elf callback: every module is reported with its
 * descriptor, so this finds nothing and opens nothing. */
int lines_find_no_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
                      char **file_name, Elf **elfp);

/* Files over this many bytes are not read as debug files. */
#define DEBUGFILE_MAX_BYTES (4ull << 30)

#endif
