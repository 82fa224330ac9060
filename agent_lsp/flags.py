"""The terminal's and ACP's command-line flags as settings: one reading for every face that has flags.

Precedence: the environment < the settings files (policy/settings_files.py) < these flags.
"""

from __future__ import annotations

import argparse
from typing import Any

from .agent.policy import settings_files
from .agent.settings import Settings


def flag_values(args: argparse.Namespace) -> dict[str, Any]:
    """The flags that name a setting (None: not given, the files or the defaults decide)."""
    return {
        "base_url": getattr(args, "base_url", None),
        "model": getattr(args, "model", None),
        "max_steps": getattr(args, "max_steps", None),
        "command_timeout": getattr(args, "timeout", None),
    }


def apply_switches(settings: Settings, args: argparse.Namespace) -> Settings:
    """The on/off flags, which win over every file: --no-stream, --web, --yes."""
    if getattr(args, "no_stream", False):
        settings.stream = False
    if getattr(args, "web", False):
        settings.web_tools = True
    settings.auto_approve = bool(getattr(args, "yes", False))
    return settings


def settings_from_flags(args: argparse.Namespace, files: settings_files.SettingsFiles | None = None,
                        trusted: bool = False) -> tuple[Settings, list[str]]:
    """env < settings files < flags; `files` None means no files (the demo's scratch folder)."""
    s, notes = settings_files.compose(files or settings_files.SettingsFiles(None), trusted, flag_values(args))
    return apply_switches(s, args), notes
