/*
 * sp_lineprof: the line_profile groups of one rank of a scope-profiler file
 * (/rankN/line_profile/I/, sp_file.h), read and checked: every group must
 * have string attributes filename and function, a positive finite unit,
 * optional region (a string) and first_lineno (an integer), and integer
 * datasets line_numbers, hits and times of one length, with line numbers
 * from 1 to UINT32_MAX and no negative hits or times.
 */
#ifndef SCOPE_SP_LINEPROF_H
#define SCOPE_SP_LINEPROF_H

#include "sp_file.h"

#include <hdf5.h>

/* Most lines one function may claim, and most functions one rank may: more
 * is no Python program's (a damaged file may claim anything). */
#define SP_MAX_PROFILE_LINES 10000000u
#define SP_MAX_PROFILES      1000000u

/* Reads file's /rankN/line_profile groups of r->rank into r->profiles (none
 * when the group is absent).  0, or -1 with msg. */
int sp_read_line_profiles(hid_t file, uint64_t file_size, sp_rank *r, char *msg, size_t len);

/* Frees one profile's strings and arrays. */
void sp_line_profile_free(sp_line_profile *p);

#endif
