"""Reproductions of the source documents' experiments (see docs/experiments.md)."""
