"""What a question asks, read before anything is retrieved: its intent (the relation and the
kind of answer asked, :mod:`.intent`, :mod:`.kinds`), its qualifiers and cues (:mod:`.cues`),
the predicate a yes/no question asks and its opposite (:mod:`.predicates`), and the phrases it
names that link to no entity (:mod:`.question_phrase`, :mod:`.context_words`).

Kept apart from :mod:`kgbuild.query`, which answers: these read only the question and the
snapshot's vocabularies, so the layers below the answer (search, link, corpus) are all they use.
"""
