"""Literature sources: each converts its native format into Documents and Mentions."""
