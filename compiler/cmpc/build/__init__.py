"""`cmpc build`: the whole pipeline from spec to the files of a report, written atomically."""
