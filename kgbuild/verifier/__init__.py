"""The relation verifier: P(an abstract states a relation between two concepts) and its type.

A document-level feature model (logistic regression over words between and around the
mentions, distances, co-sentences, salience), trained on the curated relations of BioRED
(Luo et al. 2022, Brief Bioinform 23(5):bbac282) and BioCreative V CDR (Wei et al. 2016,
Database baw032), measured as the BioCreative VIII BioRED track measures (Islamaj et al. 2024,
Database baae069): entity pair, pair + type, and CDR's chemical-induced disease.

The room, in reading order: :mod:`~kgbuild.verifier.text` (its own tokenizer and sentence
rules), :mod:`~kgbuild.verifier.features`, :mod:`~kgbuild.verifier.model` (load and
:func:`~kgbuild.verifier.model.score_pairs`, what extractors and the confidence model call),
:mod:`~kgbuild.verifier.weights` (the ``.npz`` + JSON file, digest-checked, never pickle);
for training, :mod:`~kgbuild.verifier.corpus` and :mod:`~kgbuild.verifier.examples` (gold →
labelled pairs), :mod:`~kgbuild.verifier.fit`, :mod:`~kgbuild.verifier.measure` (direct dev
figures) and :mod:`~kgbuild.verifier.train` (``python -m kgbuild.verifier.train``).

It sits below the extractors (``extract → verifier → sources``): it reads records and the
source readers, nothing that reads it.
"""
