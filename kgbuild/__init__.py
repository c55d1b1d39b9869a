"""kgbuild: a batch pipeline that turns biomedical literature into a versioned knowledge graph.

The package layout mirrors the pipeline: ``sources`` → ``extract`` → ``build`` → ``store``.
Every stage passes the records of :mod:`kgbuild.records` on to the next.
"""

from kgbuild import thinc_torch

__version__ = "0.1.0"

thinc_torch.install()  # spaCy without torch: ~2 s less per build process (see the module)
