"""How ``match`` works: which cases each atom of the subject can take, and what they bind.

Every atom the subject may be is tested against each case's pattern: it surely matches, it
surely does not, or the analysis cannot tell. A case runs with the atoms that may match (so
``case dispatch.Capture():`` sees only capture devices and ``case {"kind": "read", ...}`` never
runs for a message whose kind is another constant), and the cases after it see only the atoms
that may not have matched. Class patterns bind their sub-patterns to attributes (positional
ones through ``__match_args__``, which a dataclass takes from its fields); mapping patterns to
the keys' slots; sequence patterns to a tuple's items.
"""

from __future__ import annotations

from collections.abc import Iterable

import libcst as cst

from dispatch_lint.analyzer import model
from dispatch_lint.analyzer.dataflow.state import State, join_states
from dispatch_lint.analyzer.dataflow.syntax import dotted_name
from dispatch_lint.analyzer.values import (
    EMPTY,
    UNKNOWN,
    Box,
    Cls,
    Const,
    Dev,
    Inst,
    Ref,
    Str,
    Sym,
    Ten,
    Tup,
    Unknown,
    Value,
    join_all,
    narrow_capture,
    narrow_not_capture,
)

#: Surely matches (True), surely not (False), cannot tell (None).
Verdict = bool | None

#: What a runtime class pattern accepts: the device kinds, or any tensor.
_RUNTIME_CLASSES = {"NumPy": "numpy", "Numba": "numba", "Capture": "capture",
                    "Autodiff": "autodiff", "Tensor": "tensor"}
#: Builtin class patterns and the atoms that are instances of them.
_BUILTIN_CLASSES = {"str": (Str,), "dict": (Box,), "list": (Box,), "tuple": (Tup,),
                    "bool": (Const,), "int": (Const,), "float": (), "object": None}


class Patterns:
    """The interpreter's ``match`` statement."""

    def stmt_Match(self, stmt: cst.Match, state: State) -> State | None:
        subject = self.eval(stmt.subject, state)
        name = dotted_name(stmt.subject)
        narrowable = name is not None and (name in state.env or "." in name)
        # `match t.device:` tells the tensors of `t` apart by the device each is on
        owner = _device_owner(stmt.subject, state)
        owned = state.env[owner] if owner is not None else EMPTY
        outs: list[State | None] = []
        rest: State | None = state
        remaining = subject
        for case in stmt.cases:
            if rest is None:
                break
            tests = {atom: self.pattern_test(case.pattern, atom, state) for atom in remaining}
            matched = remaining.filter(lambda a: tests[a] is not False)
            if not matched:
                continue  # no atom the subject may be can take this case
            capture = _capture_test(case.pattern)
            if capture is not None:
                matched = narrow_capture(matched) if capture else narrow_not_capture(matched)
            entry = rest.copy()
            if narrowable:
                entry.env[name] = matched  # type: ignore[index]
            if owner is not None:
                entry.env[owner] = owned.filter(
                    lambda a: not isinstance(a, Ten) or tests.get(a.dev) is not False)
                kinds = self.device_class_kinds(case.pattern, state)
                if kinds and kinds <= {"numpy", "numba"}:
                    entry.env[owner] = narrow_not_capture(entry.env[owner])  # a parameter
                elif kinds == {"capture"}:
                    entry.env[owner] = narrow_capture(entry.env[owner])
                elif kinds == {"autodiff"}:
                    entry.env[owner] = self.only_autodiff(entry.env[owner], True)
            self.bind_pattern(case.pattern, matched, entry)
            refused = None  # the subject where the pattern matched and the guard was false
            if case.guard is not None:
                entry, guard_false = self.condition(case.guard, entry)
                if narrowable:
                    refused = guard_false.env.get(name, EMPTY) if guard_false is not None \
                        else EMPTY  # type: ignore[arg-type]
            outs.append(self.run_block(case.body.body, entry) if entry is not None else None)
            if refused is not None:
                # `case Tensor() if t.is_capture:`: the later cases see what the pattern
                # refused (not a tensor at all, when it is the tensor class), and what it
                # took where the guard was false (narrowed by it)
                unsure = remaining.filter(lambda a: tests[a] is not True)
                if self.tensor_class_pattern(case.pattern, state):
                    unsure = narrow_not_capture(unsure)
                remaining = unsure.join(refused)
                if not remaining:
                    rest = None
                else:
                    rest = rest.copy()
                    rest.env[name] = remaining  # type: ignore[index]
            elif case.guard is None:
                remaining = remaining.filter(lambda a: tests[a] is not True)
                if capture is not None:
                    remaining = (narrow_not_capture(remaining) if capture
                                 else narrow_capture(remaining))
                if owner is not None:
                    owned = owned.filter(
                        lambda a: not isinstance(a, Ten) or tests.get(a.dev) is not True)
                    # a parameter's tensors: the later cases see those on other devices
                    kinds = self.device_class_kinds(case.pattern, state)
                    if kinds == {"capture"}:
                        owned = narrow_not_capture(owned)
                    elif kinds == {"autodiff"}:
                        owned = self.only_autodiff(owned, False)
                if not remaining:
                    rest = None
                elif narrowable or owner is not None:
                    rest = rest.copy()
                    if narrowable:
                        rest.env[name] = remaining  # type: ignore[index]
                    if owner is not None:
                        rest.env[owner] = owned
        outs.append(rest)
        return join_states(outs)

    def device_class_kinds(self, pattern: cst.MatchPattern, state: State
                           ) -> frozenset[str] | None:
        """The device kinds ``pattern`` matches when it is made of the runtime's device
        classes only (``NumPy() | Numba()``, ``Capture()``, ``Autodiff()``), else None: a
        tensor whose device matches ``Capture()`` is a capture tensor, ``NumPy()`` none."""
        if isinstance(pattern, cst.MatchAs):
            return None if pattern.pattern is None else self.device_class_kinds(
                pattern.pattern, state)
        if isinstance(pattern, cst.MatchOr):
            parts = [self.device_class_kinds(p.pattern, state) for p in pattern.patterns]
            return None if None in parts else frozenset().union(*parts)  # type: ignore[misc]
        if not isinstance(pattern, cst.MatchClass) or pattern.patterns or pattern.kwds:
            return None
        kinds = {_RUNTIME_CLASSES.get(model.runtime_name(c.qualname) or "")
                 if isinstance(c, Ref) else None for c in self.eval_quiet(pattern.cls, state)}
        if not kinds or kinds & {None, "tensor"}:
            return None
        return frozenset(kinds)  # type: ignore[arg-type]

    # ------------------------------------------------------------------------ verdicts

    def tensor_class_pattern(self, pattern: cst.MatchPattern, state: State) -> bool:
        """Whether ``pattern`` is ``Tensor(...)`` of the runtime (what it refuses is no tensor)."""
        while isinstance(pattern, cst.MatchAs) and pattern.pattern is not None:
            pattern = pattern.pattern
        if not isinstance(pattern, cst.MatchClass):
            return False
        classes = self.eval_quiet(pattern.cls, state)
        return bool(classes) and all(isinstance(c, Ref) and model.runtime_name(c.qualname)
                                     == "Tensor" for c in classes)

    def pattern_test(self, pattern: cst.MatchPattern, atom: object, state: State) -> Verdict:
        """Whether ``atom`` matches ``pattern``."""
        if isinstance(pattern, cst.MatchAs):
            return True if pattern.pattern is None else self.pattern_test(pattern.pattern,
                                                                          atom, state)
        if isinstance(pattern, cst.MatchOr):
            return _any(self.pattern_test(p.pattern, atom, state) for p in pattern.patterns)
        if isinstance(pattern, (cst.MatchValue, cst.MatchSingleton)):
            # a parameter may hold a flag the caller passed
            expected = self.eval(pattern.value, state)
            verdicts = {_equal(a, expected) for a in self.constants(Value.of(atom))}
            return verdicts.pop() if len(verdicts) == 1 else None
        if isinstance(pattern, cst.MatchClass):
            return self.class_test(pattern, atom, state)
        if isinstance(pattern, cst.MatchMapping):
            if isinstance(atom, Box) and atom.kind != "dict":
                return False
            if not isinstance(atom, (Box, Sym)):
                return None if _opaque(atom) else False
            verdicts = [self.values_test(element.pattern, self.item(Value.of(atom),
                                                                    _key(element.key)), state)
                        for element in pattern.elements]
            return False if False in verdicts else None
        if isinstance(pattern, (cst.MatchSequence, cst.MatchList, cst.MatchTuple)):
            return self.sequence_test(pattern, atom, state)
        return None

    def values_test(self, pattern: cst.MatchPattern, value: Value, state: State) -> Verdict:
        """Whether what ``value`` may be matches ``pattern``: surely only if every atom does."""
        verdicts = {self.pattern_test(pattern, atom, state) for atom in value}
        if verdicts == {True}:
            return True
        if verdicts == {False}:
            return False
        return None

    def class_test(self, pattern: cst.MatchClass, atom: object, state: State) -> Verdict:
        verdict = _any(self.instance_test(cls, atom) for cls in self.eval_quiet(pattern.cls,
                                                                                 state))
        if verdict is False:
            return False
        for attribute, sub in self.class_parts(pattern, atom):
            if attribute is None:
                verdict = None
                continue
            part = self.values_test(sub, attribute, state)
            if part is False:
                return False
            if part is None:
                verdict = None
        return verdict

    def isinstance_value(self, value: Value, classes: Value) -> Value:
        """``isinstance(value, classes)``: True or False when every atom ``value`` may be
        agrees (as a class pattern decides it), else unknown. What the analysis does not
        follow is never a tensor to it (``vars(obj)`` filtered for tensors skips it)."""
        kinds = [c for a in classes for c in (
            [x for v in a.items for x in v] if isinstance(a, Tup) else [a])]
        tensor_only = bool(kinds) and all(
            isinstance(c, Ref) and model.runtime_name(c.qualname) == "Tensor" for c in kinds)
        answers: set[bool] = set()
        for atom in value:
            verdict = False if tensor_only and isinstance(atom, Unknown) else _any(
                self.instance_test(c, atom) for c in kinds) if kinds else None
            if verdict is None:
                return Value.of(UNKNOWN)
            answers.add(verdict)
        return Value.of(Const(answers.pop())) if len(answers) == 1 else Value.of(UNKNOWN)

    def instance_test(self, cls: object, atom: object) -> Verdict:
        """Whether ``atom`` is an instance of the class ``cls`` denotes (for a parameter: of
        each object of the checked tree the caller passed, when it passed only those)."""
        if isinstance(atom, Sym) and isinstance(cls, Cls):
            objects = self.objects_of(atom, self.anchor or cst.Pass())
            if objects and all(isinstance(o, Inst) for o in objects):
                return _any(self.instance_test(cls, o) for o in objects)
        if _opaque(atom):
            return None
        if isinstance(cls, Ref):
            runtime = model.runtime_name(cls.qualname)
            if runtime in _RUNTIME_CLASSES:
                kind = _RUNTIME_CLASSES[runtime]
                if kind == "tensor":
                    return isinstance(atom, Ten)
                if isinstance(atom, Dev):
                    return None if atom.kind == "real" else atom.kind == kind
                return False
            if cls.qualname.startswith("builtins."):
                kinds = _BUILTIN_CLASSES.get(cls.qualname[len("builtins."):], ())
                if kinds is None:
                    return True
                if isinstance(atom, Box) and Box in kinds:
                    return atom.kind == cls.qualname[len("builtins."):]
                if isinstance(atom, (Ten, Dev)):
                    return False  # a tensor or device is no number, string or container
                return isinstance(atom, kinds) if kinds else None
            return None
        if isinstance(cls, Cls):
            if isinstance(atom, Inst):
                return cls.cls in self.program.bases_of(atom.cls)
            return False
        return None

    def sequence_test(self, pattern: cst.MatchSequence, atom: object, state: State
                      ) -> Verdict:
        if isinstance(atom, (Dev, Ten, Str, Const)) or (isinstance(atom, Box)
                                                        and atom.kind == "dict"):
            return False
        if not isinstance(atom, Tup):
            return None
        items = _sequence_items(pattern.patterns, atom.items)
        if items is None:
            return False
        verdict: Verdict = True
        for sub, value in items:
            part = self.values_test(sub, value, state)
            if part is False:
                return False
            if part is None:
                verdict = None
        return verdict

    # ------------------------------------------------------------------------- binding

    def class_parts(self, pattern: cst.MatchClass, atom: object
                    ) -> list[tuple[Value | None, cst.MatchPattern]]:
        """The attribute each sub-pattern of a class pattern looks at (None: unknown)."""
        parts: list[tuple[Value | None, cst.MatchPattern]] = []
        positional = self.match_args(atom) if pattern.patterns else ()
        for index, element in enumerate(pattern.patterns):
            if positional is not None and index < len(positional):
                parts.append((self.attribute_of(atom, None, positional[index], pattern),
                              element.value))
            elif isinstance(atom, (Str, Const)) and index == 0:
                parts.append((Value.of(atom), element.value))  # `case str(name):`
            else:
                parts.append((None, element.value))
        for keyword in pattern.kwds:
            name = keyword.key.value
            if isinstance(atom, Ten) and name in ("is_capture", "is_autodiff"):
                dev = atom.dev
                truth = dev.is_capture if name == "is_capture" else dev.is_autodiff
                parts.append((Value.of(Const(truth)), keyword.pattern))
            else:
                parts.append((self.attribute_of(atom, None, name, pattern), keyword.pattern))
        return parts

    def match_args(self, atom: object) -> tuple[str, ...] | None:
        """The attributes positional sub-patterns bind for ``atom``'s class."""
        if not isinstance(atom, Inst):
            return None
        declared = self.program.class_attribute(Cls(atom.cls), "__match_args__", self)
        names = [tuple(a.text for v in t.items for a in v if isinstance(a, Str))
                 for t in declared if isinstance(t, Tup)]
        if names:
            return names[0]
        return self.program.generated_fields(atom.cls)

    def bind_pattern(self, pattern: cst.MatchPattern, subject: Value, state: State) -> None:
        if isinstance(pattern, cst.MatchAs):
            if pattern.pattern is not None:
                subject = subject.filter(
                    lambda a: self.pattern_test(pattern.pattern, a, state) is not False
                ) or subject
                self.bind_pattern(pattern.pattern, subject, state)
            if pattern.name is not None:
                state.env[pattern.name.value] = subject
        elif isinstance(pattern, (cst.MatchSequence, cst.MatchList, cst.MatchTuple)):
            self.bind_sequence(pattern, subject, state)
        elif isinstance(pattern, cst.MatchOr):
            for element in pattern.patterns:
                self.bind_pattern(element.pattern, subject, state)
        elif isinstance(pattern, cst.MatchMapping):
            for element in pattern.elements:
                self.bind_pattern(element.pattern, self.item(subject, _key(element.key)), state)
            if pattern.rest is not None:
                state.env[pattern.rest.value] = subject
        elif isinstance(pattern, cst.MatchClass):
            bound: dict[int, Value] = {}
            subs: dict[int, cst.MatchPattern] = {}
            for atom in subject:
                for index, (attribute, sub) in enumerate(self.class_parts(pattern, atom)):
                    subs[index] = sub
                    bound[index] = bound.get(index, EMPTY).join(attribute or Value.of(UNKNOWN))
            for index, sub in subs.items():
                self.bind_pattern(sub, bound[index], state)

    def bind_sequence(self, pattern: cst.MatchSequence, subject: Value, state: State) -> None:
        """Each element pattern gets its tuple item (in place), else what iterating gives."""
        per_element: dict[int, Value] = {}
        for atom in subject:
            items = _sequence_items(pattern.patterns, atom.items) if isinstance(atom,
                                                                               Tup) else None
            for index, element in enumerate(pattern.patterns):
                if items is not None:
                    value = items[index][1]
                else:
                    value = self.elements(Value.of(atom))
                per_element[index] = per_element.get(index, EMPTY).join(value)
        for index, element in enumerate(pattern.patterns):
            value = per_element.get(index) or Value.of(UNKNOWN)
            if isinstance(element, cst.MatchStar):
                if element.name is not None:
                    box = self.new_box("list", element)
                    self.program.write(("b", box.site), value)
                    state.env[element.name.value] = Value.of(box)
            else:
                self.bind_pattern(element.value, value, state)


def _sequence_items(patterns: Iterable[cst.CSTNode], items: tuple[Value, ...]
                    ) -> list[tuple[cst.MatchPattern, Value]] | None:
    """Each element pattern with the tuple item(s) it matches; None when the length cannot
    match. A star pattern gets the join of the items it takes."""
    patterns = list(patterns)
    star = next((i for i, p in enumerate(patterns) if isinstance(p, cst.MatchStar)), None)
    if (len(items) != len(patterns)) if star is None else (len(items) < len(patterns) - 1):
        return None
    out: list[tuple[cst.MatchPattern, Value]] = []
    for index, element in enumerate(patterns):
        if star is None or index < star:
            value = items[index]
        elif index == star:
            value = join_all(items[star:len(items) - (len(patterns) - star - 1)])
        else:
            value = items[len(items) - (len(patterns) - index)]
        sub = element if isinstance(element, cst.MatchStar) else element.value
        out.append((sub, value))  # type: ignore[arg-type]
    return out


def _device_owner(subject: cst.BaseExpression, state: State) -> str | None:
    """``t`` when the subject is ``t.device`` of a local name ``t``."""
    if isinstance(subject, cst.Attribute) and subject.attr.value == "device" and isinstance(
            subject.value, cst.Name) and subject.value.value in state.env:
        return subject.value.value
    return None


def _capture_test(pattern: cst.MatchPattern) -> bool | None:
    """``case Tensor(is_capture=True)`` / ``(is_capture=False)``: what it proves."""
    if isinstance(pattern, cst.MatchAs) and pattern.pattern is not None:
        return _capture_test(pattern.pattern)
    if not isinstance(pattern, cst.MatchClass):
        return None
    for keyword in pattern.kwds:
        if keyword.key.value == "is_capture" and isinstance(keyword.pattern, (
                cst.MatchSingleton, cst.MatchValue)):
            value = dotted_name(keyword.pattern.value)
            if value in ("True", "False"):
                return value == "True"
    return None


def _equal(atom: object, value: Value) -> Verdict:
    """Whether ``atom == value`` for a value pattern (a literal or a dotted constant)."""
    if len(value) != 1:
        return None
    other = next(iter(value))
    if not isinstance(other, (Str, Const)):
        return None
    if isinstance(atom, (Str, Const)):
        return atom == other
    if isinstance(atom, (Dev, Box, Tup, Inst, Cls, Ref)):
        return False
    return None


def _opaque(atom: object) -> bool:
    """Atoms the analysis knows nothing of the type of."""
    return not isinstance(atom, (Dev, Ten, Str, Const, Box, Tup, Inst, Cls, Ref))


def _any(verdicts: Iterable[Verdict]) -> Verdict:
    out: Verdict = False
    for verdict in verdicts:
        if verdict is True:
            return True
        if verdict is None:
            out = None
    return out


def _key(node: cst.BaseExpression) -> object:
    if isinstance(node, cst.SimpleString):
        try:
            return node.evaluated_value
        except Exception:  # noqa: BLE001 - an odd literal is just an unknown key
            return None
    return None
