/* Reading a unit's attributes from C where its class keeps them as plain __slots__ (units.Unit), shared by
 * envs/_native.c and engine/rulesets/saga/_observe.c. A SlotReader names the attributes it reads; it finds them
 * through the class's member descriptors and remembers one class by its address and version tag (no reference held:
 * a new class at the same address has another tag); any other object is read through getattr. Include after Python.h
 * and structmember.h. */
#ifndef TACTICIAN_SLOTS_H
#define TACTICIAN_SLOTS_H

#define SLOTS_MAX 8

typedef struct {
    PyObject **const *names; /* the attributes' interned names, by index */
    int n;
    PyTypeObject *type;
    unsigned int tag;
    Py_ssize_t off[SLOTS_MAX];
} SlotReader;

static void slots_learn(SlotReader *r, PyTypeObject *tp) {
    int k;
    r->type = NULL;
    if (!PyType_HasFeature(tp, Py_TPFLAGS_VALID_VERSION_TAG))
        return;
    for (k = 0; k < r->n; k++) {
        PyObject *descr = _PyType_Lookup(tp, *r->names[k]); /* borrowed; no exception set */
        r->off[k] = descr && Py_IS_TYPE(descr, &PyMemberDescr_Type)
                            && ((PyMemberDescrObject *)descr)->d_member->type == T_OBJECT_EX
                            && !(((PyMemberDescrObject *)descr)->d_member->flags & READONLY)
                        ? ((PyMemberDescrObject *)descr)->d_member->offset
                        : -1;
    }
    if (PyType_HasFeature(tp, Py_TPFLAGS_VALID_VERSION_TAG)) { /* (the lookups assign one when missing) */
        r->type = tp;
        r->tag = tp->tp_version_tag;
    }
}

/* getattr(u, attribute k of r): a new reference, read from the slot when it can be */
static PyObject *slots_get(SlotReader *r, PyObject *u, int k) {
    PyTypeObject *tp = Py_TYPE(u);
    if (tp != r->type || tp->tp_version_tag != r->tag || !PyType_HasFeature(tp, Py_TPFLAGS_VALID_VERSION_TAG))
        slots_learn(r, tp);
    if (tp == r->type && r->off[k] >= 0) {
        PyObject *v = *(PyObject **)((char *)u + r->off[k]);
        if (v)
            return Py_NewRef(v);
    }
    return PyObject_GetAttr(u, *r->names[k]);
}

#endif
