"""The dispatch runtime's API as the interpreter sees it: devices, tensors, moves, programs.

What each name of ``dispatch_lint.runtime`` does is data in :mod:`dispatch_lint.frameworks.dispatch`;
this module turns it into values and events. The user's own sources, sinks and sanitizers
(``[tool.dispatch-lint]``) are applied here too (:class:`UserModel`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from dispatch_lint.analyzer import model
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Const,
    Dev,
    Place,
    ProgramAtom,
    Site,
    Step,
    Str,
    Sym,
    Ten,
    Trace,
    Traced,
    Value,
    has_tensor,
    is_tensorish,
    join_all,
    narrow_not_capture,
)
from dispatch_lint.frameworks import dispatch

if TYPE_CHECKING:  # pragma: no cover
    from dispatch_lint.analyzer.dataflow.run import FunctionRun


NUMPY_DEVICE = Dev("numpy")
NONE = Const(None)


class RuntimeCalls:
    """Calls of the dispatch runtime and methods of its tensors and devices."""

    def call_api(self, qualname: str, args: tuple[Value, ...], kwargs: dict[str, Value],
                 node: cst.Call) -> Value:
        program = self.program
        name = dispatch.runtime_name(qualname) if program.dispatch_runtime else None
        if name is None:
            if program.traced:
                return self.call_beside_runtime(qualname, args, kwargs, node)
            return self.call_external(qualname, args, kwargs, node)
        if name in dispatch.DEVICE_CLASSES:
            return Value.of(self.make_device(dispatch.DEVICE_CLASSES[name], node),
                            Trace(self.step(node, "device made by `{code}`")))
        if name == "Autodiff":
            inner = self.as_device(args[0] if args else kwargs.get("inner", EMPTY), node)
            return self.autodiff_device(self.device_of_caller(inner, node), node)
        if name == "device":
            made = self.as_device(args[0] if args else kwargs.get("name", EMPTY), node)
            return self.device_of_caller(made, node) or Value.of(UNKNOWN)
        if name in model.CREATORS:
            return self.create_tensor(name, args, kwargs, node)
        if name == "ensure_not_capture":
            if not args:
                return Value.of(UNKNOWN)
            # A guard is a sanitizer; the rules flag it only on a value that is certainly
            # capture, where it always raises.
            self.emit("ensure_not_capture", (args[0],), name, node, "checked by `{code}`")
            return narrow_not_capture(args[0])
        if name in ("export",) or name == "from_json":
            return Value.of(ProgramAtom())
        if name == "replay":
            self.read_program_inputs(args[1] if len(args) > 1 else kwargs.get("inputs"), node)
            return self.real_result(kwargs.get("device", args[2] if len(args) > 2 else None),
                                    node)
        if name in dispatch.SAME_DEVICE_FUNCTIONS and args:
            tensors = args[0].filter(is_tensorish)
            if len(args) > 1 and has_tensor(args[1]):
                self.emit("binop", (tensors, args[1]), name, node,
                          "combined by `{code}`")
            return tensors or Value.of(UNKNOWN)
        return Value.of(UNKNOWN)

    def call_beside_runtime(self, qualname: str, args: tuple[Value, ...],
                            kwargs: dict[str, Value], node: cst.Call) -> Value:
        """A call outside the runtime while a traced framework is in play: the framework's
        own names (:mod:`.traces`), then what else may meet its values."""
        model = self.program.traced_model_of(qualname)
        if model is not None:
            return self.traced_api(model, qualname, args, kwargs, node)
        if qualname == "functools.partial":
            partial = self.partial_call(args, kwargs, node)
            if partial is not None:
                return partial
        foreign = self.foreign_call(qualname, args, kwargs, node)
        external = self.call_external(qualname, args, kwargs, node)
        return self.host_result(qualname, foreign if foreign is not None else external)

    def tensor_method(self, tensors: Value, name: str, args: tuple[Value, ...],
                      kwargs: dict[str, Value], node: cst.Call) -> Value:
        detail = f".{name}()"
        if name in dispatch.AUTODIFF_METHODS:
            self.emit("autodiff", (tensors,), detail, node, "`{code}` is called")
            if name == "backward":
                return Value.of(UNKNOWN)
            if name == "require_grad":
                return tensors
            return self.map_tensors(tensors, lambda d: d.inner or d, "inner")
        if name == "to_device":
            target_arg = args[0] if args else kwargs.get("device", EMPTY)
            # a caller's string becomes a device here too (`out.to_device(cfg["host"])`)
            target = self.as_device(self.device_of_caller(target_arg, node), node)
            self.emit("move", (tensors, target), detail, node, "moved by `{code}`")
            out = EMPTY
            for atom, trace in tensors.items():
                for dev, dev_trace in target.items():
                    if isinstance(atom, Ten) and atom.dev.is_capture:
                        if dev == atom.dev:
                            out = out.join(Value.of(atom, trace))
                    elif isinstance(dev, Dev):
                        moved = trace.then(self.step(node, f"moved to {dev.describe()}")
                                           ) if trace else dev_trace
                        if trace and _entered(dev_trace):
                            # the device came from the caller (a field of the receiver): so
                            # did where the tensor now is
                            moved = dev_trace.extend(moved)  # type: ignore[union-attr]
                        out = out.join(Value.of(Ten(dev), moved))
                    elif isinstance(dev, Sym):
                        out = out.join(self.project_sym(dev, dev_trace, ("tensor", self.place(
                            node, "moved by `{code}`"))))
            return out or Value.of(UNKNOWN)
        if name in dispatch.DATA_READ_METHODS:
            self.emit("read", (tensors,), detail, node, "read by `{code}`")
            return Value.of(UNKNOWN)
        if name in dispatch.SAME_DEVICE_METHODS:
            for other in args:
                if has_tensor(other):
                    self.emit("binop", (tensors, other), detail, node,
                              "combined by `{code}`")
            return tensors
        if name in dispatch.NON_TENSOR_ATTRIBUTES:
            return Value.of(UNKNOWN)
        if name in ("wrap", "from_inner"):
            # `ad.wrap(t)` where `ad` is a parameter: a tensor on the device the caller gives
            place = self.place(node, "lifted by `{code}`")
            return join_all(self.project_sym(a, t, ("tensor", place))
                            for a, t in tensors.items() if isinstance(a, Sym)) or Value.of(UNKNOWN)
        # An unknown method: for a parameter it may be any object's method; give up quietly.
        return Value.of(UNKNOWN)

    def device_of_caller(self, devices: Value, node: cst.CSTNode) -> Value:
        """``devices`` with each parameter read as a device here (``device(name)``,
        ``Autodiff(base)``: the caller's string becomes a device at this place)."""
        out = EMPTY
        for atom, trace in devices.items():
            if isinstance(atom, Sym) and ("device" not in atom.proj or atom.proj[-1] == "device"):
                # not already a device (`t.device.inner`); `cfg.device` may be a config's
                # string field as well as a tensor's device (a device stays itself): the
                # call that knows which converts it here
                out = out.join(self.project_sym(atom, trace, ("asdev", self.place(node))))
            else:
                out = out.join(Value.of(atom, trace))
        return out

    def map_tensors(self, tensors: Value, change: object, proj: str) -> Value:
        out = EMPTY
        for atom, trace in tensors.items():
            if isinstance(atom, Ten):
                out = out.join(Value.of(Ten(change(atom.dev)), trace))  # type: ignore[operator]
            elif isinstance(atom, Sym):
                out = out.join(self.project_sym(atom, trace, proj))
        return out or Value.of(UNKNOWN)

    def place(self, node: cst.CSTNode, template: str = "", none: str | None = None) -> Place:
        """``node`` of this run, for a conversion a caller's value goes through here
        (``none``: the kind of device the caller's ``None`` stands for, see :class:`Place`)."""
        return Place(self.file, node, template, self.anchor, self.owner, none)

    def make_device(self, kind: str, node: cst.CSTNode, place: Place | None = None) -> Dev:
        """A device of ``kind`` made at ``node`` (or, converting a caller's value, at a
        callee's ``place``): capture devices are told apart by where they are made."""
        if kind == "capture":
            if place is not None:
                file, made, context = place.file, place.node, ()
            else:
                # each item of an unrolled loop makes a device of its own (placeholders
                # without a device in `[placeholder(s, name=n) for n, s in shapes]`)
                file, made, context = self.file, node, tuple(-1 - i for i in self.iteration)
            return Dev("capture", site=self.program.bounded(
                Site(file, id(made), self.site_owner, context)))
        return Dev(kind)

    def as_device(self, value: Value, node: cst.CSTNode, place: Place | None = None) -> Value:
        """The devices ``value`` denotes where a device is expected (strings included)."""
        out = EMPTY
        for atom, trace in value.items():
            if isinstance(atom, Dev):
                out = out.join(Value.of(atom, trace))
            elif isinstance(atom, Str) and atom.text in model.DEVICE_STRINGS:
                kinds = model.DEVICE_STRINGS[atom.text]
                template = f"device made from the string `{atom.text!r}` by `{{code}}`"
                step = place.step(template) if place is not None else self.step(node, template)
                birth = trace.then(step) if trace is not None else Trace(step)
                dev = self.make_device(kinds[-1], node, place)
                if len(kinds) == 2:
                    out = out.join(self.autodiff_device(Value.of(dev, birth), node))
                else:
                    out = out.join(Value.of(dev, birth))
            elif isinstance(atom, Sym):
                out = out.join(Value.of(atom, trace))
        if UNKNOWN in value and out:
            # one of the names may be any (`opts.device` of a namespace whose other fields
            # are not known): no device it makes is certain
            out = out.join(Value.of(UNKNOWN))
        return out

    def autodiff_device(self, inner: Value, node: cst.CSTNode) -> Value:
        devices = inner.filter(lambda a: isinstance(a, (Dev, Sym)))
        if devices:
            self.emit("autodiff_device", (devices,), "Autodiff", node,
                      "wrapped by `{code}`")
        out = EMPTY
        for atom, trace in devices.items():
            if isinstance(atom, Dev):
                out = out.join(Value.of(Dev("autodiff", inner=atom), trace))
            else:
                out = out.join(self.project_sym(atom, trace, ("autodiff", self.place(node))))
        return out or Value.of(Dev("autodiff", inner=Dev("real")))

    def create_tensor(self, name: str, args: tuple[Value, ...], kwargs: dict[str, Value],
                      node: cst.Call) -> Value:
        position = model.CREATORS[name]
        device_arg = kwargs.get("device")
        if device_arg is None and len(args) > position:
            device_arg = args[position]
        # No device (or device=None): NumPy(), or a fresh Capture() for a placeholder.
        none = "capture" if name == "placeholder" else "numpy"
        default = Value.of(self.make_device(none, node))
        if device_arg is None or all(a == NONE for a in device_arg):
            devices = default
        else:
            devices = self.as_device(device_arg, node)
            if NONE in device_arg or (not devices and name == "placeholder"):
                devices = devices.join(default)
        out = EMPTY
        birth = self.step(node, "born from `{code}`")
        for dev, trace in devices.items():
            if isinstance(dev, Dev):
                if dev.is_capture:
                    if self.training_depth:
                        self.emit("training", (Value.of(Ten(dev), Trace(birth)),), "create",
                                  node, "created inside `guards.training()`: `{code}`")
                    self.made_capture = self.made_capture.join(
                        Value.of(Ten(dev), trace.then(birth) if trace else Trace(birth)))
                # a device read from the receiver's fields keeps the step where it entered
                # (Step.via): the caller made the receiver what it is (a trainer switched to
                # capture by its export method, a subclass whose override makes a
                # placeholder), so the finding is its call's
                out = out.join(Value.of(Ten(dev), trace.then(birth) if trace else Trace(birth)))
            elif isinstance(dev, Sym):
                # the caller's None (passed on from its own parameter's default, however
                # many levels) is this creator's default device
                out = out.join(self.project_sym(dev, trace, ("tensor", self.place(
                    node, "born from `{code}`", none))))
            elif dev is UNKNOWN:
                out = out.join(Value.of(UNKNOWN))  # on a device not known
        return out or Value.of(UNKNOWN)

    def read_program_inputs(self, inputs: Value | None, node: cst.CSTNode) -> None:
        """``Program.run(inputs)`` / ``replay(outputs, inputs)`` read the data of the tensors
        the inputs dict holds (a capture tensor there: "program input is a capture tensor")."""
        if not inputs:
            return
        tensors = self.contents(inputs).filter(is_tensorish)
        if tensors:
            self.emit("read", (tensors,), "program input", node, "read as a program input by "
                      "`{code}`")

    def real_result(self, device: Value | None, node: cst.CSTNode) -> Value:
        """The result of ``Program.run`` / ``replay``: real tensors on ``device``."""
        step = self.step(node, "real result of `{code}`")
        devices = self.as_device(device, node) if device is not None else Value.of(NUMPY_DEVICE)
        out = EMPTY
        for dev, trace in devices.items():
            if isinstance(dev, Dev) and not dev.is_capture:
                out = out.join(Value.of(Ten(dev), Trace(step)))
            elif isinstance(dev, Sym):
                # a device the caller gives: real tensors on it, made here
                out = out.join(narrow_not_capture(self.project_sym(dev, trace, (
                    "tensor", self.place(node, "real result of `{code}`", "numpy")))))
        return out or Value.of(Ten(Dev("real")), Trace(step))


def _entered(trace: Trace | None) -> bool:
    """Whether ``trace`` passes a step where its value entered a frame from the caller."""
    return trace is not None and any(step.via is not None for step in trace.steps())


class UserModel:
    """Calls of the user's configured sources, sinks and sanitizers."""

    def user_model_call(self, qualname: str, run: FunctionRun, args: tuple[Value, ...],
                        kwargs: dict[str, Value], node: cst.Call) -> Value | None:
        """Calls of the user's own sources, sinks and sanitizers (``[tool.dispatch-lint]``)."""
        user = self.user
        for sink in user.sinks.get(qualname, ()):
            if isinstance(sink.arg, int):
                value = args[sink.arg] if sink.arg < len(args) else None
            else:
                value = kwargs.get(sink.arg)
            if value is not None and any(isinstance(a, (Ten, Sym, Traced)) for a in value):
                run.emit("user_sink", (value,), qualname, node,
                         "passed to `{code}` (a configured sink)", rule=sink.rule)
        if qualname in user.sources:
            dev = run.make_device("capture", node)
            trace = Trace(Step(run.file, node, "born from `{code}` (a configured source)",
                               run.anchor))
            return Value({dev: trace, Ten(dev): trace})
        if qualname in user.sanitizers:
            if not args:
                return Value.of(UNKNOWN)
            return narrow_not_capture(args[0]).filter(lambda a: not isinstance(a, Traced)) or \
                Value.of(UNKNOWN)
        return None
