/*
 * A module's symbol table, indexed once, answering what libdwfl's
 * dwfl_module_addrinfo answers without reading the table every time.
 *
 * libdwfl finds the symbol that covers an address by going through the
 * whole table at each call: 29,000 symbols for gcc's cc1, over a
 * millisecond per address, and a make -j2 run samples thousands of
 * distinct return addresses there (93% of `lines`' time went there).
 * This index sorts the symbols libdwfl weighs by address once and follows
 * libdwfl's own rules (elfutils' dwfl_module_addrsym.c) with binary
 * searches:
 *
 *   - among the sized symbols covering the address: the closest start,
 *     then the stronger binding, then the smaller of two equal starts,
 *     then the first met, global symbols met before local ones (the local
 *     ones only when no global one covers it and no global label lies
 *     exactly there);
 *   - when none covers it: the sizeless symbol (an assembly label) at the
 *     highest start at or below it, when no symbol's range reaches past
 *     that label and both lie in one section, the last of them met; else
 *     nothing.
 *
 * Where only libdwfl can say (a global label exactly at the address, an
 * absolute label, an address in no section or in overlapping ones, a table
 * whose values an architecture resolves or whose ends wrap), libdwfl is
 * asked, once per span between two symbol or section boundaries, within
 * which its answer cannot change.  tests/lines/test_lines_symindex.c holds
 * the two to the same answers.
 */
#ifndef SCOPE_LINES_SYMINDEX_H
#define SCOPE_LINES_SYMINDEX_H

#include <elfutils/libdwfl.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sym_index sym_index;

/* What dwfl_module_addrinfo(mod, addr, off, sym, NULL, NULL, NULL) returns:
 * the same name, symbol and offset.  *ix starts NULL and is built on first
 * use; the counters say how often libdwfl itself was asked. */
const char *sym_index_addrinfo(sym_index **ix, Dwfl_Module *mod, uint64_t addr, GElf_Off *off,
                               GElf_Sym *sym);

/* Times libdwfl searched the whole table for this module. */
uint64_t sym_index_searches(const sym_index *ix);

void sym_index_free(sym_index *ix);

#endif
