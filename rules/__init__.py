"""The rules catalog (package data)."""
