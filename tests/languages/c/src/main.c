#include <stdio.h>
#include "util.h"
#include "../lib/log.h"

/* Twice x. */
static int twice(int x) {
    return add(x, x);
}

int main(void) {
    printf("%d\n", twice(2));
    log_line("done");
    note("x");
    return 0;
}

int other(void) {
    return hidden();
}
