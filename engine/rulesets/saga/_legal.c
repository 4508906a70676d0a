/* engine.rulesets.saga._legal: placeholder module (its functions are being written). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyMethodDef methods[] = {{NULL, NULL, 0, NULL}};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_legal", NULL, -1, methods};

PyMODINIT_FUNC PyInit__legal(void) { return PyModule_Create(&module); }
