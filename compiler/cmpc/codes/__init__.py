"""Diagnostic code tables (TOML), one file per pipeline area."""
