"""The command line (``mtgcontrol``): main.py runs it, parser.py declares each
command's arguments, commands.py and check.py run the commands, messages.py writes
every error in one style."""

from .main import main
from .parser import build_parser

__all__ = ["build_parser", "main"]
