"""The warehouse: immutable Parquet parts, snapshot manifests, and a DuckDB catalog over them."""
