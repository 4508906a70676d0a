/* CTZ64(x): the index of the lowest set bit of x (x not 0), for the C modules' bitset scans. */
#ifndef TACTICIAN_CTZ_H
#define TACTICIAN_CTZ_H
#if defined(__GNUC__) || defined(__clang__)
#define CTZ64(x) __builtin_ctzll(x)
#else
static int CTZ64(unsigned long long x) {
    int n = 0;
    while (!(x & 1)) {
        x >>= 1;
        n++;
    }
    return n;
}
#endif
#endif
