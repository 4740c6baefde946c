/* The column layout the text report and the browser's tables share. */
#include "layout.h"

#include <check.h>
#include <string.h>

/* A table like the phase tree's: two columns never dropped, four dropped
 * in an order that is not their order on screen. */
enum { C_SHARE, C_TOTAL, C_SELF, C_WAIT, C_P99, C_COUNT, NC };
static const layout_column table[NC] = {
    [C_SHARE] = {"share", 7, 0, 1, 0}, [C_TOTAL] = {"total", 8, 0, 1, 0},
    [C_SELF] = {"self", 8, 1, 1, 0},   [C_WAIT] = {"wait", 5, 4, 1, 0},
    [C_P99] = {"p99", 8, 2, 1, 0},     [C_COUNT] = {"count", 11, 3, 1, 0},
};

/* Display columns the shown columns and their gaps take. */
static int used(const layout *L, int gap) {
    int sum = 0;
    for (size_t c = 0; c < L->ncolumns; c++)
        sum += L->shown[c] ? gap + L->width[c] : 0;
    return sum;
}

START_TEST(everything_fits_when_wide) {
    layout L = layout_fit(table, NC, 200, 1, 20);
    for (int c = 0; c < NC; c++)
        ck_assert_int_eq(L.shown[c], 1);
    ck_assert_int_eq(L.name_width, 200 - (7 + 8 + 8 + 5 + 8 + 11) - NC);
    /* Left to right after the name, each after its gap, the last ending at
     * the edge. */
    ck_assert_int_eq(L.x[C_SHARE], L.name_width + 1);
    for (int c = 1; c < NC; c++)
        ck_assert_int_eq(L.x[c], L.x[c - 1] + L.width[c - 1] + 1);
    ck_assert_int_eq(L.x[C_COUNT] + L.width[C_COUNT], 200);
}
END_TEST

START_TEST(columns_go_in_drop_order_as_width_shrinks) {
    /* The order in which columns disappear, narrowing one column at a time. */
    int gone_at[NC], order[NC], ngone = 0;
    for (int c = 0; c < NC; c++)
        gone_at[c] = -1;
    for (int width = 120; width >= 0; width--) {
        layout L = layout_fit(table, NC, width, 1, 20);
        for (int c = 0; c < NC; c++) {
            if (!L.shown[c] && gone_at[c] < 0) {
                gone_at[c] = width;
                order[ngone++] = c;
            }
            /* Once given up, never back at a smaller width. */
            if (gone_at[c] >= 0)
                ck_assert_int_eq(L.shown[c], 0);
        }
        /* A column goes only when the name would lack room: the widest
         * column given up leaves the name 19 + 1 + 11 at the most. */
        if (L.name_width > 19 + 1 + 11) {
            for (int c = 0; c < NC; c++)
                ck_assert_int_eq(L.shown[c], 1);
        }
        ck_assert(L.shown[C_SHARE] && L.shown[C_TOTAL]); /* never given up */
    }
    ck_assert_int_eq(ngone, 4);
    ck_assert_int_eq(order[0], C_SELF);
    ck_assert_int_eq(order[1], C_P99);
    ck_assert_int_eq(order[2], C_COUNT);
    ck_assert_int_eq(order[3], C_WAIT);
    /* Exactly where: self goes once the six columns leave the name 19. */
    ck_assert_int_eq(gone_at[C_SELF], 20 + 7 + 8 + 8 + 5 + 8 + 11 + NC - 1);
}
END_TEST

START_TEST(never_wider_than_the_width) {
    for (int gap = 0; gap <= 2; gap++)
        for (int width = 0; width <= 160; width++) {
            layout L = layout_fit(table, NC, width, gap, 22);
            int fixed = 2 * gap + 7 + 8; /* share and total, never dropped */
            ck_assert_int_eq(L.name_width + used(&L, gap), width);
            if (width >= fixed) {
                ck_assert_int_ge(L.name_width, 0);
                ck_assert_int_le(used(&L, gap), width);
            }
            for (int c = 0; c < NC; c++)
                if (L.shown[c]) {
                    ck_assert_int_ge(L.x[c], L.name_width + gap);
                    ck_assert_int_le(L.x[c] + L.width[c], width);
                } else {
                    ck_assert_int_eq(L.x[c], -1);
                }
        }
}
END_TEST

START_TEST(same_input_same_layout) {
    for (int width = 0; width <= 160; width += 7) {
        layout a = layout_fit(table, NC, width, 1, 23);
        layout b = layout_fit(table, NC, width, 1, 23);
        ck_assert_mem_eq(&a, &b, sizeof a);
    }
}
END_TEST

START_TEST(columns_off_take_no_room) {
    layout_column t[NC];
    memcpy(t, table, sizeof t);
    t[C_COUNT].off = 1;
    layout L = layout_fit(t, NC, 200, 0, 22);
    ck_assert_int_eq(L.shown[C_COUNT], 0);
    ck_assert_int_eq(L.x[C_COUNT], -1);
    ck_assert_int_eq(L.name_width, 200 - (7 + 8 + 8 + 5 + 8));
    /* Equal ranks go leftmost first. */
    t[C_WAIT].drop = t[C_SELF].drop;
    L = layout_fit(t, NC, 7 + 8 + 8 + 5 + 8 + 22 - 1, 0, 22);
    ck_assert_int_eq(L.shown[C_SELF], 0);
    ck_assert_int_eq(L.shown[C_WAIT], 1);
}
END_TEST

START_TEST(too_narrow_for_the_fixed_columns) {
    layout L = layout_fit(table, NC, 10, 1, 22);
    ck_assert(L.shown[C_SHARE] && L.shown[C_TOTAL]);
    for (int c = C_SELF; c < NC; c++)
        ck_assert_int_eq(L.shown[c], 0);
    ck_assert_int_eq(L.name_width, 10 - (1 + 7 + 1 + 8));
}
END_TEST

int main(void) {
    Suite *s = suite_create("layout");
    TCase *tc = tcase_create("fit");
    tcase_add_test(tc, everything_fits_when_wide);
    tcase_add_test(tc, columns_go_in_drop_order_as_width_shrinks);
    tcase_add_test(tc, never_wider_than_the_width);
    tcase_add_test(tc, same_input_same_layout);
    tcase_add_test(tc, columns_off_take_no_room);
    tcase_add_test(tc, too_narrow_for_the_fixed_columns);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
