"""The ACP face: `agent-lsp acp` speaks the Agent Client Protocol over stdio (Zed, JetBrains, ...).

Built on the official SDK (`agent-client-protocol`, import name `acp`), which only this
package imports, so the language server's startup never pays for it.
"""
