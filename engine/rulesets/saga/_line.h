/* The line between two squares as grid._Geometry.line traces it, shared by _legal.c and _observe.c.
 *
 * trace_line(w, dx, dy, out, cap): the squares strictly between two squares of a map w wide whose ends are dx, dy
 * apart (dy >= 0: from the lower flat index), in traced order, as flat offsets from the lower end; returns their
 * count, or -1 past `cap`. The trace samples x0 + 0.5 + k dx / n (n = 4 max(|dx|, |dy|) + 3, odd) from a corner
 * keeping every coordinate >= 0; such a sample is never within 1 / 2n of an integer, so this exact integer floor
 * is Python's float one. */
#ifndef SAGA_LINE_H
#define SAGA_LINE_H

static int trace_line(long w, long dx, long dy, int *out, int cap) {
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
