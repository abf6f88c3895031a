"""The checked comparison (IR) as frozen dataclasses, and its JSON Schema."""
