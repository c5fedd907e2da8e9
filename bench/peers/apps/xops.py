"""One spelling of the NumPy calls the applications make, for NumPy, CuPy, PyTorch and JAX.

sin, cos, exp, log, sqrt, abs, sign, square, where, diag and hstack are the array module's own
functions. Writes go through put(a, index, value): a[index] = value in place for
the eager libraries, a.at[index].set(value) for JAX; both return the array, so one step function
serves every system (value is computed before it is written: NumPy's semantics).
"""

import collections

# name: what the record calls it; init(consts) -> state (untimed); step(state, consts) -> state,
# timed `iters` times; begin(state, consts) -> state, timed once before the steps (where the C++
# program's clock includes a prologue); min_bytes: a floor on the bytes one step moves, or None.
Phase = collections.namedtuple("Phase", "name iters init step begin min_bytes", defaults=(None, None))


class Ops:
    def __init__(self, env, compile_parts=False):
        self.env = env
        self.system = env.system
        self.xp = env.xp
        self.functional = env.functional
        self.is_torch = env.system.startswith("torch")
        self.is_jax = env.system == "jax"
        self.compile_parts = compile_parts  # torch-compile of an app that compiles its parts, not its step
        if self.is_torch:
            import torch

            self.torch = torch
            self.device = torch.device("cuda")
            self.f64, self.i64 = torch.float64, torch.int64
        else:
            self.f64, self.i64 = self.xp.float64, self.xp.int64
        if env.system.startswith("numpy"):
            self.xp.seterr(divide="ignore", invalid="ignore")  # as the twins' np.errstate
        # The same in all four libraries (plain attributes, which torch.compile traces through).
        for name in ("sin", "cos", "exp", "log", "sqrt", "abs", "sign", "square", "where", "diag", "hstack"):
            setattr(self, name, getattr(self.xp, name))

    # ---- creation (on the device)

    def arange(self, n, integer=False):
        dtype = self.i64 if integer else self.f64
        if self.is_torch:
            return self.torch.arange(n, dtype=dtype, device=self.device)
        return self.xp.arange(n, dtype=dtype)

    def zeros(self, shape, integer=False):
        dtype = self.i64 if integer else self.f64
        if self.is_torch:
            return self.torch.zeros(shape, dtype=dtype, device=self.device)
        return self.xp.zeros(shape, dtype=dtype)

    def ones(self, shape):
        if self.is_torch:
            return self.torch.ones(shape, dtype=self.f64, device=self.device)
        return self.xp.ones(shape, dtype=self.f64)

    def eye(self, n):
        if self.is_torch:
            return self.torch.eye(n, dtype=self.f64, device=self.device)
        return self.xp.eye(n, dtype=self.f64)

    def linspace(self, start, stop, n):
        if self.is_torch:
            return self.torch.linspace(start, stop, n, dtype=self.f64, device=self.device)
        return self.xp.linspace(start, stop, n, dtype=self.f64)

    def asarray(self, host):
        """A NumPy array moved to the device."""
        if self.is_torch:
            return self.torch.from_numpy(host).to(self.device)
        if self.system.startswith("numpy"):
            return host
        return self.xp.asarray(host)

    def asfloat(self, a):
        return a.to(self.f64) if self.is_torch else a.astype(self.f64)

    def copy(self, a):
        """A new buffer (JAX too: state to donate must not share buffers)."""
        return self.env.copy(a)

    def snapshot(self, a):
        """a's values as they are now, inside a step (a copy where a is written in place later)."""
        return a if self.functional else self.env.copy(a)

    # ---- the calls whose arguments differ (torch: dim=, clamp for scalars, 1-D dot)

    def sum(self, a, axis=None):
        if self.is_torch:
            return a.sum() if axis is None else a.sum(dim=axis)
        return self.xp.sum(a, axis=axis)

    def amin(self, a, axis=None):
        if self.is_torch:
            return a.min() if axis is None else self.torch.amin(a, dim=axis)
        return self.xp.min(a, axis=axis)

    def amax(self, a, axis=None):
        if self.is_torch:
            return a.max() if axis is None else self.torch.amax(a, dim=axis)
        return self.xp.max(a, axis=axis)

    def argmin(self, a, axis):
        if self.is_torch:
            return self.torch.argmin(a, dim=axis)  # the first of equal values, as NumPy
        return self.xp.argmin(a, axis=axis)

    def maximum(self, a, b):
        if self.is_torch and isinstance(b, (int, float)):
            return self.torch.clamp(a, min=b)
        return self.xp.maximum(a, b)

    def minimum(self, a, b):
        if self.is_torch and isinstance(b, (int, float)):
            return self.torch.clamp(a, max=b)
        return self.xp.minimum(a, b)

    def norm(self, a):
        """np.linalg.norm(a): the 2-norm of the flattened array."""
        if self.is_torch:
            return self.torch.linalg.vector_norm(a)
        return self.xp.linalg.norm(a)

    def vdot(self, a, b):
        if self.is_torch:
            return self.torch.dot(a.reshape(-1), b.reshape(-1))
        return self.xp.vdot(a, b)

    def stack(self, arrays, axis):
        if self.is_torch:
            return self.torch.stack(arrays, dim=axis)
        return self.xp.stack(arrays, axis=axis)

    def segment_sum(self, values, labels, count):
        """np.bincount(labels, weights=values, minlength=count) for 1-D values, one bincount per
        column stacked for 2-D values, and np.bincount(labels, minlength=count) as float64 for
        values None: bincount in NumPy and CuPy, index_add in PyTorch, segment_sum in JAX."""
        if self.is_torch:
            if values is None:
                values = self.torch.ones(labels.shape[0], dtype=self.f64, device=self.device)
            base = self.torch.zeros((count,) + tuple(values.shape[1:]), dtype=self.f64, device=self.device)
            return base.index_add(0, labels, values)
        if self.is_jax:
            import jax

            if values is None:
                values = self.xp.ones(labels.shape[0], dtype=self.f64)
            return jax.ops.segment_sum(values, labels, num_segments=count)
        xp = self.xp
        if values is None:
            return xp.bincount(labels, minlength=count).astype(self.f64)
        if values.ndim == 1:
            return xp.bincount(labels, weights=values, minlength=count)
        return xp.stack([xp.bincount(labels, weights=values[:, d], minlength=count) for d in range(values.shape[1])], 1)

    # ---- writes, loops, compiled parts, reading back

    def put(self, a, index, value):
        if self.is_jax:
            return a.at[index].set(value)
        if self.functional:  # numpy-functional: JAX's semantics with NumPy (a new array every write)
            a = a.copy()
        a[index] = value
        return a

    def iadd(self, a, value):  # a += value
        if self.functional:
            return a + value
        a += value
        return a

    def isub(self, a, value):  # a -= value
        if self.functional:
            return a - value
        a -= value
        return a

    def fori(self, count, body, x):
        """x = body(x) `count` times: lax.fori_loop in JAX (one compiled loop, not unrolled)."""
        if self.is_jax:
            import jax

            return jax.lax.fori_loop(0, count, lambda i, x: body(x), x)
        for _ in range(count):
            x = body(x)
        return x

    def part(self, fn, dynamic=False):
        """fn compiled on its own by torch.compile where the app compiles parts (torch-compile),
        fn itself elsewhere (JAX compiles the whole step around it)."""
        if self.compile_parts:
            return self.torch.compile(fn, dynamic=dynamic)
        return fn

    def item(self, a):
        return float(self.env.host(a))

    def item_int(self, a):
        return int(self.env.host(a))

