"""A preset for rass (PyPI rassumfrassum): agent-lsp beside your own language server.

    rass /path/to/agent-lsp/emacs-client/rass-agent-lsp.py -- ruff server -- agent-lsp serve

rass answers the editor's `initialize` with whatever its servers said within 3 s and
drops a server that answers later, for the whole session. agent-lsp needs about 1 s to
start, and more on a busy machine, so here `initialize` may take up to 20 s. Nothing else
changes. (emacs-client/agent-lsp-eglot.el passes this file when `agent-lsp-beside` is set.)
"""

from rassumfrassum.frassum import LspLogic

INITIALIZE_TIMEOUT_MS = 20000


class AgentLspLogic(LspLogic):
    def get_aggregation_timeout_ms(self, method):
        if method == "initialize":
            return INITIALIZE_TIMEOUT_MS
        return super().get_aggregation_timeout_ms(method)


def servers():
    return []  # the servers come after `--`: yours first (hover and the like go to the first)


def logic_class():
    return AgentLspLogic
