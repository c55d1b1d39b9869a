"""Question linking: which concept of a snapshot each span of a question names.

A question is read against the snapshot's names before anything is retrieved: dictionary keys
from the names and the mentions the pipeline trusts, HGNC's microRNA gene symbols for miRBase
and family names (:mod:`kgbuild.link.mirna`), spelling links only for real slips
(:mod:`kgbuild.link.spelling`), common words kept from naming a concept
(:mod:`kgbuild.link.generic`), and the node vectors as the last resort
(:mod:`kgbuild.link.linker`). It stands apart from :mod:`kgbuild.query` because a wrong link
decides every answer after it, and it is measured on its own against curated gold
(:mod:`kgbuild.evaluate.linking`); it reads only the search index below it.
"""
