"""Year-by-year KG building: the cumulative state and the loop that publishes a snapshot a year."""
