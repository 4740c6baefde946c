/*
 * A run whose role, phase and counter names are HTML and script: were any
 * of them written into report --html or compare --html raw, a browser would
 * run it, and it would set the page's title to PWNED or log PWNED to the
 * console (test_html.sh watches both).  The bidi override and the escape
 * byte must come out as visible escapes.
 */
#include <scope/scope.h>

#include <stdio.h>

static double spin(int n);

static const char *const names[] = {
    "<script>document.title='PWNED';console.log('PWNED')</script>",
    "</script><script>console.log('PWNED')</script>",
    "\"><img src=x onerror=\"document.title='PWNED'\">",
    "'><svg onload='console.log(\"PWNED\")'>",
    "a&amp;b &lt;i&gt;",
    "bidi\u202eevil",
    "esc\x1b[31mred",
};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: html_names RUN\n");
        return 2;
    }
    if (scope_init(argv[1], "<b onmouseover=\"document.title='PWNED'\">role</b>\u202e") != 0)
        return 1;
    /* About a tenth of a second of CPU in spin(), so that with SCOPE_LINES=1
     * its line is sampled and its file's name reaches the hot lines. */
    SCOPE_PHASE("<i>spin</i>") {
        spin(30000000);
    }
    for (int rep = 0; rep < 3; rep++)
        SCOPE_PHASE("iteration") {
            for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
                scope_phase_begin(names[i]);
                scope_count(names[i], (int64_t)i + 1);
                spin(20000 * (int)(i + 1));
                scope_phase_end();
            }
        }
    scope_shutdown();
    return 0;
}

/* Last in the file: #line renames the file for every line after it. */
#line 1 "<script>console.log('PWNED')</script>\"'.c"
static double spin(int n) {
    volatile double x = 0;
    for (int k = 0; k < n; k++)
        x += k;
    return x;
}
