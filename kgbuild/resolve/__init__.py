"""Entity resolution: merge mentions of the same thing into one entity."""
