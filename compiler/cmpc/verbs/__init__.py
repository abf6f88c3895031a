"""One module per CLI verb; each returns an Outcome for the CLI to print."""
