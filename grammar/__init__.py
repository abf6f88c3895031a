"""Data package holding the cmpc grammar (cmp.lark)."""
