/* Exec'd by rt_forker: never calls scope_init.  The environment its
 * recording parent exported (SCOPE_PROFILE, SCOPE_RUN_DIR, SCOPE_RUN_ID)
 * starts the recorder on first use, in the parent's run, with the program's
 * name as its role. */
#include <scope/scope.h>

int main(void) {
    SCOPE_PHASE("joined") {
        SCOPE_COUNT("joined_work", 1);
    }
    return 0;
}
