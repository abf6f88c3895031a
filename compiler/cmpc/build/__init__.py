"""`cmpc build`: the whole pipeline from spec to the files of a report, written atomically."""

from cmpc.callable_package import make_callable

make_callable(__name__)  # `cmpc.build(...)` is the API function (cmpc.api.build)
