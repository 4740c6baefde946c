/* The list/tree widget under every view: preorder rows, expansion, the
 * cursor kept on its row (or the nearest visible ancestor), scrolling and
 * search over hidden rows. */
#include "list.h"

#include <check.h>
#include <stdlib.h>

/* a
 *   a1
 *     a1x
 *   a2
 * b
 *   b1
 * c          */
static const unsigned depths[] = {0, 1, 2, 1, 0, 1, 0};
enum { A, A1, A1X, A2, B, B1, C, NROWS };

static void build(list *l) {
    list_clear(l);
    for (size_t i = 0; i < NROWS; i++)
        ck_assert_uint_eq(list_add(l, depths[i], 0, NULL, i), i);
    ck_assert_int_eq(list_done(l), 0);
}

static size_t selected_index(const list *l) {
    size_t row = list_selected(l);
    return row == LIST_NONE ? LIST_NONE : l->rows[row].index;
}

START_TEST(tree_links_and_visibility) {
    list l = {0};
    build(&l);
    ck_assert_uint_eq(l.rows[A1X].parent, A1);
    ck_assert_uint_eq(l.rows[A2].parent, A);
    ck_assert_uint_eq(l.rows[B].parent, LIST_NONE);
    ck_assert_uint_eq(l.rows[A].end, B);
    ck_assert_uint_eq(l.rows[A1].end, A2);
    ck_assert_uint_eq(l.rows[C].end, NROWS);
    ck_assert(list_has_children(&l, A) && !list_has_children(&l, A2));
    /* Nothing expanded: the top level only. */
    ck_assert_uint_eq(l.nvisible, 3);
    ck_assert_uint_eq(l.visible[1], B);
    ck_assert_int_eq(list_expand_all(&l, 1), 0);
    ck_assert_uint_eq(l.nvisible, NROWS);
    list_free(&l);
}
END_TEST

START_TEST(cursor_survives_collapse) {
    list l = {0};
    build(&l);
    list_expand_all(&l, 1);
    list_move(&l, 2);
    ck_assert_uint_eq(selected_index(&l), A1X);
    l.rows[A].expanded = 0; /* its grandparent collapses: the cursor goes up to it */
    list_refresh(&l);
    ck_assert_uint_eq(selected_index(&l), A);
    ck_assert_uint_eq(l.nvisible, 4);
    /* Revealing opens every ancestor. */
    list_reveal(&l, A1X);
    ck_assert_uint_eq(selected_index(&l), A1X);
    ck_assert(l.rows[A].expanded && l.rows[A1].expanded);
    list_free(&l);
}
END_TEST

START_TEST(moves_are_clamped_and_pages_scroll) {
    list l = {0};
    build(&l);
    list_expand_all(&l, 1);
    list_move(&l, -5);
    ck_assert_uint_eq(l.cursor, 0);
    list_move(&l, 100);
    ck_assert_uint_eq(l.cursor, NROWS - 1);
    list_home(&l);
    list_scroll_to_cursor(&l, 3);
    list_page(&l, 1);
    ck_assert_uint_eq(l.cursor, 2);
    ck_assert_uint_eq(l.top, 2);
    list_end(&l);
    list_scroll_to_cursor(&l, 3);
    ck_assert_uint_eq(l.top, NROWS - 3); /* no blank rows below the last */
    list_scroll_to_cursor(&l, 20);
    ck_assert_uint_eq(l.top, 0); /* everything fits: no scrolling */
    list_free(&l);
}
END_TEST

static int index_is(const list_row *r, void *ctx) {
    return r->index == *(size_t *)ctx || r->index == C;
}

START_TEST(find_wraps_and_sees_hidden_rows) {
    list l = {0};
    build(&l);
    size_t want = A1X;
    /* From the top: A1X, hidden under two collapsed rows, is found first. */
    ck_assert_uint_eq(list_find(&l, LIST_NONE, 1, index_is, &want), A1X);
    ck_assert_uint_eq(list_find(&l, A1X, 1, index_is, &want), C);
    ck_assert_uint_eq(list_find(&l, C, 1, index_is, &want), A1X); /* wraps */
    ck_assert_uint_eq(list_find(&l, A1X, -1, index_is, &want), C);
    want = 99; /* no such row: only C matches */
    ck_assert_uint_eq(list_find(&l, A, 1, index_is, &want), C);
    list_free(&l);
    list empty = {0};
    ck_assert_uint_eq(list_find(&empty, LIST_NONE, 1, index_is, &want), LIST_NONE);
    ck_assert_uint_eq(list_selected(&empty), LIST_NONE);
}
END_TEST

START_TEST(rebuild_reuses_the_list) {
    list l = {0};
    for (int round = 0; round < 3; round++) {
        build(&l);
        ck_assert_uint_eq(l.nrows, NROWS);
        ck_assert_uint_eq(l.cursor, 0);
    }
    /* Many rows: the arrays grow. */
    list_clear(&l);
    for (size_t i = 0; i < 10000; i++)
        ck_assert_uint_ne(list_add(&l, (unsigned)(i % 3), 0, NULL, i), LIST_NONE);
    ck_assert_int_eq(list_done(&l), 0);
    ck_assert_uint_eq(l.nvisible, 3334);
    list_free(&l);
}
END_TEST

static int is_row(const list_row *r, void *ctx) {
    return r->index == *(const size_t *)ctx;
}

/* A filter shows the matches, their ancestors (opened) and what is below
 * them (opened or not, as it was), nothing else; the cursor stays on a row
 * still shown; clearing shows all again. */
START_TEST(filter_keeps_matches_and_their_ancestors) {
    list l = {0};
    build(&l); /* everything collapsed: a, b, c */
    size_t want = A1X;
    list_move(&l, 1); /* on b */
    ck_assert_int_eq(list_filter(&l, is_row, &want), 1);
    ck_assert_uint_eq(l.nvisible, 3); /* a, a1, a1x: opened to show the match */
    ck_assert_uint_eq(l.visible[0], A);
    ck_assert_uint_eq(l.visible[1], A1);
    ck_assert_uint_eq(l.visible[2], A1X);
    ck_assert_uint_eq(selected_index(&l), A); /* b went: the first row */
    want = A1;                                /* its child stays, to drill into */
    ck_assert_int_eq(list_filter(&l, is_row, &want), 1);
    ck_assert_uint_eq(l.nvisible, 3); /* a, a1, a1x; not a2 */
    l.rows[A1].expanded = 0;
    list_refresh(&l);
    ck_assert_uint_eq(l.nvisible, 2); /* a, a1: a1x is there when a1 opens */
    l.rows[A1].expanded = 1;
    list_refresh(&l);
    list_move(&l, 2);
    list_unfilter(&l);
    ck_assert_uint_eq(l.nvisible, 6); /* a, a1, a1x, a2, b, c */
    ck_assert_uint_eq(selected_index(&l), A1X);
    want = NROWS; /* no row */
    ck_assert_int_eq(list_filter(&l, is_row, &want), 0);
    ck_assert_uint_eq(l.nvisible, 0);
    ck_assert_uint_eq(list_selected(&l), LIST_NONE);
    build(&l); /* a rebuild drops the filter with the rows it was of */
    ck_assert_ptr_null(l.keep);
    ck_assert_uint_eq(l.nvisible, 3);
    list_free(&l);
}
END_TEST

int main(void) {
    Suite *s = suite_create("list");
    TCase *tc = tcase_create("list");
    tcase_add_test(tc, tree_links_and_visibility);
    tcase_add_test(tc, cursor_survives_collapse);
    tcase_add_test(tc, moves_are_clamped_and_pages_scroll);
    tcase_add_test(tc, find_wraps_and_sees_hidden_rows);
    tcase_add_test(tc, rebuild_reuses_the_list);
    tcase_add_test(tc, filter_keeps_matches_and_their_ancestors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
