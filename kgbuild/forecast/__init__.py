"""Which links will the literature make next: from a snapshot of year Y and the earlier ones,
score every pair of nodes not yet joined (Swanson's ABC model, as link prediction).

``graph`` reads one snapshot's served graph as arrays (what *joined* means, the candidates);
``snapshots`` resolves a KG's yearly snapshots and reads them through a reader that cannot reach
past its horizon; ``features`` builds the feature families of a pair; ``names`` the optional
name feature (all-MiniLM-L6-v2, learnt outside the time split: off by default); ``model`` fits
the LightGBM ranker on the earlier snapshots; ``predict`` scores and ranks the candidates.
How well it forecasts is measured by ``kgbuild.evaluate.forecast`` (``kgbuild eval forecast``).
"""

from kgbuild.forecast.features import FEATURES, Features, feature_names
from kgbuild.forecast.graph import JOINED, TYPES, Graph, candidate_blocks, load_graph
from kgbuild.forecast.model import MODEL_PARAMS, N_TREES, TRAIN_LAGS, TrainingSlice, fit
from kgbuild.forecast.names import NAME_FEATURE, NameEmbedder, embed_names
from kgbuild.forecast.predict import score, top_k
from kgbuild.forecast.snapshots import LeakageError, SnapshotReader, yearly_snapshots

__all__ = [
    "FEATURES",
    "JOINED",
    "MODEL_PARAMS",
    "NAME_FEATURE",
    "N_TREES",
    "TRAIN_LAGS",
    "TYPES",
    "Features",
    "Graph",
    "LeakageError",
    "NameEmbedder",
    "SnapshotReader",
    "TrainingSlice",
    "candidate_blocks",
    "embed_names",
    "feature_names",
    "fit",
    "load_graph",
    "score",
    "top_k",
    "yearly_snapshots",
]
