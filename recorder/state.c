/*
 * The recording state and scope_hot_, the flag the public inline functions
 * test before they call into the library.
 */
#include "state.h"

#include <scope/scope.h>

#include <stdatomic.h>

volatile int scope_hot_ = 1; /* the environment has not been read yet */

static _Atomic int state = REC_UNKNOWN;

int rec_state_get(void) {
    return atomic_load_explicit(&state, memory_order_acquire);
}

void rec_state_set(int st) {
    atomic_store_explicit(&state, st, memory_order_release);
    scope_hot_ = st == REC_ON || st == REC_UNKNOWN || st == REC_CHILD;
}
