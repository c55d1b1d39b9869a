"""What a snapshot is searched by, built once when the build ends (``ready.py``) and cached
beside the warehouse: the in-memory index (``index.py``), normalized names and the aliases a
curator can trust (``text.py``, ``aliases.py``, ``alias_trust.py``, ``tag_share.py``), entity
search (``entities.py``), BM25 over the evidence sentences (``sentences.py``), the graph's CSR
arrays (``graph.py``) and node vectors with the encoder that makes them (``vectors.py``,
``numpy_encoder.py``). ``query/`` and ``serve/`` read it; it answers no question itself."""
