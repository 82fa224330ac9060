"""LSP features, one module each; importing this package registers them on `app.server`."""

from . import code_actions, commands, configuration, documents, lifecycle, memory, review, sessions, undo
