"""A bash line → its simple commands, with tree-sitter-bash (or `plain` where it is missing).

Every simple command is found, those inside `$(…)`, backticks, process substitutions,
here-documents, functions and loops too; everything that is not a plain simple command
(a declaration, `[[ ]]`, `(( ))`, a bare assignment, a `for` loop that sets a variable,
a node type this module does not know) is recorded as a construct, so the judge asks.
A line tree-sitter reads with an error is not judged at all.

tree-sitter splits `r\\<newline>m` into two words where bash joins them into `rm`, so
line continuations are joined first (outside single quotes and comments, as bash does).
"""

from __future__ import annotations

import functools
import re

from .plain import parse_plain
from .words import Parsed, Redirect, SimpleCommand, Word, literal_word

WORD_NODES = frozenset({"word", "string", "raw_string", "ansi_c_string", "translated_string", "concatenation",
                        "simple_expansion", "expansion", "command_substitution", "process_substitution",
                        "arithmetic_expansion", "number", "brace_expression"})
REDIRECT_NODES = frozenset({"file_redirect", "herestring_redirect", "heredoc_redirect"})
# Statements that only group or sequence others: their simple commands are judged one by one.
CONTAINERS = frozenset({"program", "list", "pipeline", "subshell", "negated_command", "if_statement",
                        "elif_clause", "else_clause", "while_statement", "do_group", "compound_statement",
                        "case_item"})
CONSTRUCTS = {
    "declaration_command": "`{}` declares or exports variables",
    "unset_command": "`{}` unsets variables or functions",
    "variable_assignment": "`{}` sets a shell variable",
    "variable_assignments": "`{}` sets shell variables",
    "function_definition": "`{}` defines a function",
    "for_statement": "`{}` sets a loop variable",
    "c_style_for_statement": "`{}` is an arithmetic loop",
    "select_statement": "`{}` is a select loop",
    "case_statement": "`{}` is a case statement",
}
_PURE_ARITHMETIC = re.compile(r"^\$\(\([0-9\s+\-*/%()<>=!&|^~?:,]*\)\)$")
_COMMENT_START = frozenset(" \t\n;&|()<>")


@functools.cache
def _parser():
    """The bash parser; None without tree-sitter (the VS Code extension's bundled server
    carries no platform binaries): `plain` reads the line then."""
    try:
        import tree_sitter_bash
        from tree_sitter import Language, Parser
    except ImportError:
        return None
    return Parser(Language(tree_sitter_bash.language()))


def parse(line: str) -> Parsed:
    """Every simple command of `line` and every construct that is not one."""
    joined, doubt = join_continuations(line)
    if doubt:
        return Parsed(error=doubt, doubt=True)
    parser = _parser()
    if parser is None:
        return parse_plain(joined)
    tree = parser.parse(joined.encode("utf-8"))
    if tree.root_node.has_error:
        return Parsed(error=f"it does not parse as bash (near `{_first_error(tree.root_node)}`)")
    out = Parsed()
    try:
        _Walk(out).statement(tree.root_node, ())
    except RecursionError:
        return Parsed(error="it nests too deeply to judge")
    misread = next((c.text for c in out.commands if _misread(c)), None)
    if misread is not None:
        return Parsed(error=f"a compound command after `time`, `coproc` or `!` (`{misread[:40]}`) is not read reliably")
    return out


# Words bash reserves where a command starts; tree-sitter-bash reads `time { rm x; }` and
# `coproc NAME { … }` as commands named `{`, `do`, ...: such a parse is not judged.
RESERVED = frozenset({"{", "}", "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for",
                      "case", "esac", "in", "select", "function", "[[", "]]", "(", ")"})


def _misread(cmd: SimpleCommand) -> bool:
    words = cmd.words
    bare = [w.value if w.literal and "q" not in w.mask else None for w in words]
    if bare and bare[0] in RESERVED:
        return True
    if bare and bare[0] in ("time", "coproc"):
        return any(v in RESERVED for v in bare[1:3])
    return False


def join_continuations(line: str) -> tuple[str, str | None]:
    """`line` with backslash-newlines removed where bash removes them; or a reason not to guess."""
    if "\\\n" not in line:
        return line, None
    if "<<" in line:
        return line, "a here-document with a line continuation"
    out: list[str] = []
    i, n, quote = 0, len(line), ""
    while i < n:
        c = line[i]
        if quote == '"':
            if c == "\\" and i + 1 < n:
                if line[i + 1] != "\n":
                    out.append(line[i:i + 2])
                i += 2
                continue
            quote = "" if c == '"' else quote
        elif c == "\\" and i + 1 < n:
            if line[i + 1] != "\n":
                out.append(line[i:i + 2])
            i += 2
            continue
        elif c in "'" or (c == "$" and line[i + 1:i + 2] == "'"):
            j = i + (2 if c == "$" else 1)
            while j < n and line[j] != "'":
                j += 2 if (c == "$" and line[j] == "\\") else 1
            out.append(line[i:j + 1])
            i = j + 1
            continue
        elif c == "#" and (i == 0 or line[i - 1] in _COMMENT_START):
            j = line.find("\n", i)
            j = n if j < 0 else j
            out.append(line[i:j])
            i = j
            continue
        elif c == '"':
            quote = '"'
        out.append(c)
        i += 1
    return "".join(out), None


def _first_error(node) -> str:
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "ERROR" or n.is_missing:
            return n.text.decode("utf-8", "replace")[:40] or n.type
        stack.extend(reversed(n.children))
    return node.text.decode("utf-8", "replace")[:40]


def _text(node) -> str:
    return node.text.decode("utf-8", "replace")


class _Walk:
    def __init__(self, out: Parsed) -> None:
        self.out = out

    def statement(self, node, redirects: tuple[Redirect, ...]) -> None:
        kind = node.type
        if not node.is_named or kind == "comment":
            return
        if kind == "command":
            self.command(node, redirects, ())
        elif kind == "redirected_statement":
            self.redirected(node, redirects)
        elif kind == "compound_statement" and node.children and node.children[0].type == "((":
            self.construct(node, "`{}` is arithmetic evaluation")
        elif kind == "test_command":
            if node.children and node.children[0].type == "[":
                self.test_brackets(node, redirects)
            else:
                self.construct(node, "`{}` is a test expression")
        elif kind == "list":
            # `a && b && c` is a left-deep chain of lists: walk its spine without recursing
            spine = []
            while node.type == "list" and node.children:
                spine.append(node)
                node = node.children[0]
            self.statement(node, redirects)
            for link in reversed(spine):
                for child in link.children[1:]:
                    self.statement(child, redirects)
        elif kind in CONTAINERS:
            for child in node.children:
                self.inside(child) if child.type in WORD_NODES else self.statement(child, redirects)
        else:
            self.construct(node, CONSTRUCTS.get(kind, "`{}` is a " + kind.replace("_", " ")), redirects)

    def assigned(self, node) -> None:
        """Record the variable a `variable_assignment` (or a loop) sets."""
        name = next((c for c in node.children if c.type in ("variable_name", "subscript")), None)
        if name is not None:
            self.out.assigned.append(_text(name).split("[", 1)[0])

    def construct(self, node, reason: str, redirects: tuple[Redirect, ...] = ()) -> None:
        text = _text(node)
        if node.type in ("variable_assignment", "for_statement", "select_statement"):
            self.assigned(node)
        for child in node.children:
            if child.type == "variable_assignment":
                self.assigned(child)
        self.out.constructs.append(reason.format(text if len(text) <= 60 else text[:57] + "..."))
        for child in node.children:
            if child.type in WORD_NODES or not child.is_named:
                self.inside(child)
            else:
                self.statement(child, redirects) if child.type not in _INNER_ONLY else self.inside(child)

    def redirected(self, node, outer: tuple[Redirect, ...]) -> None:
        own = tuple(self.redirect(c) for c in node.children if c.type in REDIRECT_NODES)
        bodies = [c for c in node.children if c.type not in REDIRECT_NODES and c.is_named]
        if not bodies:
            self.out.constructs.append(f"`{_text(node)}` is a redirection with no command")
        for body in bodies:
            if body.type == "command":
                self.command(body, outer, own)
            else:
                self.statement(body, outer + own)
        for c in node.children:
            if c.type in REDIRECT_NODES:
                self.inside(c)  # `> $(cmd)`, here-document bodies: after the command they feed

    def command(self, node, outer: tuple[Redirect, ...], own: tuple[Redirect, ...]) -> None:
        cmd = SimpleCommand(text=_text(node))
        inner: list[Redirect] = []
        for child in node.children:
            kind = child.type
            if kind == "variable_assignment":
                cmd.assignments.append(_text(child))
                self.assigned(child)
            elif kind == "command_name":
                parts = child.named_children
                cmd.words.append(word(parts[0]) if len(parts) == 1 else _unknown(child))
            elif kind in WORD_NODES:
                cmd.words.append(word(child))
            elif kind in REDIRECT_NODES:
                inner.append(self.redirect(child))
            elif kind != "comment":
                cmd.words.append(_unknown(child))
        if own:
            cmd.text += " " + " ".join(r.text for r in own)
        cmd.redirects = list(outer) + list(own) + inner
        if cmd.words:
            self.out.commands.append(cmd)  # before what its substitutions run: outermost first
        elif cmd.assignments:
            self.out.constructs.append(f"`{cmd.text}` sets a shell variable")
        for child in node.children:
            self.inside(child)

    def test_brackets(self, node, redirects: tuple[Redirect, ...]) -> None:
        """`[ -f x ]` is the `[` builtin: a simple command whose words are the test's."""
        words: list[Word] = []

        def leaves(n) -> None:
            if n.type in WORD_NODES:
                words.append(word(n))
            elif not n.is_named or n.type == "test_operator" or not n.children:
                words.append(literal_word(_text(n)))
            else:
                for c in n.children:
                    leaves(c)

        for child in node.children:
            leaves(child)
            self.inside(child)
        self.out.commands.append(SimpleCommand(_text(node), words, [], list(redirects)))

    def redirect(self, node) -> Redirect:
        kind = node.type
        if kind == "heredoc_redirect":
            op = next((_text(c) for c in node.children if c.type in ("<<", "<<-")), "<<")
            body = "".join(_text(c) for c in node.children if c.type == "heredoc_body")
            return Redirect(_text(node).split("\n", 1)[0], op, body=body)
        if kind == "herestring_redirect":
            target = next((c for c in node.named_children), None)
            return Redirect(_text(node), "<<<", word(target) if target is not None else None)
        op = next((_text(c) for c in node.children if not c.is_named), ">")
        targets = [c for c in node.named_children if c.type != "file_descriptor"]
        target = word(targets[-1]) if len(targets) == 1 else (_unknown(node) if targets else None)
        return Redirect(_text(node), op, target)

    def inside(self, node) -> None:
        """The statements inside substitutions anywhere below a word or redirection."""
        if node.type in ("command_substitution", "process_substitution"):
            for child in node.children:
                self.statement(child, ())
            return
        for child in node.children:
            self.inside(child)


# Named nodes under constructs that hold words, names or patterns, never statements.
_INNER_ONLY = frozenset({"variable_name", "subscript", "array", "case_item_pattern", "extglob_pattern",
                         "regex", "binary_expression", "unary_expression", "parenthesized_expression",
                         "test_operator", "special_variable_name", "heredoc_body", "heredoc_start",
                         "variable_assignment"})


def _unknown(node) -> Word:
    text = _text(node)
    return Word(text, None, "", (text,))


def word(node) -> Word:
    """A word node's value after quote removal, or None for what expands at run time."""
    kind, text = node.type, _text(node)
    if kind == "word":
        if "\\" not in text:
            return Word(text, text, " " * len(text))
        value, mask = _unescape(text, "")
        return Word(text, value, mask)
    if kind == "number":
        return literal_word(text)
    if kind == "raw_string":
        inner = text[1:-1]
        return Word(text, inner, "q" * len(inner))
    if kind == "arithmetic_expansion" and _PURE_ARITHMETIC.match(text):
        return literal_word(text)  # numbers and operators only: nothing in it can run
    if kind in ("string", "concatenation"):
        values, masks, expands = [], [], []
        for child in node.children:
            if kind == "string" and child.type == '"':
                continue
            if kind == "string" and child.type == "string_content":
                v, m = _unescape(_text(child), '$`"\\\n')
                part = Word(_text(child), v, m)
            elif not child.is_named:
                t = _text(child)
                part = Word(t, t, ("q" if kind == "string" else " ") * len(t))
            else:
                part = word(child)
            if part.value is None:
                expands += list(part.expands)
            else:
                values.append(part.value)
                masks.append(part.mask if kind != "string" else "q" * len(part.value))
        if expands:
            return Word(text, None, "", tuple(expands))
        return Word(text, "".join(values), "".join(masks))
    if kind == "brace_expression":
        return Word(text, text, " " * len(text))  # its `brace` property makes it non-literal
    return Word(text, None, "", (text,))


def _unescape(text: str, escapable: str) -> tuple[str, str]:
    """Backslash removal: bare words drop every backslash; double quotes only before `escapable`."""
    value: list[str] = []
    mask: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and (not escapable or text[i + 1] in escapable):
            if text[i + 1] != "\n":
                value.append(text[i + 1])
                mask.append("q")
            i += 2
            continue
        value.append(c)
        mask.append("q" if escapable else " ")
        i += 1
    return "".join(value), "".join(mask)
