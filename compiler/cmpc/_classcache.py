"""Dataclass definitions replayed from what an earlier start recorded, so imports do not redo them.

`@dataclass` writes each class's `__init__`, `__eq__`, `__hash__`, ... as source text, compiles
it and runs it at every import: about a third of `cmpc check`'s start-up for cmpc's frozen
records. Two things are kept in `cmpc/__pycache__` (marshal, like the `.pyc` files beside it,
and never in a shared folder):

* by text, the code each text compiles to: `dataclasses` is handed an `exec` that looks it up
  first. Each code stays marshalled bytes until a class asks for it, so a process builds the
  code objects of the classes it defines, not of every class the file has seen;
* by a class's shape (decorator options, and each field's name and `field()` options), the
  texts dataclasses ran for it. A class of a known shape is then built without writing any
  text: the same codes run with the same values dataclasses would pass them (field types,
  defaults, the class), and dataclasses' own helpers add slots, qualnames and `repr`'s guard.
  Only the plain case is replayed (Python 3.11, no base class, no user-written method of the
  ones generated, a docstring); any other class is left to dataclasses, as is any class whose
  record does not match what it needs.

Nothing changes for a class: its methods are the same code with the same globals, defaults and
closures, its fields the same `Field` objects (tests/test_classcache.py compares every cmpc
record built both ways). An unwritable folder only means no saving.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import marshal
import os
import sys
import types
from typing import Any

from cmpc import lazy

# dataclasses imports inspect (with ast, dis, tokenize: about 7 ms) for one branch, the
# docstring of a class that has none; deferred, it loads only if such a class is defined.
lazy.module("inspect")

import dataclasses  # noqa: E402  (after inspect is deferred)

_FOLDER = os.path.join(os.path.dirname(__file__), "__pycache__")
_FILE = os.path.join(_FOLDER, f"dataclass-code.{sys.implementation.cache_tag}.marshal")
_SHAPES_FILE = os.path.join(_FOLDER, f"dataclass-shapes.{sys.implementation.cache_tag}.marshal")
_MOST = 4096  # entries kept: past that the file starts over (old classes' texts go)
_STAMP = f"{sys.version} marshalled-codes"  # older files (codes, not bytes) are not read
_SHAPES_STAMP = f"{sys.version} class-shapes 1"  # 1: the layout of a step, (code, name, parameters)

# The codes are read at the first text dataclasses runs: a start whose classes all replay
# never reads them (a thousand texts, hashed as keys, were a twentieth of `cmpc check`).
_codes: dict[str, object] = {}
_codes_read = False
_shapes: dict[tuple[object, ...], bytes] = {}  # a class's shape -> its functions' makers
misses = 0  # texts compiled in this process (read by the tests)
learned = 0  # class shapes recorded in this process (read by the tests)
replayed = 0  # classes built from a record (read by the tests)
_recording: list[str] | None = None  # the texts run while dataclasses processes one class


def _read(path: str, stamp: str) -> dict[object, object]:
    """The dict a file of this kind holds, or an empty one if it is missing or foreign."""
    try:
        with open(path, "rb") as handle:
            found, kept = marshal.loads(handle.read())
    except (OSError, EOFError, ValueError, TypeError):
        return {}
    return kept if found == stamp and isinstance(kept, dict) else {}


def _load() -> None:
    """Read the kept codes (text -> marshalled code)."""
    global _codes_read
    _codes_read = True
    _codes.update(_read(_FILE, _STAMP))  # type: ignore[arg-type]


def _exec(source, globals=None, locals=None, /):  # exec's own parameter names
    """`exec` for dataclasses: text compiled once, then its code from the file."""
    global misses
    if not isinstance(source, str):
        return builtins.exec(source, globals, locals)
    if _recording is not None:
        _recording.append(source)
    code = _code(source)
    if code is None:
        code = _codes[source] = compile(source, "<string>", "exec")
        misses += 1
    return builtins.exec(code, globals, locals)


def _code(source: str) -> types.CodeType | None:
    """The kept code of a text, decoded at its first use; None if none is kept."""
    if not _codes_read:
        _load()
    code = _codes.get(source)
    if isinstance(code, bytes):
        try:
            code = _codes[source] = marshal.loads(code)
        except (EOFError, ValueError, TypeError):
            code = None
    return code if isinstance(code, types.CodeType) else None


def _marshalled(code: object) -> bytes:
    return code if isinstance(code, bytes) else marshal.dumps(code)  # type: ignore[arg-type]


def _save() -> None:
    """Write the texts compiled and shapes learned in this run next to those read, atomically."""
    if sys.dont_write_bytecode:  # -B or PYTHONDONTWRITEBYTECODE: no file written, as for pycs
        return
    if misses:
        kept = _codes if len(_codes) <= _MOST else {}
        _write(_FILE, (_STAMP, {text: _marshalled(code) for text, code in kept.items()}))
    if learned:
        _write(_SHAPES_FILE, (_SHAPES_STAMP, _shapes if len(_shapes) <= _MOST else {}))


def _write(path: str, content: tuple[str, dict[Any, bytes]]) -> None:
    part = f"{path}.{os.getpid()}.{os.urandom(6).hex()}.tmp"  # a stale one never blocks
    try:
        os.makedirs(_FOLDER, exist_ok=True)
        fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(marshal.dumps(content))
        os.replace(part, path)
    except (OSError, ValueError):
        with contextlib.suppress(OSError):
            os.unlink(part)


def install() -> None:
    """Hand dataclasses the caching `exec` (it looks `exec` up in its module first) and, on the
    Python whose dataclasses this replays, the class processing that replays known shapes."""
    if getattr(dataclasses, "exec", None) is _exec:
        return
    _shapes.update(_read(_SHAPES_FILE, _SHAPES_STAMP))  # type: ignore[arg-type]
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    if _REPLAYS:
        dataclasses._process_class = _process_class  # type: ignore[attr-defined]
    atexit.register(_save)


# --- replaying a class of a known shape ------------------------------------------------------

# What dataclasses 3.11 passes the makers of its generated functions, by parameter name (besides
# each field's `_type_<name>` and `_dflt_<name>`, and `cls`).
_REPLAYS = sys.version_info[:2] == (3, 11)
_original = dataclasses._process_class  # type: ignore[attr-defined]
_MISSING = dataclasses.MISSING
_function = types.FunctionType
_CONSTANTS = {
    "MISSING": dataclasses.MISSING,
    "_HAS_DEFAULT_FACTORY": dataclasses._HAS_DEFAULT_FACTORY,  # type: ignore[attr-defined]
    "__dataclass_builtins_object__": object,
    "_return_type": None,
    "FrozenInstanceError": dataclasses.FrozenInstanceError,
}
# Names dataclasses would not overwrite or would refuse: such a class is left to dataclasses.
_WRITTEN = frozenset(
    ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__", "__match_args__")
)
_WRITTEN |= {"__slots__", "__getstate__", "__setstate__", "__post_init__"}
_MEMBER = types.MemberDescriptorType  # a slot's descriptor: no default
# What an annotation naming ClassVar, InitVar or KW_ONLY can resolve to: left to dataclasses.
_SPECIAL = (dataclasses.KW_ONLY, dataclasses.InitVar)


def _process_class(
    cls, init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only, slots, weakref_slot
):
    """dataclasses' `_process_class`, replayed for a class whose shape has a record."""
    options = (init, repr, eq, order, unsafe_hash, frozen, match_args, kw_only, slots, weakref_slot)
    found = _fields(cls, options)
    if found is None:
        return _original(cls, *options)
    fields, shape = found
    steps = _steps(_shapes.get(shape), eq, frozen)
    if steps is None:
        return _record(shape, cls, options, {f.name for f in fields})
    global replayed
    replayed += 1
    return _replay(cls, fields, steps, options)


def _fields(cls, options):
    """(the class's fields, its shape) if it is the plain case, else None.

    The fields are what dataclasses' `_get_field` makes for an annotation that names no
    ClassVar, InitVar or KW_ONLY; the class itself is not changed."""
    init, repr, _, order, unsafe_hash, _, match_args, kw_only, _, weakref_slot = options
    plain = init and repr and match_args and not (order or unsafe_hash or weakref_slot)
    if not plain or type(cls) is not type or cls.__bases__ != (object,):
        return None
    namespace = cls.__dict__
    module = sys.modules.get(cls.__module__)
    if not cls.__doc__ or module is None or not _WRITTEN.isdisjoint(namespace):
        return None
    annotations = namespace.get("__annotations__", {})
    missing, Field, FIELD = dataclasses.MISSING, dataclasses.Field, dataclasses._FIELD
    globals_ = module.__dict__
    fields = []
    for name, kind in annotations.items():
        if kind.__class__ is not str or name == "self" or _special(kind, globals_):
            return None
        default = getattr(cls, name, missing)
        if isinstance(default, Field):
            field = default
            if field.default.__class__.__hash__ is None:
                return None  # dataclasses' ValueError: mutable default
            if field.kw_only is missing:
                field.kw_only = kw_only
        else:
            if isinstance(default, _MEMBER):
                default = missing
            elif default.__class__.__hash__ is None:
                return None  # dataclasses' ValueError: mutable default
            field = Field(default, missing, True, True, None, True, None, kw_only)  # field()
        field.name, field.type = name, kind
        field._field_type = FIELD
        fields.append(field)
    for key, value in namespace.items():
        if isinstance(value, Field) and key not in annotations:
            return None  # dataclasses' TypeError: a field without a type annotation
    defaulted = False
    keys = []
    for f in fields:
        has_value, has_factory = f.default is not missing, f.default_factory is not missing
        if f.init and not f.kw_only:
            if defaulted and not (has_value or has_factory):
                return None  # dataclasses' TypeError: non-default argument follows default
            defaulted = defaulted or has_value or has_factory
        keys.append((f.name, f.kw_only, has_value, has_factory, f.init, f.repr, f.compare, f.hash))
    shape = (options, tuple(keys))
    return fields, shape


_SPLITS: dict[str, tuple[str | None, str] | tuple[()]] = {}  # annotation -> (prefix, name)


def _special(annotation, module):
    """Whether dataclasses could read this string annotation as ClassVar, InitVar or KW_ONLY
    (its `_is_type`, answered once for the three and erring towards yes)."""
    split = _SPLITS.get(annotation)
    if split is None:
        match = dataclasses._MODULE_IDENTIFIER_RE.match(annotation)
        split = _SPLITS[annotation] = match.group(1, 2) if match is not None else ()
    if not split:
        return False
    prefix, name = split
    if prefix:
        return module.get(prefix) in (dataclasses, sys.modules.get("typing"))
    found = module.get(name)
    if found is None:
        return False
    typing = sys.modules.get("typing")
    classvar = typing is not None and (
        found is typing.ClassVar or type(found) is typing._GenericAlias
    )
    return classvar or found in _SPECIAL or type(found) is dataclasses.InitVar


def _expected(eq, frozen):
    """The functions dataclasses makes, in its order, for the plain case with these options."""
    names = ("__init__", "__repr__") + (("__eq__",) if eq else ())
    names += ("__setattr__", "__delattr__") if frozen else ()
    return names + (("__hash__",) if eq and frozen else ())


def _steps(record, eq, frozen):
    """The recorded (maker's code, function name, maker's parameters) of a shape, in order; None
    if there is no record or it is not what this class needs."""
    if not isinstance(record, bytes):
        return None
    try:
        steps = marshal.loads(record)
    except (EOFError, ValueError, TypeError):
        return None
    if not isinstance(steps, tuple) or not all(map(_is_step, steps)):
        return None  # a record of another layout, or damaged: the class is processed afresh
    if tuple(name for _, name, _ in steps) != _expected(eq, frozen):
        return None
    return steps


def _is_step(step):
    """Whether a recorded step has the layout `_record` writes: (code, name, parameter names)."""
    if step.__class__ is not tuple or len(step) != 3:
        return False
    maker, name, parameters = step
    return (  # marshal makes exact types: no subclass to allow for
        maker.__class__ is _CODE
        and name.__class__ is str
        and parameters.__class__ is tuple
        and set(map(type, parameters)) <= _STR
    )


_CODE = types.CodeType
_STR = {str}


def _record(shape, cls, options, names):
    """Process the class as dataclasses does, noting the makers of its functions for this shape."""
    global _recording, learned
    _recording = []
    try:
        made = _original(cls, *options)
        texts = tuple(_recording)
    finally:
        _recording = None
    steps = []
    for text in texts:
        code = _code(text)
        maker = code and next((c for c in code.co_consts if isinstance(c, types.CodeType)), None)
        inner = maker and next((c for c in maker.co_consts if isinstance(c, types.CodeType)), None)
        if maker is None or inner is None or maker.co_name != "__create_fn__":
            return made
        parameters = maker.co_varnames[: maker.co_argcount]
        for parameter in parameters:
            field = parameter[6:] if parameter.startswith(("_type_", "_dflt_")) else None
            if field not in names and parameter != "cls" and parameter not in _CONSTANTS:
                return made
        steps.append((maker, inner.co_name, parameters))
    if tuple(name for _, name, _ in steps) == _expected(options[2], options[5]):
        _shapes[shape] = marshal.dumps(tuple(steps))
        learned += 1
    return made


def _replay(cls, fields, steps, options):
    """What dataclasses' `_process_class` does for a plain class, with the recorded makers."""
    init, repr, eq, order, unsafe_hash, frozen, _, _, slots, weakref_slot = options
    dc = dataclasses
    namespace = sys.modules[cls.__module__].__dict__
    cls.__dataclass_params__ = dc._DataclassParams(init, repr, eq, order, unsafe_hash, frozen)
    by_name = {f.name: f for f in fields}
    for field in fields:
        if isinstance(getattr(cls, field.name, None), dc.Field):
            if field.default is dc.MISSING:
                delattr(cls, field.name)
            else:
                setattr(cls, field.name, field.default)
    cls.__dataclass_fields__ = by_name
    for maker, name, parameters in steps:
        values = {p: _value(p, cls, by_name) for p in parameters}
        function = _function(maker, namespace)(**values)
        if name == "__hash__":
            cls.__hash__ = dc._set_qualname(cls, function)
            continue
        if name == "__repr__":
            function = dc._recursive_repr(function)
        dc._set_new_attribute(cls, name, function)
    if eq and not frozen:
        cls.__hash__ = None  # dataclasses' _hash_set_none (eq and frozen: a maker made one)
    in_order = tuple(f.name for f in fields if f.init and not f.kw_only)
    dc._set_new_attribute(cls, "__match_args__", in_order)
    if slots:
        cls = dc._add_slots(cls, frozen, weakref_slot)
    dc.abc.update_abstractmethods(cls)
    return cls


def _value(parameter, cls, fields):
    """The value dataclasses passes a function's maker for this parameter name."""
    head = parameter[:6]
    if head == "_type_":
        return fields[parameter[6:]].type
    if head == "_dflt_":
        field = fields[parameter[6:]]
        factory = field.default_factory
        return factory if factory is not _MISSING else field.default
    if parameter == "cls":
        return cls
    return _CONSTANTS[parameter]
