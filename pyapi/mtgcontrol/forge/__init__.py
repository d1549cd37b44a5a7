"""Forge game states (puzzles ``.pzl`` and dev-mode dumps) as ``snapshot/1`` lines.

``gamestate`` reads Forge's game-state text, ``cardscript`` Forge's card scripts,
``translate`` turns one state into a snapshot whose ``claims`` are Forge's view of
owners and controllers, ``command`` is ``mtgcontrol import forge``, ``page`` its
``--html`` page.  docs/forge.md describes the mapping and every report code.
"""
