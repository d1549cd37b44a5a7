"""The example snapshots (package data: the workbench offers them)."""
