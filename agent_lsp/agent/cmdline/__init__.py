"""The command-line judge: what a bash line really runs, and what the approval rules say about it.

A rule in `.agent-lsp/permissions.json` is a convenience on top of the sandbox, not the
boundary, but it must fail closed: an allow rule covers only plain simple commands, a
deny rule is judged on the program that really runs (after wrappers, quoting and flag
spellings), and a line this package cannot read is asked about. Modules:

- `words`: the parsed form (words, redirections, simple commands) both parsers produce;
- `parse`: tree-sitter-bash → that form; `plain`: the same without tree-sitter (the
  VS Code bundle), which gives up ("ask") on anything it does not fully understand;
- `unwrap`: what runs behind `env`, `xargs`, `sudo`, `sh -c '…'`, `eval`, `find -exec`, …;
- `flags`: a command's flags and operands in one spelling (`-fr` = `-r -f` = `--recursive --force`);
- `patterns`: `bash(npm test*)` matched word by word, at word boundaries;
- `risky`: programs that run code from their arguments and options that load code;
- `judge`: allow / deny / ask, with the reasons; `offer`: the rule a "session"/"always" answer adds.
"""
