/*
 * A counter whose sum passes the 64-bit range holds at the limit it passed,
 * and the report says so: a real process (progs/an_counters.c) counting
 * past INT64_MAX and below INT64_MIN, recorded by the real recorder, loaded
 * by run_load and printed by report --json's code.
 */
#define _GNU_SOURCE
#include "an_util.h"
#include "rt_util.h"
#include "run_model.h"

#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

/* The JSON counter `name` of the phase "fill". */
static const cJSON *json_counter(const cJSON *doc, const char *name) {
    const cJSON *roles = cJSON_GetObjectItemCaseSensitive(doc, "roles");
    const cJSON *role, *phase, *k;
    cJSON_ArrayForEach(role, roles) {
        cJSON_ArrayForEach(phase, cJSON_GetObjectItemCaseSensitive(role, "phases")) {
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(phase, "name");
            if (!cJSON_IsString(nm) || strcmp(nm->valuestring, "fill"))
                continue;
            cJSON_ArrayForEach(k, cJSON_GetObjectItemCaseSensitive(phase, "counters")) {
                const cJSON *kn = cJSON_GetObjectItemCaseSensitive(k, "name");
                if (cJSON_IsString(kn) && !strcmp(kn->valuestring, name))
                    return k;
            }
        }
    }
    ck_abort_msg("no counter %s under fill in the JSON", name);
    return NULL;
}

START_TEST(counters_saturate) {
    char run[4200];
    rt_mkdir(run, sizeof run, "saturate");
    char *argv[] = {(char *)rt_prog("an_counters"), run, NULL};
    rt_opts o = {0};
    rt_proc p;
    rt_run(&p, argv, &o, 60);
    ck_assert_msg(WIFEXITED(p.status) && WEXITSTATUS(p.status) == 0, "an_counters: %s",
                  rt_status(p.status));
    run_model *m = NULL;
    char msg[512];
    ck_assert_msg(run_load(run, NULL, &m, msg, sizeof msg) == RUN_OK, "run_load: %s", msg);
    for (size_t i = 0; i < m->ncaveats; i++)
        fprintf(stderr, "caveat %s: %s\n", run_caveat_kind_name(m->caveats[i].kind),
                m->caveats[i].text);

    const run_phase *fill = an_phase(m, "counter", "fill");
    const run_counter *bytes = an_counter(fill, "bytes");
    const run_counter *debt = an_counter(fill, "debt");
    const run_counter *items = an_counter(fill, "items");
    ck_assert_int_eq(bytes->calls, 3);
    ck_assert_msg(bytes->total == INT64_MAX, "bytes %lld, not INT64_MAX", (long long)bytes->total);
    ck_assert_int_eq(debt->calls, 2);
    ck_assert_msg(debt->total == INT64_MIN, "debt %lld, not INT64_MIN", (long long)debt->total);
    ck_assert_int_eq(items->total, 7);
    ck_assert_msg(bytes->rate_per_s > 0, "bytes rate %g", bytes->rate_per_s);
    ck_assert_msg(debt->rate_per_s < 0, "debt rate %g", debt->rate_per_s);
    ck_assert_uint_eq(an_caveats_with(m, "counter \"bytes\" passed the 64-bit range: its total "
                                         "holds at 9223372036854775807"),
                      1);
    ck_assert_uint_eq(an_caveats_with(m, "counter \"debt\" passed the 64-bit range: its total "
                                         "holds at -9223372036854775808"),
                      1);
    ck_assert_uint_eq(an_caveats_with(m, "\"items\""), 0);

    size_t len = 0;
    char *text = an_report_json(m, &len);
    /* Exactly, as written (cJSON's doubles cannot tell 2^63-1 from 2^63). */
    ck_assert_msg(strstr(text, "\t9223372036854775807") && strstr(text, "\t-9223372036854775808"),
                  "report --json lacks the saturated totals: %.600s", text);
    cJSON *doc = cJSON_ParseWithLength(text, len);
    ck_assert_msg(doc, "report --json does not parse: %.300s", text);
    ck_assert_double_gt(
        cJSON_GetObjectItemCaseSensitive(json_counter(doc, "bytes"), "total")->valuedouble, 9.2e18);
    ck_assert_double_lt(
        cJSON_GetObjectItemCaseSensitive(json_counter(doc, "debt"), "total")->valuedouble, -9.2e18);
    size_t said = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(doc, "caveats")) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(c, "text");
        said += cJSON_IsString(t) && strstr(t->valuestring, "saturated, not wrapped");
    }
    ck_assert_uint_eq(said, 2);
    cJSON_Delete(doc);
    free(text);
    run_free(m);
}
END_TEST

int main(int argc, char **argv) {
    rt_args(argc, argv);
    Suite *s = suite_create("counter_limits");
    TCase *tc = tcase_create("counter_limits");
    rt_fixture(tc);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, counters_saturate);
    suite_add_tcase(s, tc);
    return rt_run_suite(s);
}
