"""The tool set. Import order is registration order, which fixes the tool list's bytes."""

from . import files, search, shell, interact, subagents, notes, web  # noqa: F401  (registration side effects)
