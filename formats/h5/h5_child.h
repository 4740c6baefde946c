/*
 * The start of a child forked to let libhdf5 parse a file that may crash or
 * hang it (sp_child.h says why the library cannot be trusted with a damaged
 * file).  The parent says in one line what became of the child; the child
 * must only end, by the kernel's default action, and print nothing.
 */
#ifndef SCOPE_H5_CHILD_H
#define SCOPE_H5_CHILD_H

/* Called first in the child, after fork().  The fatal signals (SIGSEGV,
 * SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTRAP, SIGSYS), SIGALRM and SIGPIPE
 * get their default actions and are unblocked: a handler the host program
 * installed (Python's faulthandler printing "Fatal Python error" for a
 * crash the parent reports as a damaged file, a SIGALRM handler that would
 * keep a hung child's alarm from ending it) never runs in the child, and a
 * mask inherited from the forking thread cannot hold them back.  Standard
 * error goes to /dev/null, so whatever the library prints stays out of the
 * caller's terminal. */
void scope_h5_child_start(void);

#endif
