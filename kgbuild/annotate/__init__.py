"""Annotators that add entity mentions to documents, and their evaluation against gold sets."""
