"""Relation extractors: each turns a document and its mentions into Triples with Evidence."""
