"""Reading the corpus's own text at question time: the sentences and mentions of the snapshot's
abstracts, where no extracted fact answers.

A floor below :mod:`kgbuild.query` (which asks these readers) and above :mod:`kgbuild.search`
(whose index and text keys they use): documents.py (a document's sentences), marks.py
(sentence excerpts with the names marked), stems.py (a phrase's word stems and their patterns),
same_sentence.py (partners named in one sentence with a cue), choice_reading.py
(multiple-choice options read from sentences), organisms.py + organism_kinds.py +
organism_answer.py (organism answers from PubTator's Species mentions). They read the catalog
(``documents``, ``mentions``) through the warehouse and never import the query stage.
"""
