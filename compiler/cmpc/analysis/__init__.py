"""IR and reduced runs to the results model: reads, economics, ratios, sensitivity, claims."""
