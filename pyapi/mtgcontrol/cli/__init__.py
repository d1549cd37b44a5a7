"""The command line (``mtgcontrol``): run.py runs it, parser.py declares each
command's arguments, commands.py and check.py run the commands, messages.py writes
every error in one style."""

from .parser import build_parser
from .run import main

__all__ = ["build_parser", "main"]
