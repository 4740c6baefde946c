/*
 * Symbols of every kind libdwfl weighs when it names an address, for
 * test_lines_symindex: global, weak and local functions; aliases of one
 * range with other bindings and other sizes; a function nested inside
 * another's range; sizeless assembly labels, global and local, inside and
 * between functions; an object in the data.  Built without -g and linked
 * as it is, then stripped to .dynsym only by the test's build.
 */
#include <stdio.h>

__attribute__((noinline)) static int local_fn(int x) {
    return x * 3 + 1;
}

__attribute__((noinline)) int global_fn(int x) {
    return local_fn(x) ^ 0x55;
}

__attribute__((noinline, weak)) int weak_fn(int x) {
    return global_fn(x) + 7;
}

/* Three names for one range: global, weak and local bindings. */
int alias_global(int x) __attribute__((alias("global_fn")));
int alias_weak(int x) __attribute__((weak, alias("global_fn")));

int table[64] = {1, 2, 3};

/* Assembly: a sized outer function with a sized inner one nested in it,
 * sizeless labels (a global one, a local one) after them, and a global
 * sizeless label at the very start of a sized function. */
__asm__(".text\n"
        ".globl asm_outer\n"
        ".type asm_outer, @function\n"
        "asm_outer:\n"
        "  nop\n  nop\n  nop\n  nop\n"
        ".globl asm_inner\n"
        ".type asm_inner, @function\n"
        "asm_inner:\n"
        "  nop\n  nop\n"
        ".size asm_inner, .-asm_inner\n"
        "  nop\n  nop\n  ret\n"
        ".size asm_outer, .-asm_outer\n"
        ".globl asm_label\n"
        "asm_label:\n"
        "  nop\n  nop\n  nop\n"
        "asm_local_label:\n"
        "  nop\n  nop\n  ret\n"
        ".globl asm_at_start\n"
        "asm_at_start:\n"
        ".globl asm_sized\n"
        ".type asm_sized, @function\n"
        "asm_sized:\n"
        "  nop\n  nop\n  ret\n"
        ".size asm_sized, .-asm_sized\n"
        "  nop\n  nop\n  nop\n");

void asm_outer(void);

int main(int argc, char **argv) {
    (void)argv;
    asm_outer();
    printf("%d %d\n", weak_fn(argc), table[argc & 63]);
    return 0;
}
