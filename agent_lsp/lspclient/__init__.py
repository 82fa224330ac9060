"""The agent's own language-server clients (setting `diagnosticServers`), built on pygls' client.

They serve the terminal and editors that cannot answer `agentLsp/diagnostics`: the
agent sends a server the text it just wrote and reads back the problems of that exact
version. Imported only when a server is configured.
"""
