"""The one way kgbuild talks to an LLM: cached, retrying, bounded, token-counting."""
