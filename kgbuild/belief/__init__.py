"""Judgments about what the literature says, apart from where it is stored: the calibrated
confidence of a fact (``confidence.py``), its belief as the KG stood in each year
(``history.py``), what a sentence states between two mentions (the template reader,
``claims_*.py``; the LLM reader, ``claims_llm.py``) and the facts the literature disagrees on
(``conflicts.py`` and its parts). Written as SQL, regular expressions and numpy over the
catalog's tables, so the store's catalog serves them as views (INDRA likewise keeps its belief
engine apart from statements and sources) while this room imports no storage."""
