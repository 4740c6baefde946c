/* A math routine outside the project folder, as libm is: its samples count
 * for the project line that called it. */
#include "../sites.h"

double fm_exp(double x) {
    double term = 1, sum = 1;
    sites.exp_series = &&series;
    for (int k = 1; k < 12; k++) {
    series:
        term *= x / k;
        sum += term;
    }
    return sum;
}
