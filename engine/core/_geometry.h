/* The grid's geometry in C, written once for every C module (engine/core/_native.c, envs/_native.c, the rulesets'
 * mirrors): the distance rule of grid.metric_distance / Grid.distance, the line between two squares as
 * grid._Geometry.line traces it, and the fold of the squares of a line into Grid.sight's (line of sight, line of
 * effect, cover). Plain C, header only; no Python objects.
 */
#ifndef CORE_GEOMETRY_H
#define CORE_GEOMETRY_H

#include <stdlib.h>

/* the metrics of grid.METRICS, in its order */
enum { METRIC_ALTERNATING = 0, METRIC_CHEBYSHEV = 1, METRIC_MANHATTAN = 2 };

/* grid.metric_distance: the distance of an offset (dx, dy) under metric 0 (alternating: every second diagonal
 * counts 2), 1 (chebyshev) or anything else (manhattan) */
static inline long metric_distance(int metric, long dx, long dy) {
    long hi, lo;
    dx = labs(dx);
    dy = labs(dy);
    hi = dx > dy ? dx : dy;
    lo = dx > dy ? dy : dx;
    return metric == METRIC_ALTERNATING ? hi + lo / 2 : metric == METRIC_CHEBYSHEV ? hi : dx + dy;
}

/* One square of a traced line, by its line code (Grid.line_codes: 4 blocks sight and effect, 3 effect only, 2 / 1
 * heavy / low cover): what it does to the line of sight, the line of effect and the cover met so far (Grid.sight's
 * fold; cover 0 none, 1 low, 2 heavy). */
static inline void fold_code(int code, int *los, int *loe, int *cover) {
    if (code == 4)
        *los = *loe = 0;
    else if (code == 3)
        *loe = 0;
    else if (code == 2)
        *cover = 2;
    else if (code == 1 && !*cover)
        *cover = 1;
}

/* trace_line(w, dx, dy, out, cap): the squares strictly between two squares of a map w wide whose ends are dx, dy
 * apart (dy >= 0: from the lower flat index), in traced order, as flat offsets from the lower end
 * (grid._Geometry.line); returns their count, or -1 past `cap`. The trace samples x0 + 0.5 + k dx / n
 * (n = 4 max(|dx|, |dy|) + 3, odd) from a corner keeping every coordinate >= 0; such a sample is never within 1 / 2n
 * of an integer, so this exact integer floor is Python's float one. */
static inline int trace_line(long w, long dx, long dy, int *out, int cap) {
    long x0 = dx < 0 ? -dx : 0, y0 = dy < 0 ? -dy : 0, a0, b0, n, k, x, y, rx, ry, last = -1;
    int cnt = 0;
    a0 = y0 * w + x0;
    b0 = (y0 + dy) * w + x0 + dx;
    n = 4 * (labs(dx) > labs(dy) ? labs(dx) : labs(dy)) + 3;
    /* sample k at (2n x0 + n + 2k dx) / 2n: x = the quotient, rx = the remainder, stepped by 2 dx (< 2n) */
    x = x0;
    y = y0;
    rx = ry = n;
    for (k = 1; k < n; k++) {
        long i;
        rx += 2 * dx;
        ry += 2 * dy;
        if (rx >= 2 * n) {
            rx -= 2 * n;
            x++;
        } else if (rx < 0) {
            rx += 2 * n;
            x--;
        }
        if (ry >= 2 * n) {
            ry -= 2 * n;
            y++;
        } else if (ry < 0) {
            ry += 2 * n;
            y--;
        }
        i = y * w + x;
        if (i == a0 || i == b0 || i == last)
            continue;
        last = i;
        if (cnt == cap)
            return -1;
        out[cnt++] = (int)(i - a0);
    }
    return cnt;
}

#endif
