"""Calls of what is neither the checked tree nor the runtime: builtins and other libraries.

Only what changes where values flow is modelled (``list``, ``zip``, ``map``, ``getattr``,
``functools.partial``, ...) and the functions that read a tensor's data (``float``,
``np.asarray``); every other call gives an unknown value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import libcst as cst

from dispatch_lint.analyzer.dataflow.conditions import TRACED_TEST
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Accessor,
    Box,
    Closure,
    Const,
    Dev,
    Inst,
    Partial,
    Record,
    Ref,
    Str,
    Sym,
    Ten,
    Trace,
    Tup,
    Value,
    has_tensor,
    is_tensorish,
    join_all,
    narrow_capture,
    narrow_not_capture,
    replace_fields,
)
from dispatch_lint.frameworks import dispatch

#: Classes whose instances are attribute bags made from keywords: a namespace's attributes
#: are kept as the items of a container (kind "ns") under their names.
_NAMESPACES = frozenset({"types.SimpleNamespace", "argparse.Namespace"})

#: Functions that never return normally: code after their call is dead.
_NO_RETURN = frozenset({"sys.exit", "os._exit", "os.abort", "builtins.exit", "builtins.quit"})


#: asyncio functions whose result is (or, awaited, gives) their first argument's result.
#: The operator module's binary arithmetic, as the operator each one applies.
_OPERATOR_FUNCTIONS = {f"operator.{name}": symbol for name, symbol in (
    ("add", "+"), ("sub", "-"), ("mul", "*"), ("truediv", "/"), ("matmul", "@"),
    ("pow", "**"), ("iadd", "+"), ("imul", "*"), ("isub", "-"))}

#: Reads of an environment variable with a default: ``os.environ.get(name, default)``.
_ENVIRONMENT_READS = frozenset({"os.environ.get", "os.getenv"})

#: ArgumentParser methods that read a command line into a namespace.
_PARSE_METHODS = frozenset({"parse_args", "parse_known_args", "parse_intermixed_args",
                            "parse_known_intermixed_args"})

_AWAITS_FIRST = frozenset({"asyncio.run", "asyncio.create_task", "asyncio.ensure_future",
                           "asyncio.wait_for", "asyncio.shield"})

#: The operator module's functions that reach into their argument (see :class:`Accessor`).
_ACCESSORS = {"operator.methodcaller": "method", "operator.attrgetter": "attr",
              "operator.itemgetter": "item"}

#: Marks of a ``singledispatch`` function's implementations: its base function, and one
#: registered by its annotation (the analysis does not read the type there).
_BASE, _ANY = "<base>", "<annotated>"

#: Decorators that make a function dispatch on its first argument's type.
DISPATCHERS = frozenset({"functools.singledispatch", "functools.singledispatchmethod"})

#: Pools that run the functions they are given: an executor (container kind "executor")
#: whose ``submit`` gives a future (kind "future") holding the function's result.
_EXECUTORS = frozenset({"concurrent.futures.ThreadPoolExecutor",
                        "concurrent.futures.ProcessPoolExecutor",
                        "concurrent.futures.thread.ThreadPoolExecutor",
                        "concurrent.futures.process.ProcessPoolExecutor"})


#: the builtin functions ``sorted(..., key=f)`` may order known constants by
_SORT_KEYS: dict[str, Callable[[Any], Any]] = {
    "builtins.len": len, "builtins.str": str, "builtins.abs": abs,
}


#: the builtins that make a list (or set, iterator) of their argument's items
_COPIES = frozenset({"list", "tuple", "sorted", "reversed", "iter", "set", "frozenset"})


class ExternalCalls:
    """Calls of builtins and of libraries outside the checked tree."""

    def call_external(self, qualname: str, args: tuple[Value, ...], kwargs: dict[str, Value],
                      node: cst.Call) -> Value:
        if qualname in _NO_RETURN:
            self.diverged = True
            return EMPTY
        if qualname == "collections.ChainMap" and not kwargs:
            return self.chain_map(args, node)
        if qualname == "collections.deque":  # a list with two open ends (maxlen aside)
            return self.box_of("list", node, self.elements(args[0]) if args else EMPTY)
        if qualname.startswith("builtins."):
            name = qualname[len("builtins."):]
            if name in dispatch.DATA_READ_BUILTINS and args and has_tensor(args[0]):
                self.emit("read", (args[0].filter(is_tensorish),), f"{name}()", node,
                          "read by `{code}`")
                return Value.of(UNKNOWN)
            if name == "format" and len(args) > 1 and has_tensor(args[0]) and not all(
                    a == Str("") for a in args[1]):  # format(t, "") is str(t)
                self.emit("read", (args[0].filter(is_tensorish),), "format()", node,
                          "read by `{code}`")
                return Value.of(UNKNOWN)
            if "key" in kwargs and args and name in ("max", "min", "sorted"):
                self.call_value(kwargs["key"], (self.elements(args[0]),), {}, node)
            if name in _COPIES:
                keys = self.dict_keys_in_order(args[0]) if args else None
                if name == "sorted" and args:
                    ordered = self.sorted_constants(args[0], kwargs, keys)
                    if ordered is not None:  # `sorted(CREATORS, key=len)`: in their order
                        return self.list_of(node, ordered)
                if keys is not None and name in ("list", "tuple"):
                    return self.list_of(node, keys)  # `list(d)`: its keys in order
                known = self.known_items(args[0]) if args else None
                if name == "list" and known is not None and len(args) == 1 and not kwargs:
                    return self.list_of(node, list(known))  # a copy, item by item
                made = self.box_of("list", node, self.elements(args[0]) if args else EMPTY)
                # the same items in an order that is not known (a set, a sort by a lambda,
                # a copy of such a list): what functools.reduce folds
                items = (known or (tuple(keys) if keys else None)) if name != "list" else None
                if not items:
                    items = self.permuted_items(args[0]) if args else None
                if items is not None:
                    self.permuted[next(iter(made))] = items  # type: ignore[index]
                return made
            if name == "next" and args:
                return self.elements(args[0]) or Value.of(UNKNOWN)
            if name == "len" and len(args) == 1 and not kwargs:
                items = self.known_items(args[0])  # `i == len(stages) - 1` tells the last
                return Value.of(Const(len(items)) if items is not None else UNKNOWN)
            if name == "enumerate" and args:
                items = self.iterated_items(args[0])
                if items is not None and len(args) == 1 and not kwargs:
                    return self.list_of(node, [Value.of(Tup((Value.of(Const(i)), item)))
                                               for i, item in enumerate(items)])
                return self.box_of("list", node, Value.of(Tup((Value.of(UNKNOWN),
                                                               self.elements(args[0])))))
            if name == "zip" and args:
                known = [self.iterated_items(a) for a in args]
                if all(k is not None for k in known):  # pairs in order, as they are zipped
                    return self.list_of(node, [Value.of(Tup(tuple(k[i] for k in known)))
                                               for i in range(min(len(k) for k in known))])
                if any(k is not None for k in known) and all(
                        k is not None or (len(a) == 1 and isinstance(next(iter(a)), Box)
                                          and next(iter(a)).kind == "list")
                        or (a and all(isinstance(atom, Ten) for atom in a))
                        for k, a in zip(known, args)):
                    # names zipped with a list of unknown length, or with what a program's
                    # run gives (a tensor, or a tuple of them): each pair takes the item at
                    # its index (`dict(zip(names, [head] + rest))`)
                    size = min(len(k) for k in known if k is not None)
                    return self.list_of(node, [Value.of(Tup(tuple(
                        k[i] if k is not None else self.item(a, i, node)
                        for k, a in zip(known, args)))) for i in range(size)])
                return self.box_of("list", node, Value.of(Tup(tuple(
                    self.elements(a) or Value.of(UNKNOWN) for a in args))))
            if name == "map" and len(args) == 2 and not kwargs:
                known = self.known_items(args[1])
                items = known if known is not None else self.permuted_items(args[1])
                if items is not None:
                    # item by item (`map(heads.__getitem__, ranked)`): in order when known,
                    # else the same items in an order that is not
                    mapped = [self.call_value(args[0], (item,), {}, node) for item in items]
                    return self.list_of(node, mapped) if known is not None else \
                        self.permuted_list(node, mapped)
            if name == "filter" and len(args) == 2 and not kwargs and (
                    keys := self.iterated_items(args[1])) is not None and (
                    kept := self.filtered_keys(args[0], keys)) is not None:
                return self.list_of(node, kept)
            if name in ("map", "filter") and len(args) > 1:
                result = self.call_value(args[0], (self.elements(args[1]),), {}, node)
                return self.box_of("list", node, result if name == "map" else
                                   self.kept_by(args[0], self.elements(args[1])))
            if name in ("str", "repr") and len(args) == 1 and not kwargs:
                return self.device_name(args[0])
            if name == "sum" and args:
                return self.builtin_sum(args, kwargs, node)
            if name in ("max", "min") and args:
                return self.elements(args[0]).filter(is_tensorish) or Value.of(UNKNOWN)
            if name == "getattr" and len(args) >= 2:
                # a name the caller passed counts too (`getattr(dispatch, name)()`)
                names = [a.text for a in self.constants(args[1]) if isinstance(a, Str)]
                if len(names) == 1:
                    return self.attribute(args[0], names[0], node)
            if name == "setattr" and len(args) == 3:
                names = [a.text for a in args[1] if isinstance(a, Str)]
                if names and len(names) == len(args[1]):
                    for attr in names:
                        # one of a few names: each field may keep what it held
                        held = self.attribute(args[0], attr, node) if len(names) > 1 else EMPTY
                        self.store_attr(args[0], attr, args[2].join(held))
                return Value.of(Const(None))
            if name == "vars" and len(args) == 1:
                return self.fields_dict(args[0], node)
            if name == "isinstance" and len(args) == 2:
                return self.isinstance_value(args[0], args[1])
            if name == "super":
                return self.program.super_value(self)
            if name == "type" and len(args) == 1 and not kwargs:
                return self.class_of(args[0], node)  # `type(self)(...)`: a new instance
            if name == "dict":
                return self.dict_call(args, kwargs, node)
            return Value.of(UNKNOWN)
        if qualname in dispatch.DATA_READ_FUNCTIONS and args and has_tensor(args[0]):
            self.emit("read", (args[0].filter(is_tensorish),), qualname.split(".")[-1] + "()",
                      node, "read by `{code}`")
        if qualname in _AWAITS_FIRST and args:
            return args[0]  # the coroutine's result, as `await` gives it
        if qualname == "asyncio.gather":
            box = self.new_box("list", node)
            for index, value in enumerate(args):
                self.store_item(Value.of(box), index, value)
            return Value.of(box)
        if qualname in _ENVIRONMENT_READS and len(args) > 1:
            # `os.environ.get("DEVICE", "numba")`: the default when the variable is not set,
            # else what the environment holds (unknown)
            return args[1].join(Value.of(UNKNOWN))
        if qualname in _ACCESSORS and args:
            return self.accessor(_ACCESSORS[qualname], args, kwargs)
        if qualname in DISPATCHERS and args:
            # `@functools.singledispatch`: a dispatcher whose implementations are a container's
            box = self.new_box("dispatch", node)
            self.store_item(Value.of(box), None, Value.of(Tup((Value.of(Str(_BASE)), args[0]))))
            return Value.of(box)
        if qualname.startswith("itertools.") and args:
            made = self.iterator_tool(qualname[len("itertools."):], args, node)
            if made is not None:
                return made
        if qualname == "collections.namedtuple" and len(args) > 1:
            return self.record_class(args[0], args[1])
        if qualname in _EXECUTORS:
            return Value.of(self.new_box("executor", node))
        if qualname == "concurrent.futures.as_completed" and args:
            return self.box_of("list", node, self.elements(args[0]))
        if qualname == "argparse.ArgumentParser":
            return Value.of(self.new_box("parser", node))
        if qualname in _NAMESPACES and not args:
            # `types.SimpleNamespace(**cfg)`: an object whose attributes are the keywords
            made = self.filled_box("ns", node, sorted(kwargs.items()))
            for box in made:
                self.program.literal_keys.setdefault(box.site, set()).update(kwargs)
            if id(node) in self.open_keywords:
                # `Namespace(**vars(base))` of a mapping whose keys are not known: it has
                # other attributes too, of values not known
                self.store_item(made, None, Value.of(UNKNOWN))
            return made
        if qualname == "dataclasses.replace" and args:
            return self.replaced_instance(args[0], kwargs, node)
        if qualname == "functools.partial" and args:
            return self.bound_partial(args, kwargs, node)
        if qualname in _OPERATOR_FUNCTIONS and len(args) == 2:
            # `functools.reduce(operator.add, ts)`: the operator as its function
            return self.binop(args[0], args[1], node, _OPERATOR_FUNCTIONS[qualname])
        if qualname == "functools.reduce" and len(args) > 1:
            return self.fold(args[0], args[1], args[2] if len(args) > 2 else None, node)
        return Value.of(UNKNOWN)

    def parser_method(self, box: Box, name: str, args: tuple[Value, ...],
                      kwargs: dict[str, Value], node: cst.Call) -> Value:
        """A method of an ``argparse.ArgumentParser``: each option is kept under its
        destination as what the program may see, its default joined with what a command
        line may give (one of its ``choices``, else an unknown value); ``parse_args()``
        gives a namespace holding them. Sub-parsers and groups are the parser itself."""
        target = Value.of(box)
        if name == "add_argument":
            dest = _option_dest(args, kwargs)
            if dest is not None:
                self.store_item(target, dest, self.option_value(dest, args, kwargs, node))
            return Value.of(UNKNOWN)
        if name == "set_defaults":
            held = set(self.program.box_keys(box) or ())
            for key, value in kwargs.items():
                # sub-commands share the parser: each one's default may be the one seen
                old = self.box_content(box, key) if key in held else EMPTY
                self.store_item(target, key, old.join(value))
            return Value.of(Const(None))
        if name in ("add_subparsers", "add_parser", "add_argument_group",
                    "add_mutually_exclusive_group"):
            return target
        if name in _PARSE_METHODS:
            keys = sorted(k for k in self.program.box_keys(box) or () if isinstance(k, str))
            made = self.filled_box("ns", node, [(k, self.box_content(box, k)) for k in keys])
            for ns in made:
                self.program.literal_keys.setdefault(ns.site, set()).update(keys)
            if "known" in name:  # (namespace, the arguments it did not know)
                return Value.of(Tup((made, self.box_of("list", node, Value.of(UNKNOWN)))))
            return made
        return Value.of(UNKNOWN)

    def accessor(self, kind: str, args: tuple[Value, ...], kwargs: dict[str, Value]
                 ) -> Value:
        """``operator.methodcaller(name, ...)``, ``attrgetter(name)``, ``itemgetter(key)``
        with a constant name or key: an :class:`Accessor`; else unknown."""
        if kind == "item":
            key = self.constant_key(args[0])
            if key is None and len(args[0]) == 1 and isinstance(next(iter(args[0])), Const):
                key = next(iter(args[0])).value  # type: ignore[attr-defined]
            if key is None or len(args) > 1:
                return Value.of(UNKNOWN)
            return Value.of(Accessor("item", key))
        names = [a.text for a in self.constants(args[0]) if isinstance(a, Str)]
        if len(names) != 1 or (kind == "attr" and len(args) > 1):
            return Value.of(UNKNOWN)
        return Value.of(Accessor(kind, names[0], args[1:], tuple(sorted(kwargs.items()))))

    def call_accessor(self, accessor: Accessor, args: tuple[Value, ...], node: cst.Call
                      ) -> Value:
        """A call of an :class:`Accessor` on its argument."""
        if not args:
            return Value.of(UNKNOWN)
        if accessor.kind == "method":
            return self.call_attribute(args[0], accessor.name, accessor.args,  # type: ignore
                                       dict(accessor.kwargs), node)
        if accessor.kind == "item":
            return self.item(args[0], accessor.name, node)
        value = args[0]
        for part in str(accessor.name).split("."):
            value = self.attribute(value, part, node)
        return value

    def call_dispatcher(self, box: Box, args: tuple[Value, ...], kwargs: dict[str, Value],
                        node: cst.Call) -> Value:
        """A ``singledispatch`` function (``box`` holds its implementations) called: each
        implementation may run. Its ``register`` (a "registrar" of the same site) adds the
        function it is given, in any of its forms (``@f.register``, ``@f.register(T)``,
        ``f.register(T, func)``), and gives it back."""
        dispatcher = Box("dispatch", box.site)
        if box.kind == "dispatch":
            return self.call_value(self.implementations(dispatcher, args), args, kwargs, node)
        functions = [v for v in args if any(
            isinstance(a, (Closure, Partial)) or isinstance(a, Ref) and a.key is not None
            and not isinstance(a.key, tuple) for a in v)]
        if not functions:
            # `@f.register(list)`: the decorator, which registers for that type
            return Value.of(Partial(Value.of(Box("registrar", box.site)), tuple(args[:1]), ()))
        kind = args[0] if len(args) > 1 else Value.of(Str(_ANY))  # else by its annotation
        self.store_item(Value.of(dispatcher), None, Value.of(Tup((kind, functions[-1]))))
        return functions[-1]

    def implementations(self, dispatcher: Box, args: tuple[Value, ...]) -> Value:
        """The implementations a ``singledispatch`` call may run: those registered for a
        type its first argument certainly has (else every one whose type it may have, the
        base function too); one registered by annotation may always run."""
        entries = [a for a in self.box_content(dispatcher, None) if isinstance(a, Tup)
                   and len(a.items) == 2]
        certain, possible, base = EMPTY, EMPTY, EMPTY
        for entry in entries:
            kind, func = entry.items
            marks = {a.text for a in kind if isinstance(a, Str)}
            if _BASE in marks:
                base = base.join(func)
            elif _ANY in marks or not args:
                possible = possible.join(func)
            else:
                verdict = self.isinstance_value(args[0], kind)
                if verdict == Value.of(Const(True)):
                    certain = certain.join(func)
                elif verdict != Value.of(Const(False)):
                    possible = possible.join(func)
        if certain:
            return certain.join(possible)
        return possible.join(base)

    def device_name(self, value: Value) -> Value:
        """``str(device)`` / ``repr(device)``: the text of a device made nowhere in particular
        (``NumPy()``, ``Autodiff(Numba())``), a name that keys a cache as the device does;
        of a parameter, that name of what the caller passes (a :class:`Sym` projection
        ``"str"``). Capture devices' texts name where they were made: unknown here."""
        out = EMPTY
        for atom, trace in value.items():
            if isinstance(atom, Dev) and not atom.is_capture and atom.kind != "real":
                out = out.join(Value.of(Str(atom.describe())))
            elif isinstance(atom, Sym) and atom.owner == self.owner:
                out = out.join(Value.of(Sym(atom.param, (*atom.proj, "str"), atom.real,
                                            atom.owner), trace))
            else:
                return Value.of(UNKNOWN)
        return out or Value.of(UNKNOWN)

    def iterator_tool(self, name: str, args: tuple[Value, ...], node: cst.Call
                      ) -> Value | None:
        """What iterating an ``itertools`` iterator gives, as a list made at ``node``: the
        elements of the iterables it goes through (``chain``, ``islice``, ``cycle``, ...),
        tuples of them (``product``, ``pairwise``, ``zip_longest``); None for the others."""
        if name == "chain":
            content = join_all(self.elements(a) for a in args)
        elif name == "chain.from_iterable":
            content = self.elements(self.elements(args[0]))
        elif name in ("islice", "cycle", "compress", "repeat"):
            content = args[0] if name == "repeat" else self.elements(args[0])
        elif name in ("takewhile", "dropwhile", "filterfalse") and len(args) > 1:
            content = self.elements(args[1])
        elif name in ("product", "zip_longest"):
            content = Value.of(Tup(tuple(self.elements(a) for a in args)))
        elif name == "pairwise":
            content = Value.of(Tup((self.elements(args[0]), self.elements(args[0]))))
        else:
            return None
        return self.box_of("list", node, content)

    def record_class(self, name: Value, fields: Value) -> Value:
        """``collections.namedtuple(name, fields)``: a :class:`Record` when its field names
        are known (a string of names, or a list or tuple of them)."""
        names: list[str] = []
        if len(fields) == 1 and isinstance(next(iter(fields)), Str):
            names = next(iter(fields)).text.replace(",", " ").split()  # type: ignore[attr-defined]
        else:
            for item in self.known_items(fields) or ():
                texts = [a.text for a in item if isinstance(a, Str)]
                if len(texts) != 1 or len(item) != 1:
                    return Value.of(UNKNOWN)
                names.append(texts[0])
        title = [a.text for a in name if isinstance(a, Str)]
        if not names or not all(n.isidentifier() for n in names):
            return Value.of(UNKNOWN)
        return Value.of(Record(title[0] if len(title) == 1 else "", tuple(names)))

    def record_instance(self, record: Record, args: tuple[Value, ...],
                        kwargs: dict[str, Value]) -> Value:
        """A call of a named tuple's class: its fields from the arguments, in order or by
        name (a default it was declared with is an unknown value)."""
        items = [*args[:len(record.fields)]]
        for name in record.fields[len(items):]:
            items.append(kwargs.get(name, Value.of(UNKNOWN)))
        return Value.of(Tup(tuple(items), record.fields))

    def record_method(self, tup: Tup, trace: Trace | None, name: str,
                      kwargs: dict[str, Value], node: cst.Call) -> Value:
        """``_replace(**changes)`` and ``_asdict()`` of a named tuple's instance."""
        if name == "_replace":
            return replace_fields(Value.of(tup, trace), tuple(kwargs), tuple(kwargs.values()))
        if name == "_asdict":
            made = self.filled_box("dict", node, list(zip(tup.names, tup.items)))
            for box in made:
                self.program.literal_keys.setdefault(box.site, set()).update(tup.names)
            return made
        return Value.of(UNKNOWN)

    def executor_method(self, box: Box, name: str, args: tuple[Value, ...],
                        kwargs: dict[str, Value], node: cst.Call) -> Value:
        """A method of an executor or of a future it gave: ``submit(fn, *args)`` calls
        ``fn`` and gives a future holding its result, ``map(fn, *iterables)`` gives the
        results as ``map`` does; ``future.result()`` is the result, a done-callback is called
        with the future."""
        if box.kind == "executor" and name == "submit" and args:
            result = self.call_value(args[0], args[1:], kwargs, node)
            return self.box_of("future", node, result)
        if box.kind == "executor" and name == "map" and len(args) > 1:
            result = self.call_value(args[0], tuple(self.elements(a) for a in args[1:]), {},
                                     node)
            return self.box_of("list", node, result)
        if box.kind == "future" and name == "result":
            return self.box_content(box, None) or Value.of(UNKNOWN)
        if box.kind == "future" and name == "add_done_callback" and args:
            self.call_value(args[0], (Value.of(box),), {}, node)
            return Value.of(Const(None))
        return Value.of(UNKNOWN)

    def option_value(self, dest: str, args: tuple[Value, ...], kwargs: dict[str, Value],
                     node: cst.Call) -> Value:
        """What ``args.<dest>`` may be: the option's default (None when it has none), or
        what the command line gives (a flag's constant, one of its ``choices``; unknown,
        which is never a device by itself, for an option with neither a constant default
        nor choices)."""
        step = self.step(node, f"option `{dest}` declared by `{{code}}`")
        actions = {a.text for a in kwargs.get("action", EMPTY) if isinstance(a, Str)}
        flags = {"store_true": (False, True), "store_false": (True, False)}
        if actions and actions <= set(flags):
            values = {v for action in actions for v in flags[action]}
            return join_all(Value.of(Const(v), Trace(step)) for v in sorted(values))
        positional = bool(args) and all(isinstance(a, Str) and not a.text.startswith("-")
                                        for a in args[0])
        default = kwargs.get("default")
        if default is None:
            default = EMPTY if positional else Value.of(Const(None))
        given = self.elements(kwargs["choices"]) if "choices" in kwargs else EMPTY
        if "const" in kwargs:
            given = given.join(kwargs["const"])
        if not given and not (default and all(isinstance(a, (Const, Str)) for a in default)):
            given = Value.of(UNKNOWN)
        # a constant default stands for what the command line may give besides its choices:
        # flags like it decide branches in the functions the namespace is passed to
        return default.join(given).map_traces(step)

    def replaced_instance(self, obj: Value, changes: dict[str, Value], node: cst.Call
                          ) -> Value:
        """``dataclasses.replace(obj, **changes)``: for each instance ``obj`` may be, a new one
        made at ``node`` with its fields, those named in ``changes`` changed."""
        out = EMPTY
        for atom, trace in obj.items():
            if not isinstance(atom, Inst):
                continue
            made = self.program.new_instance(atom.cls, self, node)
            names = set(self.program.instance_fields(atom)) | set(
                self.program.generated_fields(atom.cls) or ()) | set(changes)
            for name in sorted(names):
                value = changes.get(name)
                if value is None:
                    value = self.attribute(Value.of(atom, trace), name, node)
                self.store_attr(Value.of(made), name, value)
            out = out.join(Value.of(made, trace))
        return out or Value.of(UNKNOWN)

    def builtin_sum(self, args: tuple[Value, ...], kwargs: dict[str, Value], node: cst.Call
                    ) -> Value:
        """``sum(items, start)``: ``start + item`` for each item in turn (item by item when
        the items are known, else each with the start), each sum a tensor operation."""
        start = args[1] if len(args) > 1 else kwargs.get("start")
        items = self.known_items(args[0])
        if items is None:
            elements = self.elements(args[0]).filter(is_tensorish)
            if start is not None and has_tensor(start):
                return self.binop(start, elements, node, "+") if elements else start
            return elements or Value.of(UNKNOWN)
        total = start if start is not None else Value.of(Const(0))
        for item in items:
            total = self.binop(total, item, node, "+")
        return total.filter(is_tensorish) or Value.of(UNKNOWN)

    def dict_call(self, args: tuple[Value, ...], kwargs: dict[str, Value], node: cst.Call
                  ) -> Value:
        """``dict(pairs, **kwargs)`` / ``dict(mapping)``: each value under its constant key
        when the pairs are known (``dict(zip(names, tensors))``), else in the shared slot."""
        # `dict(name=value, ...)`: no pairs but its keywords
        pairs = self.known_items(args[0]) if len(args) == 1 else () if not args else None
        if pairs is None and len(args) == 1 and len(args[0]) == 1:
            held = next(iter(args[0]))
            if isinstance(held, Box) and held.kind == "dict":
                known = self.known_pairs(held)  # a copy of a dict of known keys
                pairs = tuple(known) if known is not None else None
        keyed: list[tuple[object, Value]] = []
        for pair in pairs or ():
            key = [a for a in pair if isinstance(a, Tup) and len(a.items) == 2]
            name = self.constant_key(key[0].items[0]) if len(key) == len(pair) == 1 else None
            if not isinstance(name, str):
                break
            keyed.append((name, key[0].items[1]))
        else:
            if pairs is not None:
                # a keyword replaces the pair of the same key (`dict(raw, device="numba")`)
                entries = list({**dict(keyed), **kwargs}.items())
                made = self.filled_box("dict", node, entries)
                # it certainly holds each key it was made with, as a literal does
                for box in made:
                    self.program.literal_keys.setdefault(box.site, set()).update(
                        name for name, _ in entries)
                return made
        content = join_all(kwargs.values())
        for arg in args[:1]:
            for atom in self.elements(arg):
                if isinstance(atom, Tup) and len(atom.items) == 2:
                    content = content.join(atom.items[1])  # a (key, value) pair
            for atom in arg:
                if isinstance(atom, Box) and atom.kind == "dict":
                    content = content.join(self.box_content(atom, None))  # a copy
        return self.box_of("dict", node, content)

    def chain_map(self, maps: tuple[Value, ...], node: cst.Call) -> Value:
        """``ChainMap(cli, env, defaults)``: a dict whose key ``k`` is the first map's that
        holds it. A map that certainly holds ``k`` (its literal's key) ends the search; one
        that may (its keys are not all known) adds what it may hold; one whose keys are
        known and lack ``k`` is skipped. The keys no map certainly holds stay open."""
        if not maps or not all(len(m) == 1 and isinstance(b := next(iter(m)), Box)
                               and b.kind == "dict" for m in maps):
            return self.box_of("dict", node, join_all(self.contents(m) for m in maps))
        boxes = [next(iter(m)) for m in maps]
        open_maps = [self.program.read(("grown", b.site)) is not None for b in boxes]
        names = sorted({k for b in boxes for k in self.program.box_keys(b)
                        if isinstance(k, str)})
        entries: list[tuple[object, Value]] = []
        for name in names:
            value = EMPTY
            for box, is_open in zip(boxes, open_maps):
                if not is_open and name not in self.program.box_keys(box):
                    continue  # known keys without this one
                value = value.join(self.box_content(box, name))
                if not is_open and self.program.holds_key(box, name):
                    break  # certainly here: later maps are not read for it
            entries.append((name, value))
        if any(open_maps):  # other keys too, from the open maps
            entries.append((None, join_all(self.contents(Value.of(b)) for b, is_open
                                           in zip(boxes, open_maps) if is_open)))
        made = self.filled_box("dict", node, entries)
        certain = {name for name in names if any(
            self.program.holds_key(b, name) for b in boxes)}
        for box in made:
            self.program.literal_keys.setdefault(box.site, set()).update(certain)
        return made

    def bound_partial(self, args: tuple[Value, ...], kwargs: dict[str, Value],
                      node: cst.Call) -> Value:
        """``functools.partial(f, *args, **kwargs)``: ``f`` with its arguments bound, each
        trace saying where."""
        step = self.step(node, "bound by `{code}`")
        return Value.of(Partial(args[0], tuple(a.map_traces(step) for a in args[1:]),
                                tuple((k, v.map_traces(step))
                                      for k, v in sorted(kwargs.items()))))

    def sorted_constants(self, iterable: Value, kwargs: dict[str, Value],
                         keys: list[Value] | None) -> list[Value] | None:
        """The items ``sorted(iterable, key=..., reverse=...)`` gives, in order, when they
        are known constants (``keys``: a dict's keys, else a tuple of names) sorted by
        themselves or by a builtin key (``len``, ``str``, ``abs``) in a known direction;
        else None."""
        items = keys or self.known_items(iterable)
        if not items or not all(len(item) == 1 for item in items) or set(kwargs) - {
                "key", "reverse"}:
            return None
        plain: list[object] = []
        for item in items:
            atom = next(iter(item))
            if isinstance(atom, Str):
                plain.append(atom.text)
            elif isinstance(atom, Const) and isinstance(atom.value, (int, float, str)):
                plain.append(atom.value)
            else:
                return None
        key = None
        if "key" in kwargs:
            funcs = list(kwargs["key"])
            if len(funcs) != 1 or not isinstance(funcs[0], Ref) or \
                    funcs[0].qualname not in _SORT_KEYS or funcs[0].bound is not None:
                return None
            key = _SORT_KEYS[funcs[0].qualname]
        reverse = False
        if "reverse" in kwargs:
            flags = list(kwargs["reverse"])
            if len(flags) != 1 or not isinstance(flags[0], Const):
                return None
            reverse = bool(flags[0].value)
        try:
            order = sorted(range(len(plain)), key=lambda i: key(plain[i]) if key else plain[i],
                           reverse=reverse)
        except TypeError:  # mixed kinds: Python raises too
            return None
        return [items[i] for i in order]

    def kept_by(self, predicate: Value, elements: Value) -> Value:
        """The elements ``filter(predicate, ...)`` keeps: narrowed when the predicate is a
        guard (``lambda t: not is_capture(t)``, see ``Summary.guard``)."""
        found = self.filter_guard(predicate)
        if found is None:
            return elements
        guard, narrow = found
        if not guard[1]:
            return narrow(elements)
        if guard[1].startswith("[in "):
            return self.kept_keys(predicate, guard[1][4:-1], narrow, elements)
        position = int(guard[1][1:-1])  # `lambda kv: not kv[1].is_capture`: that item
        out = EMPTY
        for atom, trace in elements.items():
            if isinstance(atom, Tup) and -len(atom.items) <= position < len(atom.items):
                items = list(atom.items)
                items[position] = narrow(items[position])
                atom = Tup(tuple(items))
            out = out.join(Value.of(atom, trace))
        return out

    def filter_guard(self, predicate: Value
                     ) -> tuple[tuple[int, str, bool, str], Callable[[Value], Value]] | None:
        """The guard the ``filter`` predicate is (see ``Summary.guard``), over its argument or
        an item of it, and the narrowing of what it keeps; None when it is none."""
        guards = set()
        for atom in predicate:
            info = self.program.funcs.get(atom.key) if isinstance(atom, (Ref, Closure)) else None
            if info is None:
                return None
            summary = self.program.summary(info, atom if isinstance(atom, Closure) else None)
            guards.add(summary.guard)
        guard = guards.pop() if len(guards) == 1 else None
        if guard is None or guard[0] != 0 or (guard[1] and not guard[1].startswith("[")):
            return None
        if guard[3] == TRACED_TEST:
            # kept when it is a tracer: a tracer or a concrete array alike
            return guard, (lambda v: v) if guard[2] else self.untraced
        return guard, narrow_capture if guard[2] else narrow_not_capture

    def filtered_keys(self, predicate: Value, keys: tuple[Value, ...]) -> list[Value] | None:
        """``filter(lambda n: is_capture(outputs[n]), names)`` over known constant names:
        the names it keeps, in order, when the test is decided for each; else None."""
        found = self.filter_guard(predicate)
        if found is None or not found[0][1].startswith("[in "):
            return None
        guard, narrow = found
        held = _closed_over(predicate, guard[1][4:-1])
        if held is None:
            return None
        kept = []
        for key in keys:
            passes = self.key_passes(held, next(iter(key)), narrow) if len(key) == 1 else None
            if passes is None:
                return None
            if passes:
                kept.append(key)
        return kept

    def kept_keys(self, predicate: Value, container: str,
                  narrow: Callable[[Value], Value], elements: Value) -> Value:
        """The keys ``filter(lambda n: is_real(outputs[n]), names)`` keeps: a constant key
        under which every tensor the closed-over container may hold fails the test goes
        (the others stay, and what the container holds under them is found as it is)."""
        held = _closed_over(predicate, container)
        if held is None:
            return elements  # a global or a name of the predicate's own
        out = EMPTY
        for atom, trace in elements.items():
            if self.key_passes(held, atom, narrow) is not False:
                out = out.join(Value.of(atom, trace))
        return out

    def key_passes(self, held: Value, key: object, narrow: Callable[[Value], Value]
                   ) -> bool | None:
        """Whether the test ``narrow`` stands for passes for what ``held`` holds under the
        constant ``key``: False when every tensor there fails it, True when every one passes
        it, None when that is not known."""
        if not isinstance(key, Str) or self.anchor is None:
            return None
        item = self.get_item(held, key.text, self.anchor)
        if not item or not all(isinstance(a, (Ten, Dev)) for a in item):
            return None
        kept = narrow(item)
        return False if not kept else True if len(kept) == len(item) else None

    def fold(self, func: Value, sequence: Value, initial: Value | None, node: cst.Call
             ) -> Value:
        """``functools.reduce(func, sequence, initial)``: the accumulator starts as
        ``initial`` (else the first element) and takes each result in turn; two steps reach
        what more would (the values only grow)."""
        items = self.known_items(sequence)
        if items is None:
            items = self.permuted_items(sequence)
        if items is not None and (items or initial is not None):
            # item by item (a sorted list's items in their first order: any order meets
            # the same devices)
            accumulator = items[0] if initial is None else initial
            for item in items[1 if initial is None else 0:]:
                accumulator = self.call_value(func, (accumulator, item), {}, node)
            return accumulator
        elements = self.elements(sequence)
        accumulator = self.item(sequence, 0) if initial is None else initial
        for _ in range(2):
            accumulator = accumulator.join(self.call_value(func, (accumulator, elements), {},
                                                           node))
        return accumulator



def _option_dest(args: tuple[Value, ...], kwargs: dict[str, Value]) -> str | None:
    """The attribute ``add_argument(*flags, dest=...)`` sets: ``dest``, else the first long
    flag (else the first flag) without its dashes, dashes inside made underscores."""
    dest = [a.text for a in kwargs.get("dest", EMPTY) if isinstance(a, Str)]
    if len(dest) == 1:
        return dest[0]
    flags = [a.text for value in args for a in value if isinstance(a, Str)]
    if not flags or len(flags) != len(args):
        return None
    long = [f for f in flags if f.startswith("--")]
    return (long or flags)[0].lstrip("-").replace("-", "_") or None


def _closed_over(predicate: Value, name: str) -> Value | None:
    """What the closures ``predicate`` may be hold under the free name ``name`` (a
    container a ``filter`` predicate tests the items of); None when one does not close
    over it (a global, or a name of its own)."""
    held = EMPTY
    for atom in predicate:
        captured = dict(atom.captured) if isinstance(atom, Closure) else {}
        if name not in captured:
            return None
        held = held.join(captured[name])
    return held
