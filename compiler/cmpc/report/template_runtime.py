"""The runtime of the precompiled report templates: jinja2's, for exactly what they use.

report/compiled_templates.py is jinja2's own code for the package templates (written by
scripts/compile_templates.py); it calls into this module where it would call jinja2.runtime and
the environment, so a build renders its report without importing jinja2 (about 25 ms). Each
piece follows jinja2 3.1 (runtime.py, sandbox.py, utils.py) line for line, with the semantics of
the environment report/environment.py builds: ImmutableSandboxedEnvironment, StrictUndefined.
What it does not cover raises NotCovered, and the caller renders with jinja2 instead.
"""

from __future__ import annotations

import types
from collections import abc, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, NoReturn

from cmpc.report import template_filters


class NotCovered(Exception):
    """The template needs a part of jinja2 this runtime does not reproduce."""


class TemplateError(Exception):
    """jinja2.TemplateError: the message is the first argument."""

    def __init__(self, message: str | None = None) -> None:
        super().__init__(message)

    @property
    def message(self) -> str | None:
        return self.args[0] if self.args else None


class TemplateRuntimeError(TemplateError):
    """jinja2.TemplateRuntimeError."""


class UndefinedError(TemplateRuntimeError):
    """jinja2.UndefinedError: a template used an undefined value."""


class SecurityError(TemplateRuntimeError):
    """jinja2.sandbox.SecurityError: the sandbox refused an operation."""


class _Missing:
    """jinja2.utils.missing: a name the context does not hold."""

    def __repr__(self) -> str:
        return "missing"

    def __reduce__(self) -> str:
        return "missing"


missing: Any = _Missing()


def internalcode(function: Callable[..., Any]) -> Callable[..., Any]:
    """jinja2's marker for frames hidden from template tracebacks (nothing to hide here)."""
    return function


def pass_context(function: Callable[..., Any]) -> Callable[..., Any]:
    """A global called with the active context first, as jinja2.pass_context marks it."""
    function.cmpc_pass_context = True  # type: ignore[attr-defined]
    return function


def object_type_repr(obj: object) -> str:
    """jinja2.utils.object_type_repr: how undefined-value messages name an object's type."""
    if obj is None:
        return "None"
    if obj is Ellipsis:
        return "Ellipsis"
    cls = type(obj)
    if cls.__module__ == "builtins":
        return f"{cls.__name__} object"
    return f"{cls.__module__}.{cls.__name__} object"


class Undefined:
    """jinja2.runtime.Undefined: printed, iterated and false; anything else fails."""

    __slots__ = ("_undefined_exception", "_undefined_hint", "_undefined_name", "_undefined_obj")

    def __init__(
        self,
        hint: str | None = None,
        obj: Any = missing,
        name: Any = None,
        exc: type[TemplateRuntimeError] = UndefinedError,
    ) -> None:
        self._undefined_hint = hint
        self._undefined_obj = obj
        self._undefined_name = name
        self._undefined_exception = exc

    @property
    def _undefined_message(self) -> str:
        if self._undefined_hint:
            return self._undefined_hint
        if self._undefined_obj is missing:
            return f"{self._undefined_name!r} is undefined"
        if not isinstance(self._undefined_name, str):
            return (
                f"{object_type_repr(self._undefined_obj)} has no element {self._undefined_name!r}"
            )
        return (
            f"{object_type_repr(self._undefined_obj)!r} has no attribute {self._undefined_name!r}"
        )

    def _fail_with_undefined_error(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise self._undefined_exception(self._undefined_message)

    def __getattr__(self, name: str) -> Any:
        # unimplemented dunder methods stay AttributeError, for Python's protocol probing
        if name[:2] == "__" and name[-2:] == "__":
            raise AttributeError(name)
        return self._fail_with_undefined_error()

    __add__ = __radd__ = __sub__ = __rsub__ = _fail_with_undefined_error
    __mul__ = __rmul__ = __div__ = __rdiv__ = _fail_with_undefined_error
    __truediv__ = __rtruediv__ = _fail_with_undefined_error
    __floordiv__ = __rfloordiv__ = _fail_with_undefined_error
    __mod__ = __rmod__ = _fail_with_undefined_error
    __pos__ = __neg__ = _fail_with_undefined_error
    __call__ = __getitem__ = _fail_with_undefined_error
    __lt__ = __le__ = __gt__ = __ge__ = _fail_with_undefined_error
    __int__ = __float__ = __complex__ = _fail_with_undefined_error
    __pow__ = __rpow__ = _fail_with_undefined_error

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other)

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __hash__(self) -> int:
        return id(type(self))

    def __str__(self) -> str:
        return ""

    def __len__(self) -> int:
        return 0

    def __iter__(self) -> Iterator[Any]:
        yield from ()

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "Undefined"


class StrictUndefined(Undefined):
    """jinja2.StrictUndefined: printing, iterating, testing or comparing it fails too."""

    __slots__ = ()
    __iter__ = __str__ = __len__ = Undefined._fail_with_undefined_error
    __eq__ = __ne__ = __bool__ = __hash__ = Undefined._fail_with_undefined_error
    __contains__ = Undefined._fail_with_undefined_error


def str_join(seq: Iterable[Any]) -> str:
    """jinja2.runtime.str_join: `~` without autoescaping."""
    return "".join(map(str, seq))


def markup_join(seq: Iterable[Any]) -> str:
    """jinja2.runtime.markup_join; markupsafe's Markup is jinja2's, so that case is not covered."""
    buf = []
    for arg in map(str, seq):
        if hasattr(arg, "__html__"):
            raise NotCovered("markup_join of an object with __html__")
        buf.append(arg)
    return "".join(buf)


def identity(x: Any) -> Any:
    """jinja2.utils.identity."""
    return x


class LoopContext:
    """jinja2.runtime.LoopContext of a non-recursive `for` loop: `loop.index`, `.first`, ..."""

    index0 = -1
    _length: int | None = None
    _after: Any = missing
    _current: Any = missing
    _before: Any = missing
    _last_changed_value: Any = missing

    def __init__(
        self,
        iterable: Iterable[Any],
        undefined: type[Undefined],
        recurse: Any = None,
        depth0: int = 0,
    ) -> None:
        if recurse is not None:
            raise NotCovered("recursive loops")
        self._iterable = iterable
        self._iterator = iter(iterable)
        self._undefined = undefined
        self.depth0 = depth0

    @property
    def length(self) -> int:
        if self._length is not None:
            return self._length
        try:
            self._length = len(self._iterable)  # type: ignore[arg-type]
        except TypeError:
            iterable = list(self._iterator)
            self._iterator = iter(iterable)
            self._length = len(iterable) + self.index + (self._after is not missing)
        return self._length

    def __len__(self) -> int:
        return self.length

    @property
    def depth(self) -> int:
        return self.depth0 + 1

    @property
    def index(self) -> int:
        return self.index0 + 1

    @property
    def revindex0(self) -> int:
        return self.length - self.index

    @property
    def revindex(self) -> int:
        return self.length - self.index0

    @property
    def first(self) -> bool:
        return self.index0 == 0

    def _peek_next(self) -> Any:
        if self._after is not missing:
            return self._after
        self._after = next(self._iterator, missing)
        return self._after

    @property
    def last(self) -> bool:
        return self._peek_next() is missing

    @property
    def previtem(self) -> Any:
        if self.first:
            return self._undefined("there is no previous item")
        return self._before

    @property
    def nextitem(self) -> Any:
        rv = self._peek_next()
        if rv is missing:
            return self._undefined("there is no next item")
        return rv

    def cycle(self, *args: Any) -> Any:
        if not args:
            raise TypeError("no items for cycling given")
        return args[self.index0 % len(args)]

    def changed(self, *value: Any) -> bool:
        if self._last_changed_value != value:
            self._last_changed_value = value
            return True
        return False

    def __iter__(self) -> LoopContext:
        return self

    def __next__(self) -> tuple[Any, LoopContext]:
        if self._after is not missing:
            rv = self._after
            self._after = missing
        else:
            rv = next(self._iterator)
        self.index0 += 1
        self._before = self._current
        self._current = rv
        return rv, self

    def __call__(self, iterable: Iterable[Any]) -> str:
        raise TypeError("The loop must have the 'recursive' marker to be called recursively.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.index}/{self.length}>"


# --- the sandbox (jinja2/sandbox.py) ---------------------------------------------------------

UNSAFE_GENERATOR_ATTRIBUTES = {"gi_frame", "gi_code"}
UNSAFE_COROUTINE_ATTRIBUTES = {"cr_frame", "cr_code"}
UNSAFE_ASYNC_GENERATOR_ATTRIBUTES = {"ag_code", "ag_frame"}
MUTATING_METHODS: tuple[tuple[type, frozenset[str]], ...] = (
    (
        abc.MutableSet,
        frozenset(
            [
                "add",
                "clear",
                "difference_update",
                "discard",
                "pop",
                "remove",
                "symmetric_difference_update",
                "update",
            ]
        ),
    ),
    (abc.MutableMapping, frozenset(["clear", "pop", "popitem", "setdefault", "update"])),
    (
        abc.MutableSequence,
        frozenset(["append", "clear", "pop", "reverse", "insert", "sort", "extend", "remove"]),
    ),
    (
        deque,
        frozenset(
            [
                "append",
                "appendleft",
                "clear",
                "extend",
                "extendleft",
                "pop",
                "popleft",
                "remove",
                "rotate",
            ]
        ),
    ),
)


def is_internal_attribute(obj: Any, attr: str) -> bool:
    """jinja2.sandbox.is_internal_attribute: Python internals a template may not reach."""
    if isinstance(obj, types.FunctionType | types.MethodType):
        pass  # jinja2's sets of unsafe function and method attributes are empty
    elif isinstance(obj, type):
        if attr == "mro":
            return True
    elif isinstance(obj, types.CodeType | types.TracebackType | types.FrameType):
        return True
    elif isinstance(obj, types.GeneratorType):
        if attr in UNSAFE_GENERATOR_ATTRIBUTES:
            return True
    elif isinstance(obj, types.CoroutineType):
        if attr in UNSAFE_COROUTINE_ATTRIBUTES:
            return True
    elif isinstance(obj, types.AsyncGeneratorType) and attr in UNSAFE_ASYNC_GENERATOR_ATTRIBUTES:
        return True
    return attr.startswith("__")


def modifies_known_mutable(obj: Any, attr: str) -> bool:
    """jinja2.sandbox.modifies_known_mutable: a method that would change a list, dict or set."""
    for typespec, unsafe in MUTATING_METHODS:
        if isinstance(obj, typespec):
            return attr in unsafe
    return False


def _is_str_format(value: Any) -> bool:
    """jinja2 wraps `str.format` and `format_map` in its sandboxed formatter: not covered."""
    return (
        isinstance(value, types.MethodType | types.BuiltinMethodType)
        and value.__name__ in ("format", "format_map")
        and isinstance(value.__self__, str)
    )


def safe_range(*args: int) -> range:
    """jinja2.sandbox.safe_range: `range` of at most 100000 items."""
    rng = range(*args)
    if len(rng) > 100000:
        raise OverflowError(
            "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000)."
        )
    return rng


# --- environment, context, templates -----------------------------------------------------------


@pass_context
def _footnote(context: Context, key: str) -> Any:
    """`fn(key)`, as report/environment.py defines it for jinja2."""
    notes = context["report"]["footnotes"]
    mark = template_filters.footnote_mark(notes, key)
    if mark is None:
        raise UndefinedError(template_filters.unknown_footnote(notes, key))
    return mark


def _int(value: Any, default: int = 0, base: int = 10) -> int:
    """jinja2's `int` filter."""
    try:
        if isinstance(value, str):
            return int(value, base)
        return int(value)
    except (TypeError, ValueError):
        # so that "42.23"|int gives 42, as jinja2 does
        try:
            return int(float(value))
        except (TypeError, ValueError):
            return default


# jinja2's filters the package templates use (builtins of jinja2.filters), then cmpc's own
BUILTIN_FILTERS: dict[str, Callable[..., Any]] = {"length": len, "count": len, "int": _int}
FILTERS = {**BUILTIN_FILTERS, **template_filters.FILTERS}
# jinja2's default globals that mean the same here, and cmpc's `fn`
GLOBALS: dict[str, Any] = {"range": safe_range, "dict": dict, "fn": _footnote}


class Context:
    """jinja2.runtime.Context: the template's variables (`vars`) over the caller's (`parent`)."""

    def __init__(self, environment: Environment, parent: dict[str, Any], name: str) -> None:
        self.environment = environment
        self.parent = parent
        self.name = name
        self.vars: dict[str, Any] = {}
        self.exported_vars: set[str] = set()

    def resolve_or_missing(self, key: str) -> Any:
        if key in self.vars:
            return self.vars[key]
        if key in self.parent:
            return self.parent[key]
        return missing

    def get_all(self) -> dict[str, Any]:
        if not self.vars:
            return self.parent
        if not self.parent:
            return self.vars
        return dict(self.parent, **self.vars)

    def derived(self, locals: dict[str, Any] | None = None) -> Context:
        return new_context(self.environment, self.name, self.get_all(), True, None, locals)

    def call(__self, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        if getattr(__obj, "jinja_pass_arg", None) is not None or (
            hasattr(__obj, "__call__") and hasattr(__obj.__call__, "jinja_pass_arg")  # noqa: B004
        ):
            raise NotCovered("a callable marked by jinja2.pass_*")
        if getattr(__obj, "cmpc_pass_context", False):
            if kwargs.get("_loop_vars"):
                __self = __self.derived(kwargs["_loop_vars"])
            if kwargs.get("_block_vars"):
                __self = __self.derived(kwargs["_block_vars"])
            args = (__self, *args)
        kwargs.pop("_block_vars", None)
        kwargs.pop("_loop_vars", None)
        try:
            return __obj(*args, **kwargs)
        except StopIteration:
            return __self.environment.undefined(
                "value was undefined because a callable raised a StopIteration exception"
            )

    def __contains__(self, name: str) -> bool:
        return name in self.vars or name in self.parent

    def __getitem__(self, key: str) -> Any:
        item = self.resolve_or_missing(key)
        if item is missing:
            raise KeyError(key)
        return item


def new_context(
    environment: Environment,
    name: str,
    vars: dict[str, Any] | None = None,
    shared: bool = False,
    globals: Mapping[str, Any] | None = None,
    locals: Mapping[str, Any] | None = None,
) -> Context:
    """jinja2.runtime.new_context."""
    if vars is None:
        vars = {}
    parent = vars if shared else dict(globals or (), **vars)
    if locals:
        if shared:
            parent = dict(parent)
        for key, value in locals.items():
            if value is not missing:
                parent[key] = value
    return Context(environment, parent, name)


class Template:
    """A compiled template: its root render function, made by its factory in the module."""

    def __init__(
        self, environment: Environment, name: str, filename: str, root: Callable[..., Any]
    ) -> None:
        self.environment = environment
        self.name = name
        self.filename = filename
        self.root_render_func = root

    def new_context(
        self,
        vars: dict[str, Any] | None = None,
        shared: bool = False,
        locals: Mapping[str, Any] | None = None,
    ) -> Context:
        return new_context(
            self.environment, self.name, vars, shared, self.environment.globals, locals
        )

    def render(self, **variables: Any) -> str:
        return self.environment.concat(self.root_render_func(self.new_context(variables)))


Factory = Callable[["Environment"], tuple[Callable[..., Any], dict[str, Any], str]]


class Environment:
    """The surface of ImmutableSandboxedEnvironment the compiled templates call."""

    undefined = StrictUndefined
    finalize = staticmethod(template_filters.finalize)
    concat = staticmethod("".join)

    def __init__(self, factories: Mapping[str, Factory], filename: Callable[[str], str]) -> None:
        self.filters = dict(FILTERS)
        self.globals = dict(GLOBALS)
        self._factories = factories
        self._filename = filename
        self._templates: dict[str, Template] = {}

    def get_template(self, name: str, parent: str | None = None) -> Template:
        template = self._templates.get(name)
        if template is None:
            factory = self._factories.get(name)
            if factory is None:
                raise NotCovered(f"template {name!r} is not precompiled")
            root, blocks, _ = factory(self)
            if blocks:
                raise NotCovered("template blocks")
            template = self._templates[name] = Template(self, name, self._filename(name), root)
        return template

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if attr.startswith("_") or is_internal_attribute(obj, attr):
            return False
        return not modifies_known_mutable(obj, attr)

    def is_safe_callable(self, obj: Any) -> bool:
        return not (getattr(obj, "unsafe_callable", False) or getattr(obj, "alters_data", False))

    def unsafe_undefined(self, obj: Any, attribute: str) -> Undefined:
        return self.undefined(
            f"access to attribute {attribute!r} of {type(obj).__name__!r} object is unsafe.",
            name=attribute,
            obj=obj,
            exc=SecurityError,
        )

    def getattr(self, obj: Any, attribute: str) -> Any:
        """`a.b`: the attribute first (if the sandbox allows it), then the item."""
        try:
            value = getattr(obj, attribute)
        except AttributeError:
            try:
                return obj[attribute]
            except (TypeError, LookupError):
                pass
        else:
            if _is_str_format(value):
                raise NotCovered("str.format in a template")
            if self.is_safe_attribute(obj, attribute, value):
                return value
            return self.unsafe_undefined(obj, attribute)
        return self.undefined(obj=obj, name=attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        """`a[b]`: the item first, then the attribute (if the sandbox allows it)."""
        try:
            return obj[argument]
        except (TypeError, LookupError):
            if isinstance(argument, str):
                try:
                    value = getattr(obj, argument)
                except AttributeError:
                    pass
                else:
                    if _is_str_format(value):
                        raise NotCovered("str.format in a template") from None
                    if self.is_safe_attribute(obj, argument, value):
                        return value
                    return self.unsafe_undefined(obj, argument)
        return self.undefined(obj=obj, name=argument)

    def call(__self, __context: Context, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        """A call from template code, refused for callables marked unsafe."""
        if not __self.is_safe_callable(__obj):
            raise SecurityError(f"{__obj!r} is not safely callable")
        return __context.call(__obj, *args, **kwargs)
