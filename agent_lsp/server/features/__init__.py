"""LSP features, one module each; importing this package registers them on `app.server`."""

from . import code_actions, commands, configuration, documents, lifecycle, review, sessions, undo  # noqa: F401
