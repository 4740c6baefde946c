/*
 * Data source: the STRING records of interned names.
 */
#ifndef SCOPE_REC_SOURCE_NAMES_H
#define SCOPE_REC_SOURCE_NAMES_H

#include "source.h"

extern const rec_source rec_source_names;

#endif
