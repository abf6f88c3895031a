"""Readers that turn benchmark-tool outputs into cmpc's canonical run table."""
