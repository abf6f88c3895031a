"""The language's words and units: data the other stages read, no logic of their own."""
