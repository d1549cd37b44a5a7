"""The ASP encodings (package data)."""
