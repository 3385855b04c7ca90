"""The JAX model: tracers, the functions JAX traces, and the operations that break on them.

A function is traced when a transform (``jax.jit``, ``jax.vmap``, ``jax.grad``, ...) is given
it and the result is called, or when a control-flow primitive (``jax.lax.scan``, ``cond``,
...) is given it; inside, every parameter the transform traces is a *tracer*, and so is every
JAX result (``jax.numpy``, ``jax.lax``, ``jax.random``, ``jax.nn``, even from constants).
Under ``jit``, ``vmap``, ``pmap``, ``checkpoint`` and the ``lax`` bodies tracers are
*abstract*; under the differentiation transforms alone they carry their values (*concrete*),
so that ``bool()``, ``int()``, ``if`` and shapes work while ``float()`` and NumPy conversions
still break. Error names and which kind each sink breaks on were checked by running JAX 0.10
on CPU (see ``../shared/FRAMEWORKS.md``). The interpreter's half is
:mod:`dispatch_lint.analyzer.dataflow.traces`.
"""

from __future__ import annotations

from dispatch_lint.frameworks.model import (
    ABSTRACT,
    CONCRETE,
    Body,
    FrameworkModel,
    Shape,
    Sink,
    Transform,
    sinks_table,
)

__all__ = ["MODEL"]

_ONLY_ABSTRACT = frozenset({ABSTRACT})

# ------------------------------------------------------------------ contexts and sources

_JIT = Transform(ABSTRACT, static=("static_argnums", "static_argnames"))
_CHECKPOINT = Transform(ABSTRACT, static=("static_argnums",))
_DIFFERENTIATE = Transform(CONCRETE, positional=("argnums",), traced_only="argnums")
_CUSTOM = Transform(CONCRETE, concrete_inputs=True)

TRANSFORMS: dict[str, Transform] = {
    "jax.jit": _JIT,
    # vmap batches what depends on its arguments and computes the rest at once (jax 0.10.2)
    "jax.vmap": Transform(ABSTRACT, positional=("in_axes", "out_axes"), unmapped="in_axes",
                          stages=False),
    "jax.pmap": Transform(ABSTRACT, positional=("axis_name",),
                          static=("static_broadcasted_argnums",), unmapped="in_axes"),
    "jax.grad": _DIFFERENTIATE,
    "jax.value_and_grad": _DIFFERENTIATE,
    "jax.jacfwd": _DIFFERENTIATE,
    "jax.jacrev": _DIFFERENTIATE,
    "jax.jacobian": _DIFFERENTIATE,
    "jax.hessian": _DIFFERENTIATE,
    "jax.checkpoint": _CHECKPOINT,
    "jax.remat": _CHECKPOINT,
    "jax.ad_checkpoint.checkpoint": _CHECKPOINT,
    "jax.make_jaxpr": Transform(ABSTRACT, static=("static_argnums",), concrete_result=True),
    "jax.custom_jvp": _CUSTOM,
    "jax.custom_vjp": _CUSTOM,
}

#: Calls that trace the functions they are given at once: every parameter they pass is a
#: tracer (``passes``: how many arguments lax gives each one; ``operands``: the call's own).
BODIES: dict[str, Body] = {
    "jax.lax.scan": Body((0, "f"), passes=2),
    "jax.lax.fori_loop": Body((2, "body_fun"), passes=2),
    "jax.lax.while_loop": Body((0, 1, "cond_fun", "body_fun"), passes=1),
    "jax.lax.cond": Body((1, 2, "true_fun", "false_fun"), operands=3),
    "jax.lax.switch": Body((), sequences=(1, "branches"), operands=2),
    "jax.lax.map": Body((0, "f"), passes=1),
    "jax.eval_shape": Body((0, "fun"), arguments=1),
    "jax.jvp": Body((0, "fun"), kind=CONCRETE),
    "jax.vjp": Body((0, "fun"), kind=CONCRETE),
    "jax.linearize": Body((0, "fun"), kind=CONCRETE),
}

# ---------------------------------------------------------------------------- propagation

#: Inside a trace, every result of a call under these is a tracer (JAX stages everything).
TRACED_NAMESPACES = ("jax",)

#: ... except the machinery of JAX itself: traces, abstract values, jaxprs, versions, types
#: (checked with jax 0.10: `jax.core.find_top_trace(())`, `jax.api_util.debug_info(...)`).
INTERNAL_NAMESPACES = (
    "jax.core", "jax.extend", "jax.api_util", "jax.interpreters", "jax.version", "jax.typing",
    "jax.sharding", "jax.stages", "jax.errors", "jax.config", "jax.monitoring", "jax.profiler",
    "jax.util", "jax._src",
)

#: ... and these, which answer about types, shapes and the machine.
CONCRETE_FUNCTIONS = frozenset(
    {
        "jax.numpy.shape", "jax.numpy.ndim", "jax.numpy.size", "jax.numpy.issubdtype",
        "jax.numpy.result_type", "jax.numpy.finfo", "jax.numpy.iinfo", "jax.numpy.dtype",
        "jax.numpy.can_cast", "jax.numpy.promote_types", "jax.numpy.isdtype",
        "jax.numpy.iscomplexobj", "jax.numpy.isrealobj", "jax.numpy.isscalar",
        "jax.dtypes.canonicalize_dtype", "jax.dtypes.result_type", "jax.dtypes.issubdtype",
        "jax.tree_util.tree_structure", "jax.tree.structure", "jax.ShapeDtypeStruct",
        "jax.device_count", "jax.local_device_count", "jax.devices", "jax.local_devices",
        "jax.process_index", "jax.process_count", "jax.default_backend",
        "jax.debug.print", "jax.debug.callback", "jax.debug.breakpoint",
        "jax.block_until_ready", "jax.lax.broadcast_shapes", "jax.numpy.broadcast_shapes",
        "jax.eval_shape", "jax.typeof",
    }
)  # fmt: skip

#: Attributes of a tracer that are concrete Python values.
CONCRETE_ATTRIBUTES = frozenset(
    {"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "aval", "weak_type", "sharding"}
)

#: Attributes of a tracer that are tracers (any other attribute says the value is not an
#: array but a container of them, a pytree node: what it holds is not followed).
TRACED_ATTRIBUTES = frozenset({"T", "mT", "at", "real", "imag", "flat"})

#: Methods of a JAX array that give an array (the sinks apart: ``item``, ``tolist``).
ARRAY_METHODS = frozenset(
    {
        "all", "any", "argmax", "argmin", "argpartition", "argsort", "astype", "choose",
        "clip", "compress", "conj", "conjugate", "copy", "cumprod", "cumsum", "cumulative_sum",
        "diagonal", "dot", "flatten", "get", "max", "mean", "min", "nonzero", "prod", "ptp",
        "ravel", "repeat", "reshape", "round", "searchsorted", "set", "add", "multiply",
        "divide", "power", "sort", "squeeze", "std", "sum", "swapaxes", "take", "trace",
        "transpose", "var", "view", "block_until_ready", "apply",
        "__getitem__", "__add__", "__sub__", "__mul__", "__truediv__", "__neg__", "__abs__",
        "__pow__", "__matmul__",
    }
)  # fmt: skip

#: Pytree utilities: they restructure their arguments, they compute nothing.
STRUCTURAL_NAMESPACES = ("jax.tree_util", "jax.tree")

#: ... and these, outside them (jax 0.10.2: under jit, vmap and lax.map, jax.device_get(t)
#: is the tracer t, jax.device_get(1.0) the float 1.0, where jax.device_put(1.0) is a tracer).
STRUCTURAL_FUNCTIONS = frozenset({"jax.device_get"})

#: ... of which these give a Python list of the leaves (``if not jax.tree.leaves(params):``
#: tests the list): (items are (path, leaf) pairs, the result is (leaves, treedef)).
LEAF_LISTS: dict[str, tuple[bool, bool]] = {
    "jax.tree.leaves": (False, False),
    "jax.tree_util.tree_leaves": (False, False),
    "jax.tree.leaves_with_path": (True, False),
    "jax.tree_util.tree_leaves_with_path": (True, False),
    "jax.tree.flatten": (False, True),
    "jax.tree_util.tree_flatten": (False, True),
    "jax.tree.flatten_with_path": (True, True),
    "jax.tree_util.tree_flatten_with_path": (True, True),
}

#: Call their function argument (position, then the positions of its arguments; None: all
#: the others) the way Python would: traced only when their caller is.
CALLS_THROUGH: dict[str, tuple[int, tuple[int, ...] | None]] = {
    "jax.lax.associative_scan": (0, (1, 1)),
    "jax.tree_util.tree_map": (0, None),
    "jax.tree.map": (0, None),
}

#: ... of which these give a tree of the structure of their first tree argument.
SAME_STRUCTURE = frozenset({"jax.tree_util.tree_map", "jax.tree.map"})

#: Functions whose function argument runs later on concrete values, outside the trace.
CALLBACKS: dict[str, int] = {
    "jax.debug.callback": 0,
    "jax.pure_callback": 0,
    "jax.experimental.io_callback": 0,
}

# ---------------------------------------------------------------------------------- sinks

_KEEP_TRACED = (
    "keep it a JAX array (jnp functions, jnp.where / jax.lax.cond to choose), or print it "
    "with jax.debug.print / jax.debug.callback"
)
_BRANCH = (
    "branch with jnp.where(cond, a, b) or jax.lax.cond, or pass the value as a static "
    "argument (static_argnums / static_argnames)"
)
_STATIC_SIZE = (
    "sizes and shapes must be static: pass the value with static_argnums / static_argnames, "
    "or compute it from shapes (x.shape[0])"
)
_RETURN = (
    "return the value from the traced function instead of storing it (print or log it "
    "with jax.debug.print / jax.debug.callback)"
)
_FORMAT = (
    "print it with jax.debug.print('{x:.3f}', x=x) or log it with jax.debug.callback, or "
    "format the result outside the traced function"
)

SINKS = sinks_table(
    Sink("float()", "DL003", "ConcretizationTypeError", _KEEP_TRACED),
    Sink("complex()", "DL003", "ConcretizationTypeError", _KEEP_TRACED),
    Sink("int()", "DL003", "ConcretizationTypeError", _STATIC_SIZE, _ONLY_ABSTRACT),
    Sink("bool()", "DL003", "TracerBoolConversionError", _BRANCH, _ONLY_ABSTRACT),
    Sink(".item()", "DL003", "ConcretizationTypeError", _KEEP_TRACED, _ONLY_ABSTRACT),
    Sink(".tolist()", "DL003", "ConcretizationTypeError", _KEEP_TRACED),
    Sink(".__array__()", "DL003", "TracerArrayConversionError", _KEEP_TRACED),
    Sink("math", "DL003", "ConcretizationTypeError",
         "use the jax.numpy function instead (jnp.exp, jnp.sqrt, ...)"),
    Sink("condition", "DL003", "TracerBoolConversionError", _BRANCH, _ONLY_ABSTRACT),
    Sink("format", "DL003", "TypeError (unsupported format string passed to Tracer.__format__)",
         _FORMAT),
    Sink("format()", "DL003",
         "TypeError (unsupported format string passed to Tracer.__format__)", _FORMAT),
    Sink("printf", "DL003", "ConcretizationTypeError", _FORMAT),
    Sink("numpy", "DL003", "TracerArrayConversionError",
         "use jax.numpy inside the traced function (jnp.asarray, jnp.where, ...), or run "
         "NumPy code through jax.pure_callback / jax.debug.callback"),
    Sink("numpy-shape", "DL003", "TypeError (NumPy needs concrete integers)", _STATIC_SIZE,
         _ONLY_ABSTRACT),
    Sink("index", "DL003", "TracerIntegerConversionError",
         "index a JAX array instead (jnp.asarray(values)[i], jax.lax.dynamic_index_in_dim), "
         "or pass the index as a static argument (static_argnums)", _ONLY_ABSTRACT),
    Sink("slice", "DL003", "IndexError (slice entries must be static integers)",
         "use jax.lax.dynamic_slice with a static size, or pass the bounds as static "
         "arguments (static_argnums)", _ONLY_ABSTRACT),
    Sink("shape", "DL003",
         "TypeError (Shapes must be 1D sequences of concrete values of integer type)",
         _STATIC_SIZE, _ONLY_ABSTRACT),
    Sink("size", "DL003", "ConcretizationTypeError", _STATIC_SIZE, _ONLY_ABSTRACT),
    Sink("escape", "DL009", "UnexpectedTracerError", _RETURN),
    Sink("escape-set", "DL009", "TypeError (a tracer is unhashable)", _RETURN),
)

BUILTIN_SINKS = {
    "float": "float()",
    "complex": "complex()",
    "int": "int()",
    "bool": "bool()",
    "format": "format()",
    "range": "index",
    "max": "condition",
    "min": "condition",
    "sorted": "condition",
}

METHOD_SINKS = {
    "item": ".item()",
    "tolist": ".tolist()",
    "__array__": ".__array__()",
    "__float__": "float()",
    "__int__": "int()",
    "__bool__": "bool()",
    "__index__": "index",
    "__complex__": "complex()",
}

#: Functions (or modules: a prefix) that read a concrete value from their arguments.
FUNCTION_SINKS = {"math": "math", "operator.index": "index"}

_SHAPE = (0,)
SHAPES: dict[str, Shape] = {
    **{f"jax.numpy.{name}": Shape(_SHAPE, ("shape",)) for name in ("zeros", "ones", "empty")},
    "jax.numpy.full": Shape(_SHAPE, ("shape",)),
    "jax.numpy.eye": Shape((0, 1), ("N", "M")),
    "jax.numpy.identity": Shape((0,), ("n",)),
    "jax.numpy.tri": Shape((0, 1), ("N", "M")),
    "jax.numpy.reshape": Shape((1,), ("newshape", "shape")),
    "jax.numpy.broadcast_to": Shape((1,), ("shape",)),
    "jax.numpy.resize": Shape((1,), ("new_shape",)),
    "jax.numpy.tile": Shape((1,), ("reps",)),
    "jax.numpy.zeros_like": Shape((), ("shape",)),
    "jax.numpy.ones_like": Shape((), ("shape",)),
    "jax.numpy.full_like": Shape((), ("shape",)),
    "jax.numpy.empty_like": Shape((), ("shape",)),
    "jax.numpy.arange": Shape((0, 1, 2), ("start", "stop", "step"), "size"),
    "jax.numpy.linspace": Shape((2,), ("num",), "size"),
    "jax.numpy.logspace": Shape((2,), ("num",), "size"),
    "jax.numpy.geomspace": Shape((2,), ("num",), "size"),
    "jax.numpy.repeat": Shape((1,), ("repeats",), "size"),
    "jax.numpy.split": Shape((1,), ("indices_or_sections",), "size"),
    "jax.numpy.array_split": Shape((1,), ("indices_or_sections",), "size"),
    "jax.numpy.pad": Shape((1,), ("pad_width",), "size"),
    "jax.nn.one_hot": Shape((1,), ("num_classes",), "size"),
    "jax.random.normal": Shape((1,), ("shape",)),
    "jax.random.uniform": Shape((1,), ("shape",)),
    "jax.random.randint": Shape((1,), ("shape",)),
    "jax.random.exponential": Shape((1,), ("shape",)),
    "jax.random.laplace": Shape((1,), ("shape",)),
    "jax.random.logistic": Shape((1,), ("shape",)),
    "jax.random.cauchy": Shape((1,), ("shape",)),
    "jax.random.gumbel": Shape((1,), ("shape",)),
    "jax.random.rademacher": Shape((1,), ("shape",)),
    "jax.random.bernoulli": Shape((2,), ("shape",)),
    "jax.random.choice": Shape((2,), ("shape",)),
    "jax.random.gamma": Shape((2,), ("shape",)),
    "jax.random.poisson": Shape((2,), ("shape",)),
    "jax.random.dirichlet": Shape((2,), ("shape",)),
    "jax.random.truncated_normal": Shape((3,), ("shape",)),
    "jax.random.beta": Shape((3,), ("shape",)),
    "jax.random.categorical": Shape((3,), ("shape",)),
    "jax.random.multivariate_normal": Shape((3,), ("shape",)),
    "jax.random.split": Shape((1,), ("num",)),
    "jax.lax.full": Shape((0,), ("shape",)),
    "jax.lax.iota": Shape((1,), ("size",)),
    "jax.lax.broadcast": Shape((1,), ("sizes",)),
    "jax.lax.broadcast_in_dim": Shape((1,), ("shape",)),
    "jax.lax.reshape": Shape((1,), ("new_sizes",)),
    "jax.lax.dynamic_slice": Shape((2,), ("slice_sizes",)),
    "jax.lax.dynamic_slice_in_dim": Shape((2,), ("slice_size",)),
    **{f"numpy.{name}": Shape(_SHAPE, ("shape",), "numpy-shape")
       for name in ("zeros", "ones", "empty", "full")},
    "numpy.indices": Shape((0,), ("dimensions",), "numpy-shape"),
    "numpy.eye": Shape((0, 1), ("N", "M"), "numpy-shape"),
    "numpy.identity": Shape((0,), ("n",), "numpy-shape"),
}

#: Methods of a tracer whose arguments are shapes or sizes.
METHOD_SHAPES: dict[str, Shape] = {
    "reshape": Shape((0, 1, 2, 3, 4, 5), ("shape", "newshape")),
    "repeat": Shape((0,), ("repeats",), "size"),
}

#: Other array libraries: with a tracer argument their functions convert it to a NumPy array
#: (TracerArrayConversionError), except those that call the array's own method (np.sum(t)
#: is t.sum()) and those that only look at its type or shape.
FOREIGN_CONVERSIONS = {"numpy": "numpy", "scipy": "numpy"}
FOREIGN_PASSTHROUGH = frozenset(
    f"numpy.{name}" for name in (
        "sum", "mean", "max", "min", "amax", "amin", "prod", "std", "var", "argmax", "argmin",
        "cumsum", "cumprod", "all", "any", "reshape", "transpose", "round", "around", "squeeze",
        "swapaxes", "real", "imag", "flip", "repeat", "argsort", "searchsorted", "moveaxis",
        "array_equal",
    )
)  # fmt: skip
#: NumPy and the namespace that mirrors it: ``isinstance(t, np.ndarray)`` is False for a
#: tracer, so the array-API idiom ``xp = np if isinstance(x, np.ndarray) else jnp`` gives a
#: tracer jax.numpy (checked with jax 0.10: ``isinstance(tracer, (np.ndarray, np.generic))``
#: is False under jit, vmap and grad).
FOREIGN_MIRRORS = {"numpy": "jax.numpy"}
FOREIGN_CONCRETE = frozenset(
    f"numpy.{name}" for name in (
        "shape", "ndim", "size", "isscalar", "iscomplexobj", "isrealobj", "result_type",
        "dtype", "issubdtype", "finfo", "iinfo", "can_cast", "promote_types",
    )
)  # fmt: skip

# ----------------------------------------------------------------------------- sanitizers

#: Calls whose result is concrete on tracers of one kind: under ``grad`` alone,
#: ``stop_gradient`` gives the value itself.
KIND_SANITIZERS = {"jax.lax.stop_gradient": CONCRETE}

#: Under ``grad`` alone what cannot be differentiated is a concrete array: comparisons
#: (``w > 0``) and casts to an integer or boolean dtype (``w.astype(jnp.int32)``), which
#: NumPy and ``float()`` then take (jax 0.10.2).
INTEGER_DTYPES = frozenset(
    f"{prefix}.{name}"
    for prefix in ("jax.numpy", "numpy")
    for name in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                 "bool_", "integer")
) | {"builtins.int", "builtins.bool"}

#: Every tracer is an instance of these, under every transform (jax 0.10.2: under jit, vmap,
#: grad and the lax bodies; a concrete jax array is a jax.Array too, but no Tracer): where
#: ``isinstance(v, jax.core.Tracer)`` is false, ``v`` is concrete.
DATALESS_TYPES = frozenset({"jax.core.Tracer", "jax._src.core.Tracer", "jax.Array",
                            "jax.numpy.ndarray"})

MODEL = FrameworkModel(
    name="jax",
    modules=("jax",),
    # an import of jax or of a module of it (`import jax.numpy as jnp`, `from jax import
    # lax`, `import numpy, jax`); the files it names join through the import graph
    mentions=(b"jax",),
    mention_pattern=rb"(?m)^[ \t]*(?:import|from)[ \t][^\n#]*\bjax\b",
    message="JAX tracers hold no concrete value",
    transforms=TRANSFORMS,
    bodies=BODIES,
    traced_namespaces=TRACED_NAMESPACES,
    internal_namespaces=INTERNAL_NAMESPACES,
    concrete_functions=CONCRETE_FUNCTIONS,
    concrete_attributes=CONCRETE_ATTRIBUTES,
    same_kind_attributes=TRACED_ATTRIBUTES,
    same_kind_methods=ARRAY_METHODS,
    structural_namespaces=STRUCTURAL_NAMESPACES,
    structural_functions=STRUCTURAL_FUNCTIONS,
    leaf_lists=LEAF_LISTS,
    calls_through=CALLS_THROUGH,
    same_structure=SAME_STRUCTURE,
    callbacks=CALLBACKS,
    sinks=SINKS,
    builtin_sinks=BUILTIN_SINKS,
    method_sinks=METHOD_SINKS,
    function_sinks=FUNCTION_SINKS,
    shapes=SHAPES,
    method_shapes=METHOD_SHAPES,
    foreign_conversions=FOREIGN_CONVERSIONS,
    foreign_passthrough=FOREIGN_PASSTHROUGH,
    foreign_concrete=FOREIGN_CONCRETE,
    foreign_mirrors=FOREIGN_MIRRORS,
    kind_sanitizers=KIND_SANITIZERS,
    dataless_types=DATALESS_TYPES,
    kind_comparisons=CONCRETE,
    kind_casts=CONCRETE,
    integer_dtypes=INTEGER_DTYPES,
)
