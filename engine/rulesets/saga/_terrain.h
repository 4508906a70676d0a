/* What the per-map searches of _legal.c (charges) and _tactics.c (approach fields, key squares) share: the bits of
 * `terrain.terrain_codes` and reading C longs from arguments (the distance is engine/core/_geometry.h's). */
#ifndef SAGA_TERRAIN_H
#define SAGA_TERRAIN_H

#include <Python.h>

/* The bits of `terrain.terrain_codes` (a byte per square of a map as its doors and broken objects stand). */
#define T_BLOCK 1      /* a charge line may not touch it: a low object, or not passable (`Grid.passable`) */
#define T_WALL 2       /* a wall as play stands (a charge's diagonal step may not cut its corner) */
#define T_DOUBLE 4     /* entering it costs double (`Grid.enter_cost`) */
#define T_NO_STEP 8    /* `tactics.SagaTactics.step_costs` 0: a wall, heavy cover or a window */
#define T_DOOR_STEP 16 /* `step_costs` 3: a closed door */
#define T_GEO_WALL 32  /* a wall of the map's terrain (`_Geometry.neighbours` cut no corner of it) */
#define T_KEY_DOOR 64  /* a door of the terrain, not broken (`tactics._View.key_squares`) */
#define T_KEY_COVER 128 /* low or heavy cover of the terrain, not broken (`tactics._View.key_squares`) */

/* the C longs of args[from..from+n) */
static inline int long_args(PyObject *const *args, int from, int n, long *out) {
    int k;
    for (k = 0; k < n; k++) {
        out[k] = PyLong_AsLong(args[from + k]);
        if (out[k] == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

#endif
