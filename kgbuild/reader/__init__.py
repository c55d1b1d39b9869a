"""The sentence reader: does *this sentence* state a relation between *these two mentions*, which
one, in which direction, with what status, and is each mention the concept its ID says?

The gold corpora (BioRED, Luo et al. 2022; BC5CDR, Wei et al. 2016) relate pairs per document;
a KG user follows a fact to one sentence. This room makes the sentence-level supervision (rows
drawn from builds and gold, judged blind by people who see only the sheet: :mod:`.rows`,
:mod:`.sheet`, :mod:`.judged`) and the reader trained on it (:mod:`.features`, :mod:`.model`,
:mod:`.train`).
"""
