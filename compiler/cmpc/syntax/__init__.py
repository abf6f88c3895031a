"""Spec text to a frozen syntax tree and back: the parser, the printer (`cmpc fmt`), `--set`."""
