"""The type of a JSON document as `json.loads` returns it and `json.dumps` takes it."""

from __future__ import annotations

from typing import Any, TypeAlias

# A JSON object's values are any JSON (null, bool, number, string, array, object); code that
# reads one checks the shape it needs, or validates the document against a schema first.
JsonObject: TypeAlias = dict[str, Any]
