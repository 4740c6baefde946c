/*
 * scope._recorder: recording from Python through libscope (docs/python.md,
 * "Recording from Python").
 *
 * A CPython extension, not ctypes, because a phase must cost well under a
 * microsecond: `with scope.phase("step"):` finds the name's call-site
 * descriptor (a scope_site, as the C macros make) in a dict keyed by the
 * name string, whose hash Python caches, and calls the recorder's block
 * fast path, scope_block_enter_ and scope_block_exit_, the same two calls
 * SCOPE_PHASE makes.  The site's name id is assigned by the recorder on its
 * first use and read from the site ever after (Tracy's call-site
 * descriptors), so a name is hashed by the recorder once per process.
 *
 * The module links libscope.so by its soname, so a Python program that is
 * LD_PRELOADed with libscope, or loads a C library linked with it, has one
 * recorder: one log per process, phases from C and Python in one tree.
 *
 * Sites live for the life of the process (the cache is bounded, SITE_CACHE_MAX
 * names); the recorder copies what it needs from a site on each entry and
 * keeps no pointer to it, so a site made for a name past the bound is freed
 * with its phase object.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <scope/scope.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Distinct names whose sites are kept; past this a phase object makes its
 * own site (one more intern in the recorder per object).  The recorder
 * itself keeps at most 65,536 names and folds the rest into "(other)". */
#define SITE_CACHE_MAX 65536

/* One site cache per kind of site: the four phase flag combinations
 * (SCOPE_SITE_IO | SCOPE_SITE_SYNC), and counters. */
#define FLAG_COMBOS 4
#define SITE_KINDS  (FLAG_COMBOS + 1)

/* ---- sites ----------------------------------------------------------------- */

typedef struct {
    PyObject_HEAD scope_site site;
    char *name; /* UTF-8, owned */
    char *file; /* the first user's file, owned; may be NULL */
} SiteObject;

static void site_dealloc(SiteObject *self) {
    PyMem_RawFree(self->name);
    PyMem_RawFree(self->file);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject SiteType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "scope._recorder._Site",
    .tp_basicsize = sizeof(SiteObject),
    .tp_dealloc = (destructor)site_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A phase or counter name's call-site descriptor (internal).",
};

/* One dict per kind: "save" as a plain phase, as an I/O phase and as a
 * counter are three sites of one name, each with its own flags and the file
 * and line of its own first use. */
static PyObject *site_cache[SITE_KINDS];

static char *raw_strdup(const char *s, size_t len) {
    char *p = PyMem_RawMalloc(len + 1);
    if (p) {
        memcpy(p, s, len);
        p[len] = '\0';
    }
    return p;
}

/* The name as UTF-8 without NUL, or NULL with TypeError/ValueError set. */
static const char *checked_name(PyObject *name, Py_ssize_t *len, const char *what) {
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "scope.%s: the name must be a str, not %.100s", what,
                     Py_TYPE(name)->tp_name);
        return NULL;
    }
    const char *s = PyUnicode_AsUTF8AndSize(name, len);
    if (!s)
        return NULL;
    if (memchr(s, '\0', (size_t)*len)) {
        PyErr_Format(PyExc_ValueError, "scope.%s: the name %R holds a NUL character", what, name);
        return NULL;
    }
    return s;
}

/* Where the site is first used: the calling Python frame's file and line
 * (the node keeps them, as it keeps a C site's __FILE__ and __LINE__); for
 * a decorator, the line of `@scope.phase(...)`. */
static void caller_place(char **file, uint32_t *line) {
    *file = NULL;
    *line = 0;
    PyFrameObject *f = PyEval_GetFrame(); /* borrowed */
    if (!f)
        return;
    PyCodeObject *co = PyFrame_GetCode(f);
    PyObject *filename = co->co_filename;
    *line = (uint32_t)PyFrame_GetLineNumber(f);
    if (filename && PyUnicode_Check(filename)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(filename, &n);
        if (s && !memchr(s, '\0', (size_t)n))
            *file = raw_strdup(s, (size_t)n);
        PyErr_Clear();
    }
    Py_DECREF(co);
}

static SiteObject *site_new(const char *s, Py_ssize_t len, uint32_t flags) {
    SiteObject *site = PyObject_New(SiteObject, &SiteType);
    if (!site)
        return NULL;
    site->name = raw_strdup(s, (size_t)len);
    site->file = NULL;
    if (!site->name) {
        Py_DECREF(site);
        return (SiteObject *)PyErr_NoMemory();
    }
    uint32_t line;
    caller_place(&site->file, &line);
    site->site = (scope_site){site->name, site->file, line, flags, 0u, 0u};
    return site;
}

/* A new reference to the site of (name, flags), made on first use. */
static SiteObject *site_for(PyObject *name, uint32_t flags, const char *what) {
    PyObject *cache =
        site_cache[flags & SCOPE_SITE_COUNT ? FLAG_COMBOS : flags & (FLAG_COMBOS - 1)];
    if (PyUnicode_CheckExact(name)) {
        PyObject *hit = PyDict_GetItemWithError(cache, name); /* borrowed */
        if (hit) {
            Py_INCREF(hit);
            return (SiteObject *)hit;
        }
        if (PyErr_Occurred())
            return NULL;
    }
    Py_ssize_t len;
    const char *s = checked_name(name, &len, what);
    if (!s)
        return NULL;
    SiteObject *site = site_new(s, len, flags);
    /* A str subclass is keyed by its plain value: its __hash__ and __eq__
     * may be anything. */
    if (site && PyDict_GET_SIZE(cache) < SITE_CACHE_MAX) {
        PyObject *key =
            PyUnicode_CheckExact(name) ? Py_NewRef(name) : PyUnicode_FromStringAndSize(s, len);
        if (!key || PyDict_SetItem(cache, key, (PyObject *)site) < 0) {
            Py_XDECREF(key);
            Py_DECREF(site);
            return NULL;
        }
        Py_DECREF(key);
    }
    return site;
}

/* ---- which thread --------------------------------------------------------- */

/* Python threads are OS threads, and the recorder keeps one phase stack per
 * OS thread; a phase object entered on two threads at once keeps each
 * thread's depth apart by this. */
static inline unsigned long this_thread(void) {
    return PyThread_get_thread_ident();
}

/* ---- scope.phase ------------------------------------------------------------ */

typedef struct {
    unsigned long thread;
    uint32_t depth; /* scope_block_enter_'s answer; 0: entered while not recording */
} open_entry;

#define INLINE_OPEN 2

typedef struct {
    PyObject_HEAD SiteObject *site;
    Py_ssize_t nopen;
    Py_ssize_t cap; /* of `more` */
    open_entry open[INLINE_OPEN];
    open_entry *more; /* entries past INLINE_OPEN, for a phase object re-entered */
} PhaseObject;

static PyTypeObject PhaseType;
static PyTypeObject PhaseFunctionType;
static PyObject *module_self;  /* borrowed: the module lives as long as its types */
static PyObject *wrap_special; /* scope._phase_wrappers.wrap, for generators and coroutines */

static open_entry *entry_at(PhaseObject *p, Py_ssize_t i) {
    return i < INLINE_OPEN ? &p->open[i] : &p->more[i - INLINE_OPEN];
}

static PyObject *phase_make(PyTypeObject *type, PyObject *name, int io, int sync) {
    uint32_t flags = (io ? SCOPE_SITE_IO : 0u) | (sync ? SCOPE_SITE_SYNC : 0u);
    SiteObject *site = site_for(name, flags, "phase");
    if (!site)
        return NULL;
    PhaseObject *p = (PhaseObject *)type->tp_alloc(type, 0);
    if (!p) {
        Py_DECREF(site);
        return NULL;
    }
    p->site = site;
    return (PyObject *)p;
}

static PyObject *phase_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"name", "io", "sync", NULL};
    PyObject *name;
    int io = 0, sync = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$pp:phase", kwlist, &name, &io, &sync))
        return NULL;
    return phase_make(type, name, io, sync);
}

/* scope.phase("name"): the common call, without building a tuple. */
static PyObject *phase_vectorcall(PyObject *type, PyObject *const *args, size_t nargsf,
                                  PyObject *kwnames) {
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (n == 1 && !kwnames)
        return phase_make((PyTypeObject *)type, args[0], 0, 0);
    PyObject *tuple = PyTuple_New(n);
    if (!tuple)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(tuple, i, Py_NewRef(args[i]));
    PyObject *kw = NULL;
    if (kwnames) {
        kw = PyDict_New();
        for (Py_ssize_t i = 0; kw && i < PyTuple_GET_SIZE(kwnames); i++)
            if (PyDict_SetItem(kw, PyTuple_GET_ITEM(kwnames, i), args[n + i]) < 0)
                Py_CLEAR(kw);
        if (!kw) {
            Py_DECREF(tuple);
            return NULL;
        }
    }
    PyObject *r = phase_new((PyTypeObject *)type, tuple, kw);
    Py_DECREF(tuple);
    Py_XDECREF(kw);
    return r;
}

static void phase_dealloc(PhaseObject *self) {
    Py_XDECREF(self->site);
    PyMem_Free(self->more);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static inline uint32_t site_enter(SiteObject *site) {
    /* As scope_phase_open_: a recorder known to be off costs one load. */
    if (__builtin_expect(scope_hot_, 1))
        return scope_block_enter_(&site->site);
    return 0;
}

static inline void site_exit(uint32_t depth) {
    if (depth)
        scope_block_exit_(depth);
}

static PyObject *phase_enter(PhaseObject *self, PyObject *Py_UNUSED(ignored)) {
    if (self->nopen >= INLINE_OPEN + self->cap) {
        Py_ssize_t cap = self->cap ? 2 * self->cap : 8;
        open_entry *more = PyMem_Realloc(self->more, (size_t)cap * sizeof *more);
        if (!more)
            return PyErr_NoMemory();
        self->more = more;
        self->cap = cap;
    }
    open_entry *e = entry_at(self, self->nopen);
    e->thread = this_thread();
    e->depth = site_enter(self->site);
    self->nopen++;
    return Py_NewRef((PyObject *)self);
}

/* Closes this thread's innermost entry of the object: exactly its phase, and
 * whatever was left open inside it (counted by the recorder as unbalanced,
 * as a C block does).  An exception passes through. */
static PyObject *phase_exit(PhaseObject *self, PyObject *const *args, Py_ssize_t nargs) {
    (void)args;
    (void)nargs;
    unsigned long me = this_thread();
    for (Py_ssize_t i = self->nopen - 1; i >= 0; i--) {
        open_entry *e = entry_at(self, i);
        if (e->thread != me)
            continue;
        uint32_t depth = e->depth;
        for (Py_ssize_t j = i; j + 1 < self->nopen; j++)
            *entry_at(self, j) = *entry_at(self, j + 1);
        self->nopen--;
        site_exit(depth);
        Py_RETURN_FALSE;
    }
    PyObject *name = PyUnicode_FromString(self->site->name);
    if (name) {
        PyErr_Format(PyExc_RuntimeError,
                     "scope.phase(%R): __exit__ without __enter__ on this thread (a phase ends "
                     "on the thread that entered it)",
                     name);
        Py_DECREF(name);
    }
    return NULL;
}

/* @scope.phase("name"): a wrapper that opens the phase around each call.
 * Generator and coroutine functions are wrapped in Python
 * (scope/_phase_wrappers.py), timing each resumption, not the time they
 * spend suspended. */
static PyObject *phase_call(PhaseObject *self, PyObject *args, PyObject *kw) {
    PyObject *func;
    if (kw && PyDict_GET_SIZE(kw)) {
        PyErr_SetString(PyExc_TypeError, "scope.phase(...) as a decorator takes one function");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O:phase", &func))
        return NULL;
    if (!PyCallable_Check(func)) {
        PyErr_Format(PyExc_TypeError, "scope.phase(...) decorates a callable, not %.100s",
                     Py_TYPE(func)->tp_name);
        return NULL;
    }
    return PyObject_CallFunctionObjArgs(wrap_special, (PyObject *)self, func, NULL);
}

static PyObject *phase_get_name(PhaseObject *self, void *Py_UNUSED(c)) {
    return PyUnicode_FromString(self->site->name);
}

static PyObject *phase_repr(PhaseObject *self) {
    PyObject *name = PyUnicode_FromString(self->site->name);
    if (!name)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("scope.phase(%R)", name);
    Py_DECREF(name);
    return r;
}

/* Pickled as the call that makes it: (scope.phase's rebuild, (name, flags)),
 * its open entries being this process's own. */
static PyObject *phase_reduce(PhaseObject *self, PyObject *Py_UNUSED(ignored)) {
    PyObject *rebuild = PyObject_GetAttrString(module_self, "_phase_from");
    if (!rebuild)
        return NULL;
    PyObject *r = Py_BuildValue("N(sI)", rebuild, self->site->name,
                                self->site->site.flags & (SCOPE_SITE_IO | SCOPE_SITE_SYNC));
    return r;
}

static PyMethodDef phase_methods[] = {
    {"__reduce__", (PyCFunction)phase_reduce, METH_NOARGS, NULL},
    {"__enter__", (PyCFunction)phase_enter, METH_NOARGS, "Opens the phase on this thread."},
    {"__exit__", (PyCFunction)(void (*)(void))phase_exit, METH_FASTCALL,
     "Closes this thread's innermost entry of the phase."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef phase_getset[] = {
    {"name", (getter)phase_get_name, NULL, "The phase's name.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PhaseType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "scope.phase",
    .tp_basicsize = sizeof(PhaseObject),
    .tp_dealloc = (destructor)phase_dealloc,
    .tp_repr = (reprfunc)phase_repr,
    .tp_call = (ternaryfunc)phase_call,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "phase(name, *, io=False, sync=False)\n--\n\n"
              "A named phase: `with scope.phase(\"step\"):` or `@scope.phase(\"step\")`.\n"
              "io=True records the phase's exact I/O bytes; sync=True drains the GPU\n"
              "queue at both ends (SCOPE_PHASE_IO, SCOPE_PHASE_SYNC).",
    .tp_methods = phase_methods,
    .tp_getset = phase_getset,
    .tp_new = phase_new,
    .tp_vectorcall = phase_vectorcall,
};

/* ---- the decorated function -------------------------------------------------- */

typedef struct {
    PyObject_HEAD SiteObject *site;
    PyObject *func;
    PyObject *dict; /* __name__, __doc__, __wrapped__ (functools.update_wrapper) */
    vectorcallfunc vectorcall;
} PhaseFunctionObject;

/* The depth stays in this C frame, so recursion and threads need nothing
 * more; the phase closes however the call ends. */
static PyObject *pf_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames) {
    PhaseFunctionObject *pf = (PhaseFunctionObject *)self;
    uint32_t depth = site_enter(pf->site);
    PyObject *r = PyObject_Vectorcall(pf->func, args, nargsf, kwnames);
    site_exit(depth);
    return r;
}

static int pf_traverse(PhaseFunctionObject *self, visitproc visit, void *arg) {
    Py_VISIT(self->func);
    Py_VISIT(self->dict);
    return 0;
}

static int pf_clear(PhaseFunctionObject *self) {
    Py_CLEAR(self->func);
    Py_CLEAR(self->dict);
    return 0;
}

static void pf_dealloc(PhaseFunctionObject *self) {
    PyObject_GC_UnTrack(self);
    pf_clear(self);
    Py_XDECREF(self->site);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* A method: bound like a function, so `self` reaches the wrapped one. */
static PyObject *pf_descr_get(PyObject *self, PyObject *obj, PyObject *type) {
    (void)type;
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static PyObject *pf_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    PyObject *phase, *func;
    if (kw && PyDict_GET_SIZE(kw)) {
        PyErr_SetString(PyExc_TypeError, "_PhaseFunction(phase, func)");
        return NULL;
    }
    if (!PyArg_ParseTuple(args, "O!O:_PhaseFunction", &PhaseType, &phase, &func))
        return NULL;
    PhaseFunctionObject *pf = (PhaseFunctionObject *)type->tp_alloc(type, 0);
    if (!pf)
        return NULL;
    pf->site = (SiteObject *)Py_NewRef(((PhaseObject *)phase)->site);
    pf->func = Py_NewRef(func);
    pf->vectorcall = pf_vectorcall;
    return (PyObject *)pf;
}

static PyObject *pf_repr(PhaseFunctionObject *self) {
    PyObject *name = PyUnicode_FromString(self->site->name);
    if (!name)
        return NULL;
    PyObject *r = PyUnicode_FromFormat("<scope.phase(%R) of %R>", name, self->func);
    Py_DECREF(name);
    return r;
}

/* Pickled by reference, as a function is (multiprocessing sends a Pool's
 * function so): the module's attribute of its __qualname__, which is this
 * wrapper where it decorates a module-level function; without one (an
 * object not made by the decorator), as the wrapper of its phase and
 * function. */
static PyObject *pf_reduce(PhaseFunctionObject *self, PyObject *Py_UNUSED(ignored)) {
    PyObject *qualname = self->dict ? PyDict_GetItemString(self->dict, "__qualname__") : NULL;
    if (qualname && PyUnicode_Check(qualname))
        return Py_NewRef(qualname);
    PhaseObject *phase = (PhaseObject *)PhaseType.tp_alloc(&PhaseType, 0);
    if (!phase)
        return NULL;
    phase->site = (SiteObject *)Py_NewRef(self->site);
    return Py_BuildValue("O(NO)", (PyObject *)Py_TYPE(self), (PyObject *)phase, self->func);
}

static PyMethodDef pf_methods[] = {
    {"__reduce__", (PyCFunction)pf_reduce, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef pf_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PhaseFunctionType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "scope._recorder._PhaseFunction",
    .tp_basicsize = sizeof(PhaseFunctionObject),
    .tp_dealloc = (destructor)pf_dealloc,
    .tp_repr = (reprfunc)pf_repr,
    .tp_call = PyVectorcall_Call,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "A function whose every call is a scope phase.",
    .tp_traverse = (traverseproc)pf_traverse,
    .tp_clear = (inquiry)pf_clear,
    .tp_methods = pf_methods,
    .tp_getset = pf_getset,
    .tp_descr_get = pf_descr_get,
    .tp_dictoffset = offsetof(PhaseFunctionObject, dict),
    .tp_vectorcall_offset = offsetof(PhaseFunctionObject, vectorcall),
    .tp_new = pf_new,
};

/* ---- module functions ------------------------------------------------------------ */

static PyObject *py_init(PyObject *mod, PyObject *args, PyObject *kw) {
    (void)mod;
    static char *kwlist[] = {"run_dir", "role", NULL};
    PyObject *run_dir_obj = Py_None, *role_obj = Py_None, *run_dir = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO:init", kwlist, &run_dir_obj, &role_obj))
        return NULL;
    /* None: $SCOPE_RUN_DIR, else "scope-run"; a str, bytes or os.PathLike
     * otherwise. */
    if (run_dir_obj != Py_None && !PyUnicode_FSConverter(run_dir_obj, &run_dir))
        return NULL;
    const char *role = NULL;
    if (role_obj != Py_None) {
        Py_ssize_t len;
        role = checked_name(role_obj, &len, "init (role)");
        if (!role) {
            Py_XDECREF(run_dir);
            return NULL;
        }
    }
    const char *dir = run_dir ? PyBytes_AS_STRING(run_dir) : NULL;
    if (dir && memchr(dir, '\0', (size_t)PyBytes_GET_SIZE(run_dir))) {
        Py_DECREF(run_dir);
        PyErr_SetString(PyExc_ValueError, "scope.init: the run directory holds a NUL character");
        return NULL;
    }
    /* Starting makes the run directory and its writer thread: no Python
     * runs in it, so other threads may run meanwhile. */
    PyThreadState *ts = PyEval_SaveThread();
    int rc = scope_init(dir, role);
    PyEval_RestoreThread(ts);
    Py_XDECREF(run_dir);
    /* 0 from scope_init also when SCOPE_PROFILE=0 switched it off. */
    return PyBool_FromLong(rc == 0 && scope_hot_);
}

static PyObject *py_flush(PyObject *mod, PyObject *Py_UNUSED(ignored)) {
    (void)mod;
    PyThreadState *ts = PyEval_SaveThread();
    int rc = scope_flush();
    PyEval_RestoreThread(ts);
    return PyBool_FromLong(rc == 0);
}

static PyObject *py_shutdown(PyObject *mod, PyObject *Py_UNUSED(ignored)) {
    (void)mod;
    PyThreadState *ts = PyEval_SaveThread();
    scope_shutdown();
    PyEval_RestoreThread(ts);
    Py_RETURN_NONE;
}

static PyObject *py_count(PyObject *mod, PyObject *const *args, Py_ssize_t nargs) {
    (void)mod;
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "scope.count(name, n=1)");
        return NULL;
    }
    int64_t n = 1;
    if (nargs == 2) {
        if (!PyLong_Check(args[1])) {
            PyErr_Format(PyExc_TypeError, "scope.count: n must be an int, not %.100s",
                         Py_TYPE(args[1])->tp_name);
            return NULL;
        }
        long long v = PyLong_AsLongLong(args[1]);
        if (v == -1 && PyErr_Occurred())
            return NULL;
        n = v;
    }
    SiteObject *site = site_for(args[0], SCOPE_SITE_COUNT, "count");
    if (!site)
        return NULL;
    if (scope_hot_)
        scope_count_slow_(&site->site, n);
    Py_DECREF(site);
    Py_RETURN_NONE;
}

static PyObject *py_recording(PyObject *mod, PyObject *Py_UNUSED(ignored)) {
    (void)mod;
    return PyBool_FromLong(scope_hot_ != 0);
}

/* The unpickling half of phase.__reduce__. */
static PyObject *py_phase_from(PyObject *mod, PyObject *args) {
    (void)mod;
    PyObject *name;
    unsigned int flags;
    if (!PyArg_ParseTuple(args, "OI:_phase_from", &name, &flags))
        return NULL;
    return phase_make(&PhaseType, name, (flags & SCOPE_SITE_IO) != 0,
                      (flags & SCOPE_SITE_SYNC) != 0);
}

static PyObject *py_set_wrapper(PyObject *mod, PyObject *func) {
    (void)mod;
    Py_XSETREF(wrap_special, Py_NewRef(func));
    Py_RETURN_NONE;
}

static PyMethodDef module_methods[] = {
    {"init", (PyCFunction)(void (*)(void))py_init, METH_VARARGS | METH_KEYWORDS,
     "init(run_dir=None, role=None) -> bool\n--\n\nscope_init: True when recording."},
    {"flush", py_flush, METH_NOARGS, "flush() -> bool\n--\n\nscope_flush: True when written."},
    {"shutdown", py_shutdown, METH_NOARGS,
     "shutdown()\n--\n\nscope_shutdown: writes everything and stops for good."},
    {"count", (PyCFunction)(void (*)(void))py_count, METH_FASTCALL,
     "count(name, n=1)\n--\n\nAdds n to the counter `name` of the phase open on this thread."},
    {"_hot", py_recording, METH_NOARGS, "Whether calls may still record (scope_hot_)."},
    {"_set_wrapper", py_set_wrapper, METH_O, "Sets the decorator's Python half."},
    {"_phase_from", py_phase_from, METH_VARARGS, "Remakes a pickled phase (internal)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "scope._recorder",
    .m_doc = "Recording from Python through libscope (docs/python.md).",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC PyInit__recorder(void) {
    if (PyType_Ready(&SiteType) < 0 || PyType_Ready(&PhaseType) < 0 ||
        PyType_Ready(&PhaseFunctionType) < 0)
        return NULL;
    for (int i = 0; i < SITE_KINDS; i++)
        if (!site_cache[i] && !(site_cache[i] = PyDict_New()))
            return NULL;
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    module_self = m;
    if (PyModule_AddObjectRef(m, "phase", (PyObject *)&PhaseType) < 0 ||
        PyModule_AddObjectRef(m, "_PhaseFunction", (PyObject *)&PhaseFunctionType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
