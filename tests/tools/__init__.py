"""The project's tooling rather than the product: build, CLI, docs, metadata,
benchmark, floor and NEON-estimate tools."""
