/* Names and paths as the hot lines show them: linkage names demangled
 * (demangle.h), source paths normalised (path_normalize.h), and a long
 * function name fitted to its column (fmt_function). */
#include "demangle.h"
#include "fmt.h"
#include "path_normalize.h"
#include "unit_util.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

/* demangle_dup's answer, "(null)" for none; kept until the next call. */
static const char *dm(const char *name) {
    static char *last;
    free(last);
    last = demangle_dup(name);
    return last ? last : "(null)";
}

START_TEST(cxx_names_read_as_written) {
    /* The forms of test_lines_cxx's program, as c++filt prints them. */
    ck_assert_str_eq(dm("_ZNK3geo4GridIiEclEi"), "geo::Grid<int>::operator()(int) const");
    ck_assert_str_eq(dm("_ZZ4mainENKUliE_clEi"), "main::{lambda(int)#1}::operator()(int) const");
    ck_assert_str_eq(dm("_ZN12_GLOBAL__N_18scrambleEi"), "(anonymous namespace)::scramble(int)");
    ck_assert_str_eq(dm("_ZplRK1VS1_"), "operator+(V const&, V const&)");
    ck_assert_str_eq(dm("_Z12bitmap_bit_pPK11bitmap_headi"),
                     "bitmap_bit_p(bitmap_head const*, int)");
    /* A compiler's clone, and a symbol version as a .symtab spells it. */
    ck_assert_str_eq(dm("_ZN2ns3fooEi.constprop.0"), "ns::foo(int) [clone .constprop.0]");
    ck_assert_str_eq(dm("_ZN2ns3fooEi@@LIBNS_1.2"), "ns::foo(int)@@LIBNS_1.2");
    /* Rust's v0 and legacy manglings, without the hash, as rustfilt. */
    ck_assert_str_eq(dm("_RNvCs15kBYyAo9fc_7mycrate7example"), "mycrate::example");
    ck_assert_str_eq(dm("_ZN4core3fmt5write17h3d5b5e7a2d1c9f80E"), "core::fmt::write");
    /* The standard abbreviations as addr2line -C and gdb spell them (c++filt
     * spells out std::basic_ostream<char, std::char_traits<char> >). */
    ck_assert_str_eq(dm("_ZlsRSoRK1V"), "operator<<(std::ostream&, V const&)");
}
END_TEST

START_TEST(what_is_not_mangled_has_no_demangled_form) {
    ck_assert_str_eq(dm("main"), "(null)");
    ck_assert_str_eq(dm("bitmap_bit_p"), "(null)");
    ck_assert_str_eq(dm(""), "(null)");
    ck_assert_str_eq(dm(NULL), "(null)");
    ck_assert_str_eq(dm("_Z"), "(null)");
    ck_assert_str_eq(dm("_Zxyz\x1b[31m"), "(null)");
    ck_assert_str_eq(dm("@@V"), "(null)");
}
END_TEST

/* Names from someone else's file: deep nesting and long garbage end, with
 * or without an answer. */
START_TEST(hostile_names_end) {
    size_t n = 200000;
    char *deep = malloc(n + 8);
    ck_assert_ptr_nonnull(deep);
    strcpy(deep, "_Z1f");
    for (size_t i = 4; i + 2 < n; i += 2)
        memcpy(deep + i, "PP", 2);
    strcpy(deep + n - 2, "i");
    free(demangle_dup(deep)); /* the recursion limit: an answer or none, never a crash */
    memset(deep, 'I', n);
    memcpy(deep, "_ZN1a", 5);
    deep[n] = '\0';
    ck_assert_ptr_null(demangle_dup(deep));
    free(deep);
}
END_TEST

START_TEST(the_cache_answers_as_the_demangler) {
    demangle_cache *c = demangle_cache_new();
    ck_assert_ptr_nonnull(c);
    char name[64];
    /* Enough names to grow the table a few times. */
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 2000; i++) {
            char id[16];
            snprintf(id, sizeof id, "f%d", i);
            snprintf(name, sizeof name, "_ZN2ns%zu%sEv", strlen(id), id);
            const char *a = demangle_cached(c, name);
            char want[64];
            snprintf(want, sizeof want, "ns::f%d()", i);
            ck_assert_ptr_nonnull(a);
            ck_assert_str_eq(a, want);
            ck_assert_ptr_eq(a, demangle_cached(c, name)); /* kept, not redone */
        }
    ck_assert_ptr_null(demangle_cached(c, "main"));
    ck_assert_ptr_null(demangle_cached(c, NULL));
    demangle_cache_free(c);
}
END_TEST

static const char *norm(const char *p) {
    static char out[256];
    size_t n = path_normalize(p, strlen(p), out);
    ck_assert_uint_eq(n, strlen(out));
    return out;
}

START_TEST(paths_are_normalised_lexically) {
    ck_assert_str_eq(norm("/home/u/lz4/programs/../lib/lz4hc.c"), "/home/u/lz4/lib/lz4hc.c");
    ck_assert_str_eq(norm("programs/../lib/lz4hc.c"), "lib/lz4hc.c");
    ck_assert_str_eq(norm("./math/../sysdeps/ieee754/flt-32/s_expm1f.c"),
                     "sysdeps/ieee754/flt-32/s_expm1f.c");
    ck_assert_str_eq(norm("/a//b/./c/"), "/a/b/c");
    ck_assert_str_eq(norm("/a/b/c/../../d"), "/a/d");
    ck_assert_str_eq(norm("/../a"), "/a");
    ck_assert_str_eq(norm("/.."), "/");
    ck_assert_str_eq(norm("/"), "/");
    ck_assert_str_eq(norm("a/.."), ".");
    ck_assert_str_eq(norm(""), ".");
    ck_assert_str_eq(norm("."), ".");
    /* A relative path's leading ".." name folders above it: kept. */
    ck_assert_str_eq(norm("../x/../../y.c"), "../../y.c");
    ck_assert_str_eq(norm("../../y.c"), "../../y.c");
    ck_assert_str_eq(norm("a/../../y.c"), "../y.c");
    /* Names that merely start with dots are names. */
    ck_assert_str_eq(norm("/a/...b/..c/.d"), "/a/...b/..c/.d");
    /* Never longer than the path, plus "." for an empty one. */
    ck_assert_str_eq(norm("a\\x1b/../\\x1b[2J"), "\\x1b[2J");
}
END_TEST

static const char *fit(const char *name, size_t cols, int utf8) {
    static char buf[700];
    return fmt_function(buf, sizeof buf, (run_str){name, strlen(name)}, cols, 0, utf8);
}

START_TEST(long_function_names_fit_their_column) {
    const char *op = "geo::Grid<int>::operator()(int) const";
    ck_assert_str_eq(fit(op, 60, 1), op); /* fits: untouched */
    ck_assert_str_eq(fit(op, 37, 1), op);
    /* The parameters go first, the qualifiers stay. */
    ck_assert_str_eq(fit(op, 35, 1), "geo::Grid<int>::operator()(\xe2\x80\xa6) const");
    ck_assert_str_eq(fit("ns::f(long, long)", 14, 0), "ns::f(...)");
    /* Only where that saves columns: "(int)" is as wide as "(...)". */
    ck_assert_str_eq(fit(op, 35, 0), "geo::Grid...::operator()(int) const");
    /* A lambda's own parentheses are not the parameters. */
    ck_assert_str_eq(fit("main::{lambda(int, double)#1}::operator()(int, double) const", 50, 1),
                     "main::{lambda(int, double)#1}::operator()(\xe2\x80\xa6) const");
    /* Nor an operator's characters. */
    ck_assert_str_eq(fit("operator<<(std::ostream&, V const&)", 20, 0), "operator<<(...)");
    /* Then the middle: two thirds of the columns for the end, which holds
     * the function's own name, the rest for the start; the end from a "::"
     * when that keeps half of it. */
    ck_assert_str_eq(fit(op, 20, 1), "geo::G\xe2\x80\xa6or()(\xe2\x80\xa6) const");
    ck_assert_str_eq(fit(op, 30, 1), "geo::Gri\xe2\x80\xa6::operator()(\xe2\x80\xa6) const");
    ck_assert_str_eq(fit("main::{lambda(int)#1}::operator()(int) const", 40, 1),
                     "main::{lambda(int)\xe2\x80\xa6::operator()(\xe2\x80\xa6) const");
    const char *vec = "void std::vector<int, std::allocator<int> >::_M_realloc_insert<int "
                      "const&>(__gnu_cxx::__normal_iterator<int*, std::vector<int, "
                      "std::allocator<int> > >, int const&)";
    ck_assert_str_eq(fit(vec, 40, 1),
                     "void std::vec\xe2\x80\xa6lloc_insert<int const&>(\xe2\x80\xa6)");
    ck_assert_uint_eq(fmt_width(fit(vec, 40, 1)), 40);
    /* Every width holds, the ASCII ellipsis too, and wide characters and
     * escapes count as they are drawn. */
    const char *names[] = {op, vec, "f", "\xe6\xbc\xa2\xe5\xad\x97::\xe5\xad\x97(int)",
                           "a\\x1b[2J::b(\\x1b)"};
    for (size_t k = 0; k < sizeof names / sizeof *names; k++)
        for (size_t cols = 0; cols < 80; cols++)
            for (int utf8 = 0; utf8 < 2; utf8++)
                ck_assert_msg(fmt_width(fit(names[k], cols, utf8)) <= cols, "%s in %zu: %s",
                              names[k], cols, fit(names[k], cols, utf8));
}
END_TEST

START_TEST(a_name_longer_than_the_buffer_keeps_its_end) {
    /* 4,000 characters, as test_lines_cxx's template member: escaped whole,
     * so its parameters are found and its own name kept. */
    size_t n = 4000;
    char *name = malloc(n + 64);
    ck_assert_ptr_nonnull(name);
    strcpy(name, "ns::Long<");
    size_t len = strlen(name);
    while (len < n) {
        memcpy(name + len, "std::vector<int>, ", 18);
        len += 18;
    }
    strcpy(name + len, "int>::run(int, int)");
    char buf[600];
    fmt_function(buf, sizeof buf, (run_str){name, strlen(name)}, 40, 0, 0);
    ck_assert_uint_eq(fmt_width(buf), 40);
    ck_assert_str_eq(buf + strlen(buf) - 14, "int>::run(...)");
    free(name);
}
END_TEST

int main(void) {
    Suite *s = suite_create("names");
    TCase *tc = tcase_create("names");
    tcase_add_test(tc, cxx_names_read_as_written);
    tcase_add_test(tc, what_is_not_mangled_has_no_demangled_form);
    tcase_add_test(tc, hostile_names_end);
    tcase_add_test(tc, the_cache_answers_as_the_demangler);
    tcase_add_test(tc, paths_are_normalised_lexically);
    tcase_add_test(tc, long_function_names_fit_their_column);
    tcase_add_test(tc, a_name_longer_than_the_buffer_keeps_its_end);
    suite_add_tcase(s, tc);
    return unit_run(s);
}
