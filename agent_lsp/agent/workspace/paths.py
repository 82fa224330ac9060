"""Path confinement: the one function every file tool resolves a path through.

Resolve first, then compare: `resolve()` collapses `..` and follows symlinks, so
`../../etc/passwd`, an absolute path elsewhere and a symlink pointing out are all
caught by the same comparison. `is_relative_to` compares path components, so a
sibling sharing a prefix (`/ws2` next to `/ws`) is not mistaken for the inside.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


PROTECTED_DIRS = frozenset({".git", ".agent-lsp"})


class PathError(ValueError):
    """A path the agent may not touch; its message is written for the model."""


@dataclass
class Workspace:
    """The folders the agent may read and write. `roots[0]` is where relative paths start."""

    roots: list[Path]
    _resolved: list[Path] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.roots:
            raise ValueError("a workspace needs at least one root folder")
        self.roots = [Path(r).resolve() for r in self.roots]
        self._resolved = list(self.roots)

    @property
    def root(self) -> Path:
        return self.roots[0]

    def with_primary(self, folder: Path | None) -> "Workspace":
        """The same roots with `folder`'s root first (commands run in the task's folder)."""
        if folder is None:
            return self
        owner = self.owner(Path(folder).resolve())
        if owner is None or owner == self.root:
            return self
        return Workspace([owner] + [r for r in self.roots if r != owner])

    def owner(self, resolved: Path) -> Path | None:
        # The deepest root wins so nested workspace folders display naturally.
        best: Path | None = None
        for root in self._resolved:
            if resolved == root or resolved.is_relative_to(root):
                if best is None or len(root.parts) > len(best.parts):
                    best = root
        return best

    def resolve(self, path: str) -> Path:
        """Return the real absolute path for `path`, or raise PathError if it leaves the workspace."""
        if not isinstance(path, str) or not path.strip():
            raise PathError("error: path must be a non-empty string")
        if "\x00" in path:
            raise PathError("error: path contains a NUL byte")
        raw = Path(path).expanduser() if path.startswith("~") else Path(path)
        candidate = raw if raw.is_absolute() else self.root / raw
        try:
            resolved = candidate.resolve()
        except (OSError, RuntimeError) as e:  # symlink loops
            raise PathError(f"error: cannot resolve path {path}: {e}") from None
        if self.owner(resolved) is None:
            roots = ", ".join(str(r) for r in self.roots)
            raise PathError(
                f"error: path escapes the workspace: {path} (resolves to {resolved}; "
                f"allowed: {roots}). Use a path relative to the workspace root."
            )
        return resolved

    def protected(self, resolved: Path) -> str | None:
        """The metadata folder (`.git`, `.agent-lsp`) a resolved path lies in, or None.

        git runs what `.git/config` and `.git/hooks` name, and agent-lsp reads its rules and
        settings from `.agent-lsp/`: a file tool that wrote there would let the model raise its
        own permissions. Compared without case (case-insensitive file systems).
        """
        owner = self.owner(resolved)
        parts = resolved.relative_to(owner).parts if owner is not None else resolved.parts
        for part in parts:
            if part.lower() in PROTECTED_DIRS:
                return part
        return None

    def contains(self, path: Path) -> bool:
        """Is an already-absolute path (e.g. a walk result) really inside after resolving links?"""
        try:
            return self.owner(path.resolve()) is not None
        except (OSError, RuntimeError):
            return False

    def display(self, resolved: Path) -> str:
        """How a path is shown to the model: relative to the primary root when possible."""
        if resolved == self.root:
            return "."
        if resolved.is_relative_to(self.root):
            return str(resolved.relative_to(self.root))
        return str(resolved)
