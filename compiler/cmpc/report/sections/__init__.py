"""The report's sections, one module per template, each results -> display-ready Markdown."""
