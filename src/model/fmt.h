/*
 * Numbers and names as every text renderer prints them (report, compare,
 * check and the browser), so a figure reads the same everywhere.
 *
 * Each function writes into a caller buffer and returns it.  A figure that
 * was not measured (NAN) prints as "n/a", never as 0.
 */
#ifndef SCOPE_FMT_H
#define SCOPE_FMT_H

#include "run_model.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FMT_NA "n/a"

/* Durations with three significant figures at most and units that fit the
 * size: "812ns", "156.8us", "9.4ms", "12.1s", "27m 3s", "2h 31m", "3d 4h". */
const char *fmt_duration(char *buf, size_t cap, double ns);

/* Integers with thousands separators: "4,800", "-12". */
const char *fmt_count(char *buf, size_t cap, int64_t n);
const char *fmt_ucount(char *buf, size_t cap, uint64_t n);

/* The ending a count's noun takes: "" for one, else "s" ("1 sample",
 * "0 samples", "1,230 samples"), so that no output says "1 samples". */
const char *fmt_plural(uint64_t n);

/* A fraction as a percentage with `decimals` decimals: 0.829 -> "82.9%". */
const char *fmt_percent(char *buf, size_t cap, double frac, int decimals);

/* A signed change as a percentage: "+12.3%", "-4.0%", "0.0%". */
const char *fmt_change(char *buf, size_t cap, double frac);

/* A rate per second: "6,377.0/s", "1.2M/s". */
const char *fmt_rate(char *buf, size_t cap, double per_s);

/* Bytes: "0 B", "512 B", "40.0 MB", "1.1 GB" (decimal units, as disks count). */
const char *fmt_bytes(char *buf, size_t cap, double bytes);

/* A series as a sparkline of n characters, eight levels from the lowest
 * block up to `max` (the series' own largest when max <= 0 or NAN): a
 * measured 0 is a space, a column with nothing measured (NAN) a middle dot
 * ("." in ASCII), anything above 0 at least the lowest block.  buf needs 3
 * bytes a column and 1 more. */
const char *fmt_spark(char *buf, size_t cap, const double *v, size_t n, double max, int utf8);

/* A ratio such as imbalance: "1.22". */
const char *fmt_ratio(char *buf, size_t cap, double r);

/* Wall-clock time in UTC: "2026-11-30 17:22:31"; n/a for 0, a time not known. */
const char *fmt_wall(char *buf, size_t cap, uint64_t wall_ns);

/* A name from a log, escaped (text_escape.h). */
const char *fmt_name(char *buf, size_t cap, run_str name);

/* A role's name as a block title: escaped, ASCII letters in upper case
 * (escapes keep their case, so they still read as what they are). */
const char *fmt_title(char *buf, size_t cap, run_str name);

/* Display columns of UTF-8 text (escaped names are valid UTF-8): wide
 * characters count 2, combining marks 0. */
size_t fmt_width(const char *s);

/* Cuts s (a buffer of cap bytes) in place so it takes at most `cols`
 * columns, ending it with an ellipsis when anything was cut ("…" when utf8,
 * else "..."). */
void fmt_fit(char *s, size_t cap, size_t cols, int utf8);

/* As fmt_fit, but cuts from the left, so the end stays: a phase path keeps
 * its innermost names ("…/self_play/mcts"), where paths that share a first
 * part differ. */
void fmt_fit_left(char *s, size_t cap, size_t cols, int utf8);

/* A function's name (demangled) escaped (text_escape.h, escape_flags) in at
 * most `cols` columns: a name too wide loses its parameters first
 * ("ns::Grid<int>::at(…) const"), then its middle, so that its start
 * (namespace, class) and its end (its own name, from a "::" when one is
 * near) stay: "geo::Grid<in…::operator()(…) const" ("..." unless utf8). */
const char *fmt_function(char *buf, size_t cap, run_str name, size_t cols, unsigned escape_flags,
                         int utf8);

/* Writes s, then spaces up to `cols` columns (left-aligned), or spaces
 * first (right-aligned). */
void fmt_put_left(FILE *f, const char *s, size_t cols);
void fmt_put_right(FILE *f, const char *s, size_t cols);

#endif
