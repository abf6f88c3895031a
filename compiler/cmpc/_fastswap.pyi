"""The optional C exchange of two paths (_fastswap.c): Linux renameat2, without ctypes."""

from os import PathLike

def exchange(a: str | bytes | PathLike[str], b: str | bytes | PathLike[str], /) -> bool: ...
