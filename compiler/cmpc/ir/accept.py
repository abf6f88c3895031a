"""A quick yes to "does this IR meet its schema?", so a valid IR never imports jsonschema.

Importing jsonschema (with referencing, attrs and its meta-schemas) is about 50 ms, more than
the rest of `cmpc check`. A spec whose IR changed (an edited price, a `--set`) missed the
memo of valid IRs and paid it on every check and warm rebuild. `accepts` walks the document
with the keywords `schemas/ir.schema.json` uses, as Draft 2020-12 defines them; it answers
True only when every rule holds. Anything else, a failure or a keyword it does not know, is
False, and `validate_ir` asks jsonschema, whose messages the diagnostics quote. So this
module must never accept what jsonschema rejects; tests/test_ir_accept.py compares the two
on every spec's IR and thousands of damaged ones.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

_IGNORED = frozenset({"$schema", "$id", "title", "description", "format", "$comment"})
# `format` is an annotation: the validator is made without a format checker, as jsonschema's
# default, so it asserts nothing there either.


class _Unknown(Exception):
    """A keyword or `$ref` this module does not evaluate: jsonschema decides."""


def accepts(document: Any, schema: dict[str, Any]) -> bool:
    """True only if `document` meets `schema` (False: invalid, or not decidable here)."""
    try:
        return _valid(document, schema, schema)
    except (_Unknown, RecursionError, re.error, TypeError):
        return False


def _valid(value: Any, rule: Any, root: dict[str, Any]) -> bool:
    if rule is True:
        return True
    if not isinstance(rule, dict):
        raise _Unknown(rule)  # `false`, or a malformed rule
    for key, want in rule.items():
        if key in _IGNORED:
            continue
        check = _KEYWORDS.get(key)
        if check is None:
            raise _Unknown(key)
        if not check(value, want, rule, root):
            return False
    return True


def _type(value: Any, want: Any, rule: dict[str, Any], root: dict[str, Any]) -> bool:
    return any(_is(value, t) for t in (want if isinstance(want, list) else [want]))


def _is(value: Any, kind: str) -> bool:
    if kind == "null":
        return value is None
    if kind == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False  # JSON's true is not the number 1
    if kind == "integer":
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if kind == "number":
        return isinstance(value, (int, float))
    if kind == "string":
        return isinstance(value, str)
    if kind == "array":
        return isinstance(value, list)
    if kind == "object":
        return isinstance(value, dict)
    raise _Unknown(kind)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _equal(a: Any, b: Any) -> bool:
    """JSON equality: booleans are not numbers; lists and objects compared item by item."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_equal, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if _number(a) and _number(b):
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


def _ref(value: Any, want: Any, rule: dict[str, Any], root: dict[str, Any]) -> bool:
    if not isinstance(want, str) or not want.startswith("#/$defs/") or "~" in want:
        raise _Unknown(want)
    definitions = root.get("$defs", {})
    name = want[len("#/$defs/") :]
    if name not in definitions:
        raise _Unknown(want)
    return _valid(value, definitions[name], root)


def _properties(value: Any, want: Any, rule: dict[str, Any], root: dict[str, Any]) -> bool:
    if not isinstance(value, dict):
        return True
    return all(_valid(value[k], sub, root) for k, sub in want.items() if k in value)


def _additional(value: Any, want: Any, rule: dict[str, Any], root: dict[str, Any]) -> bool:
    if not isinstance(value, dict):
        return True
    if "patternProperties" in rule:
        raise _Unknown("patternProperties")
    named = rule.get("properties", {})
    return all(_valid(v, want, root) for k, v in value.items() if k not in named)


def _required(value: Any, want: Any, rule: dict[str, Any], root: dict[str, Any]) -> bool:
    return not isinstance(value, dict) or all(k in value for k in want)


def _prefix_items(value: Any, want: Any, rule: dict[str, Any], root: dict[str, Any]) -> bool:
    if not isinstance(value, list):
        return True
    return all(_valid(v, sub, root) for v, sub in zip(value, want, strict=False))


def _items(value: Any, want: Any, rule: dict[str, Any], root: dict[str, Any]) -> bool:
    if not isinstance(value, list):
        return True
    return all(_valid(v, want, root) for v in value[len(rule.get("prefixItems", ())) :])


def _unique(value: Any, want: Any, rule: dict[str, Any], root: dict[str, Any]) -> bool:
    if not want or not isinstance(value, list):
        return True
    return not any(_equal(a, b) for i, a in enumerate(value) for b in value[i + 1 :])


def _pattern(value: Any, want: Any, rule: dict[str, Any], root: dict[str, Any]) -> bool:
    return not isinstance(value, str) or _compiled(want).search(value) is not None


@cache
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def _bound(test: Any) -> Any:
    def check(value: Any, want: Any, rule: dict[str, Any], root: dict[str, Any]) -> bool:
        if not _number(want):
            raise _Unknown(want)
        return not _number(value) or bool(test(value, want))

    return check


def _length(test: Any) -> Any:
    def check(value: Any, want: Any, rule: dict[str, Any], root: dict[str, Any]) -> bool:
        return not isinstance(value, list) or bool(test(len(value), want))

    return check


_KEYWORDS = {
    "type": _type,
    "$ref": _ref,
    "$defs": lambda value, want, rule, root: True,  # definitions, reached through `$ref`
    "properties": _properties,
    "additionalProperties": _additional,
    "required": _required,
    "prefixItems": _prefix_items,
    "items": _items,
    "uniqueItems": _unique,
    "minItems": _length(lambda n, k: n >= k),
    "maxItems": _length(lambda n, k: n <= k),
    "pattern": _pattern,
    "minimum": _bound(lambda v, k: v >= k),
    "maximum": _bound(lambda v, k: v <= k),
    "exclusiveMinimum": _bound(lambda v, k: v > k),
    "exclusiveMaximum": _bound(lambda v, k: v < k),
    "enum": lambda value, want, rule, root: any(_equal(value, w) for w in want),
    "const": lambda value, want, rule, root: _equal(value, want),
    "anyOf": lambda value, want, rule, root: any(_valid(value, s, root) for s in want),
    "not": lambda value, want, rule, root: not _valid(value, want, root),
}
