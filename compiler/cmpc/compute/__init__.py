"""Pure formulas with worked examples: frontier reads, accounting, cost, capacity, claims."""
