"""list_files and grep: how the model finds its way around a workspace.

Both skip noise directories and honour .gitignore (a build dir would otherwise drown
the answer), cap what they return, and say how much more there was so the model can
narrow the search instead of guessing that it saw everything.
"""

from __future__ import annotations

from ..context import ToolContext
from ..registry import tool
from ..workspace.scan import grep_lines, list_paths

MAX_FILES = 500
MAX_MATCHES = 200


@tool(
    "List files recursively (skipping .gitignore'd and noise folders), optionally "
    "filtered by a glob on the file name.",
    read_only=True,
    path="folder to list, relative to the workspace root (default '.')",
    pattern="glob matched against each file name, e.g. '*.py' (default '*')",
)
async def list_files(ctx: ToolContext, path: str = ".", pattern: str = "*") -> str:
    base = ctx.workspace.resolve(path)
    if not base.exists():
        return f"error: not found: {path}"
    if not base.is_dir():
        return f"error: {path} is a file, not a folder; use read_file to read it"
    result = await list_paths(ctx.workspace, base, pattern or "*", MAX_FILES, ctx.settings.rg_path)
    if result.error:
        return result.error
    out = "\n".join(result.lines)
    if result.total > len(result.lines):
        out += f"\n...and {result.total - len(result.lines)} more files; list a subfolder or use a narrower pattern"
    return out or "(no matching files)"


@tool(
    "Search file contents with a regular expression (ripgrep syntax, much like Python's re "
    "without look-around). Prints path:line: text for each matching line.",
    read_only=True,
    regex="the regular expression to look for",
    path="file or folder to search, relative to the workspace root (default '.')",
)
async def grep(ctx: ToolContext, regex: str, path: str = ".") -> str:
    base = ctx.workspace.resolve(path)
    if not base.exists():
        return f"error: not found: {path}"
    if regex == "":
        return "error: regex must not be empty"
    result = await grep_lines(ctx.workspace, base, regex, MAX_MATCHES, ctx.settings.rg_path)
    if result.error:
        return result.error
    out = "\n".join(result.lines)
    if result.total > len(result.lines):
        out += f"\n...and {result.total - len(result.lines)} more matches; narrow the regex or the path"
    return out or "(no matches)"
