"""kgbuild: a batch pipeline that turns biomedical literature into a versioned knowledge graph.

The package layout mirrors the pipeline: ``sources`` → ``extract`` → ``build`` → ``store``.
Every stage passes the records of :mod:`kgbuild.records` on to the next.
"""

__version__ = "0.1.0"
