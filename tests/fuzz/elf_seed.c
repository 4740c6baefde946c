/* A small module with debug info and an inlined function, copied into the
 * seed corpus of fuzz_lines_symbolize (make_corpus --mode elf). */
static inline int twice(int x) {
    return 2 * x;
}

int elf_seed_work(int n) {
    int s = 0;
    for (int i = 0; i < n; i++)
        s += twice(i) ^ n;
    return s;
}
