"""Syntax tree to IR: every key read against its declaration, every static rule enforced."""
