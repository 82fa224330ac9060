"""A bash line without tree-sitter (the VS Code bundle carries no platform wheels).

It reads words, quotes, backslashes, `$x`, comments, the list and pipe operators and
plain redirections, exactly as bash does for those; anything more (substitutions,
subshells, groups, compound commands, here-documents, arithmetic, `${x…}` operators)
makes it give up with a reason, and the judge asks. A `#` starts a comment only at the
start of a word, so `echo ok#; touch M` is two commands, as bash runs it (shlex reads a
comment there and would hide `touch`).

`lenient=True` never gives up: it is for scanning a line that cannot be judged for
deny rules, where a wrong guess only means asking or denying more.
"""

from __future__ import annotations

import re

from .words import Parsed, Redirect, SimpleCommand, Word

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL_PARAM = "0123456789@*#?$!-"
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\+?=")
LIST_OPERATORS = frozenset({"&&", "||", ";", "|", "&", "|&"})
# Words that open or close a compound command where a command would start.
KEYWORDS = frozenset({"if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case",
                      "esac", "function", "select", "coproc", "!", "[[", "]]", "{", "}", "((", "))"})


class Doubt(Exception):
    """More than this parser reads: ask."""


class Syntax(Exception):
    """Not valid bash (an unclosed quote, an operator with no command)."""


class _Lexer:
    def __init__(self, line: str, lenient: bool) -> None:
        self.s = line
        self.i = 0
        self.lenient = lenient
        self.tokens: list[tuple[str, object]] = []  # ("word", Word) | ("op", str) | ("redir", str)
        self._reset()

    def _reset(self) -> None:
        self.start: int | None = None
        self.value: list[str] = []
        self.mask: list[str] = []
        self.expands: list[str] = []

    def _doubt(self, reason: str, end: int) -> None:
        if not self.lenient:
            raise Doubt(reason)
        self._expand(self.s[self.i:end], end)

    def _add(self, chars: str, quoted: bool) -> None:
        if self.start is None:
            self.start = self.i
        self.value.append(chars)
        self.mask.append(("q" if quoted else " ") * len(chars))

    def _expand(self, text: str, end: int) -> None:
        if self.start is None:
            self.start = self.i
        self.expands.append(text)
        self.value.append(text)
        self.mask.append("q" * len(text))
        self.i = end

    def _flush(self, end: int) -> None:
        if self.start is not None:
            text = self.s[self.start:end]
            value = "".join(self.value)
            self.tokens.append(("word", Word(text, None if self.expands else value, "".join(self.mask),
                                             tuple(self.expands))))
        self._reset()

    def run(self) -> list[tuple[str, object]]:
        s = self.s
        while self.i < len(s):
            c = s[self.i]
            if c in " \t":
                self._flush(self.i)
                self.i += 1
            elif c == "\n":
                self._flush(self.i)
                self.tokens.append(("op", "\n"))
                self.i += 1
            elif c == "#" and self.start is None:
                end = s.find("\n", self.i)
                self.i = len(s) if end < 0 else end
            elif c == "'":
                end = s.find("'", self.i + 1)
                if end < 0:
                    self._unclosed("'")
                    continue
                self._add(s[self.i + 1:end], True)
                self.i = end + 1
            elif c == '"':
                self._double_quoted()
            elif c == "\\":
                if self.i + 1 >= len(s):
                    if not self.lenient:
                        raise Syntax("the line ends in a backslash")
                    self.i += 1
                elif s[self.i + 1] == "\n":
                    self.i += 2  # a line continuation joins the two lines
                else:
                    self._add(s[self.i + 1], True)
                    self.i += 2
            elif c == "$":
                self._dollar(quoted=False)
            elif c == "`":
                self._doubt("a backtick command substitution", self._to_end_of(s, "`"))
            elif c in ";&|":
                self._operator()
            elif c in "<>":
                self._redirect()
            elif c in "()":
                if not self.lenient:
                    raise Doubt("a subshell, group or function")
                self._flush(self.i)
                self.tokens.append(("op", ";"))
                self.i += 1
            else:
                self._add(c, False)
                self.i += 1
        self._flush(self.i)
        return self.tokens

    def _to_end_of(self, s: str, quote: str) -> int:
        end = s.find(quote, self.i + 1)
        return len(s) if end < 0 else end + 1

    def _unclosed(self, quote: str) -> None:
        if not self.lenient:
            raise Syntax(f"an unclosed {quote} quote")
        self._add(self.s[self.i + 1:], True)
        self.i = len(self.s)

    def _double_quoted(self) -> None:
        s = self.s
        if self.start is None:
            self.start = self.i
        self.i += 1
        while self.i < len(s):
            c = s[self.i]
            if c == '"':
                self.i += 1
                return
            if c == "\\" and self.i + 1 < len(s) and s[self.i + 1] in '$`"\\\n':
                if s[self.i + 1] != "\n":
                    self._add(s[self.i + 1], True)
                self.i += 2
            elif c == "$":
                self._dollar(quoted=True)
            elif c == "`":
                self._doubt("a backtick command substitution", self._to_end_of(s, "`"))
            else:
                self._add(c, True)
                self.i += 1
        self._unclosed('"')

    def _dollar(self, quoted: bool) -> None:
        s, i = self.s, self.i
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if nxt == "(":
            self._doubt("a `$(…)` command substitution or `$((…))` arithmetic", len(s))
        elif nxt == "[":
            self._doubt("`$[…]` arithmetic", len(s))
        elif nxt == "{":
            end = s.find("}", i)
            if end < 0:
                if not self.lenient:
                    raise Syntax("an unclosed ${")
                end = len(s) - 1
            inner = s[i + 2:end]
            if not (_NAME.fullmatch(inner) or (len(inner) == 1 and inner in _SPECIAL_PARAM)):
                self._doubt(f"the parameter expansion `${{{inner}}}`", end + 1)
                return
            self._expand(s[i:end + 1], end + 1)
        elif nxt in ("'", '"') and not quoted:
            # $'…' (ANSI-C) and $"…" (translated): decided by bash, not read here
            j = i + 2
            while j < len(s) and s[j] != nxt:
                j += 2 if s[j] == "\\" else 1
            if j >= len(s) and not self.lenient:
                raise Syntax("an unclosed $" + nxt + " quote")
            self._expand(s[i:j + 1], min(j + 1, len(s)))
        elif nxt and (nxt in _SPECIAL_PARAM):
            self._expand(s[i:i + 2], i + 2)
        elif m := _NAME.match(s, i + 1):
            self._expand(s[i:m.end()], m.end())
        else:
            self._add("$", quoted)
            self.i += 1

    def _operator(self) -> None:
        s, i = self.s, self.i
        two = s[i:i + 2]
        if two == "&>":
            self._redirect()
            return
        self._flush(i)
        op = two if two in ("&&", "||", ";;", "|&", ";&") else s[i]
        self.tokens.append(("op", op))
        self.i += len(op)

    def _redirect(self) -> None:
        s, i = self.s, self.i
        fd = ""
        if self.start is not None and not self.expands and "".join(self.value).isdigit() and \
                set("".join(self.mask)) == {" "}:
            fd = "".join(self.value)  # `2>`: the digits just before are the descriptor
            self._reset()
        else:
            self._flush(i)
        for op in ("<<<", "<<-", "&>>", "<<", ">>", ">|", ">&", "<&", "<>", "&>", "<(", ">(", ">", "<"):
            if s.startswith(op, i):
                break
        if op in ("<<<", "<<-", "<<", "<(", ">("):
            self._doubt({"<(": "a process substitution", ">(": "a process substitution",
                         "<<<": "a here-string"}.get(op, "a here-document"), len(s))
            return
        self.i = i + len(op)
        if op in (">&", "<&") and s.startswith("-", self.i):
            op += "-"
            self.i += 1
        self.tokens.append(("redir", fd + op))


def lex(line: str, *, lenient: bool = False) -> list[tuple[str, object]]:
    """The tokens of `line`; raises Doubt or Syntax unless `lenient`."""
    return _Lexer(line, lenient).run()


def parse_plain(line: str) -> Parsed:
    """`line` as simple commands, or a Parsed with `error` set (asked)."""
    try:
        commands, constructs = _assemble(lex(line), strict=True)
    except Doubt as e:
        return Parsed(error=f"{e} (this server reads only plain commands without tree-sitter)", doubt=True)
    except Syntax as e:
        return Parsed(error=str(e))
    return Parsed(commands=commands, constructs=constructs)


def scan_lenient(line: str) -> list[SimpleCommand]:
    """Every stretch of `line` that looks like a simple command, for deny rules on a line
    that cannot be judged: split at anything that may separate commands, quotes or not."""
    out: list[SimpleCommand] = []
    for piece in re.split(r"[;&|()`\n{}]|\$\(|<\(|>\(", line):
        try:
            commands, _ = _assemble(lex(piece, lenient=True), strict=False)
        except (Doubt, Syntax):
            continue
        out += commands
    return out


def _assemble(tokens: list[tuple[str, object]], strict: bool) -> tuple[list[SimpleCommand], list[str]]:
    commands: list[SimpleCommand] = []
    constructs: list[str] = []
    current: list[tuple[str, object]] = []
    dangling = ""  # the `&&` / `|` that still waits for its command
    for kind, tok in tokens + [("op", "\n")]:
        if kind != "op":
            current.append((kind, tok))
            continue
        op = str(tok)
        if op in (";;", ";&") and strict:
            raise Syntax(f"`{op}` outside a case")
        if current:
            _command(current, commands, constructs, strict)
            current = []
            dangling = op if op in ("&&", "||", "|", "|&") else ""
        elif op != "\n" and strict:
            raise Syntax(f"`{op}` with no command before it")
    if dangling and strict:
        raise Syntax(f"the line ends in `{dangling}`")
    return commands, constructs


def _command(tokens: list[tuple[str, object]], commands: list[SimpleCommand], constructs: list[str],
             strict: bool) -> None:
    cmd = SimpleCommand(text=" ".join(_tok_text(t) for t in tokens))
    pending: str | None = None
    for kind, tok in tokens:
        if kind == "redir":
            if pending is not None:
                raise Syntax(f"`{pending}` with no file after it")
            pending = str(tok)
            continue
        assert isinstance(tok, Word)
        if pending is not None:
            op = pending.lstrip("0123456789")
            cmd.redirects.append(Redirect(f"{pending}{tok.text}", op, tok))
            pending = None
            continue
        if not cmd.words and _ASSIGNMENT.match(tok.text):
            cmd.assignments.append(tok.text)
            continue
        if not cmd.words and strict:
            if "[" in tok.text.split("=")[0] and "=" in tok.text:
                raise Doubt("an array assignment")
            if tok.literal and tok.value in KEYWORDS and "q" not in tok.mask:
                raise Doubt(f"`{tok.value}` (a compound command)")
        if not cmd.words and not strict and tok.value in KEYWORDS and "q" not in tok.mask:
            continue  # scanning: `if rm -rf x` is still rm
        cmd.words.append(tok)
    if pending is not None and strict:
        raise Syntax(f"`{pending}` with no file after it")
    if not cmd.words:
        if cmd.assignments:
            constructs.append(f"`{' '.join(cmd.assignments)}` sets a shell variable")
        elif cmd.redirects:
            constructs.append(f"`{cmd.text}` is a redirection with no command")
        return
    commands.append(cmd)


def _tok_text(token: tuple[str, object]) -> str:
    _kind, tok = token
    return tok.text if isinstance(tok, Word) else str(tok)
