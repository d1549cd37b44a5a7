"""Presenting rulings: text tables, HTML pages, explanations and their languages."""
