"""Data sets that work offline (synthetic generators; nothing is downloaded)."""
