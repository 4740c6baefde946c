/* A function whose name and source file name hold what a terminal would
 * obey (a right-to-left override, a screen-clearing escape): the browser
 * must draw both escaped. */
#include "../sites.h"

void run_hostile(void);

#line 1 "/scope-fixture/app/ev\033[2Jil\x9b.c"
static void \u202egnirts_live(void) {
    sites.hostile_body = &&body;
body:
    sites.sink += 1;
}

void run_hostile(void) {
    \u202egnirts_live();
}
