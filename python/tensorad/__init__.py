"""tensorad: a source-to-source differentiating compiler built on MLIR."""
