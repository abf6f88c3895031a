"""Syntax tree to IR: every key read against its declaration, every static rule enforced.

`checker.check_spec` is the entry. `values` reads typed values out of entries; `decode` reads a
block against the keys `language.vocabulary` declares for it (unknown, repeated and missing keys,
each key by its kind, IR defaults for the rest); `context` holds the sinks and declared names.
One module per block then keeps only what the declaration cannot say: `comparison`, `sources`,
`latency` (+ `statistics`), `tokens`, `systems`, `parallel`, `prices` (+ the `cost` block),
`data` (runs, reported), `capacity`, `claims`, `sensitivity`, `disclosure`; `rules` holds the
rules across blocks. `hidden` warns of hidden characters in the text.
"""

from cmpc.callable_package import make_callable

make_callable(__name__)  # `cmpc.check(...)` is the API function (cmpc.api.check)
