"""Rules as people write them (`bash(npm test*)`), matched word by word.

- The pattern's words are read like shell words (quotes group, `\\` escapes); an
  unquoted `*` is the wildcard. As a whole word it stands for any number of words;
  inside a word, for any characters of that one word. A trailing `*` — `npm test*` or
  `npm test *` — means "then any further words": it covers `npm test` and
  `npm test -- -u`, never `npm testx` (rules match at word boundaries).
- An allow rule is matched against the words as typed (after quote removal), in order.
- A deny rule is matched against the shape of what runs (`flags.shape`): the same
  program base name, every flag of the rule among the command's flags in any order
  and spelling, the rule's operands in order among the command's (git's subcommand first:
  `git -C . push` is `git push`, `git log push` is not); without a trailing `*`, exactly
  the rule's operands.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from .flags import Shape, shape
from .plain import lex
from .risky import loading_options
from .words import Word

STAR = "\0"  # an unquoted `*` in a pattern word


@dataclass(frozen=True)
class BashPattern:
    rule: str
    words: tuple[str, ...]  # values, with STAR for each unquoted `*`
    prefix: bool  # a trailing `*`: any further words

    @property
    def literal_len(self) -> int:
        """How many leading words hold no wildcard (what the person spelled out)."""
        n = 0
        for w in self.words:
            if STAR in w:
                break
            n += 1
        return n


def bash_body(rule: str) -> str | None:
    """`npm test*` for `bash(npm test*)`; None for a tool rule."""
    rule = rule.strip()
    if rule.startswith("bash(") and rule.endswith(")"):
        return rule[5:-1].strip()
    return None


@lru_cache(maxsize=512)
def parse_rule(rule: str) -> BashPattern | None:
    """The pattern of a `bash(...)` rule; None for other rules and for bodies that hold
    operators or redirections (a rule is about one simple command: it matches nothing)."""
    body = bash_body(rule)
    if body is None:
        return None
    words: list[str] = []
    for kind, tok in lex(body, lenient=True):
        if kind != "word" or not isinstance(tok, Word):
            return BashPattern(rule, ("\0never\0",), False) if kind == "redir" or tok != "\n" else None
        value = tok.value if tok.value is not None else tok.text
        mask = tok.mask if tok.value is not None else "q" * len(value)
        words.append("".join(STAR if c == "*" and m != "q" else c for c, m in zip(value, mask)))
    prefix = False
    if words and words[-1] == STAR:
        words.pop()
        prefix = True
    elif words and words[-1].endswith(STAR):
        if STAR not in words[-1][:-1]:
            words[-1] = words[-1][:-1]  # `npm test*`: `test`, then any words; `*evil*` keeps its stars
        prefix = True
    return BashPattern(rule, tuple(words), prefix)


@lru_cache(maxsize=2048)
def _regex(word: str) -> re.Pattern[str]:
    return re.compile("[^\0]*".join(re.escape(part) for part in word.split(STAR)), re.DOTALL)


def word_eq(pattern: str, value: str | None) -> bool:
    """One pattern word against one value (None, decided at run time, matches nothing)."""
    if value is None:
        return False
    if STAR not in pattern:
        return pattern == value
    return _regex(pattern).fullmatch(value) is not None


def allow_matches(pattern: BashPattern, values: list[str]) -> bool:
    """Do the command's words, in order, fit the pattern?"""
    words = pattern.words
    n, m = len(words), len(values)
    # reach[j]: the first j values are matched by the pattern words seen so far
    reach = [True] + [False] * m
    for w in words:
        nxt = [False] * (m + 1)
        if w == STAR:
            seen = False
            for j in range(m + 1):
                seen = seen or reach[j]
                nxt[j] = seen
        else:
            for j in range(m):
                if reach[j] and word_eq(w, values[j]):
                    nxt[j + 1] = True
        reach = nxt
    del n
    return any(reach) if pattern.prefix else reach[m]


def covers(pattern: BashPattern, values: list[str]) -> tuple[bool, list[str]]:
    """Does an allow rule cover this plain command? A rule with a wildcard does not cover
    an option past its spelled-out words that makes the program load other code
    (`python3 -m pytest -p evil` under `bash(python3 -m pytest*)`): those are the reasons."""
    if not allow_matches(pattern, values):
        return False, []
    if not pattern.prefix and all(STAR not in w for w in pattern.words):
        return True, []  # the exact command a person allowed
    risky = loading_options(values, max(1, pattern.literal_len))
    return (not risky), [f"{r} (not covered by {pattern.rule})" for r in risky]


@lru_cache(maxsize=512)
def _pattern_shape(pattern: BashPattern) -> Shape:
    return shape([w for w in pattern.words if w != STAR])


def deny_matches(pattern: BashPattern, values: list[str | None], open_args: bool = False) -> str | None:
    """"yes" when the command is what the deny rule names, "maybe" when words decided at
    run time could make it so, None when it cannot be."""
    if not pattern.words:
        return "yes"  # bash(*): every command
    p = _pattern_shape(pattern)
    c = shape(values, open_args)
    if not word_eq(p.program, c.program):
        return None
    missing = [f for f in p.flags if not any(word_eq(f, g) for g in c.flags if g is not None)]
    operands_ok = _operands_fit(p.operands, c.operands, pattern.prefix or STAR in pattern.words,
                                anchored=c.program == "git")
    if not missing and operands_ok:
        return "yes"
    if not c.unknown:
        return None
    first = next(iter(c.operands), None)
    if c.program == "git" and p.operands and first is not None and not word_eq(p.operands[0] or "", first):
        return None  # the subcommand is spelled out and it is another one
    return "maybe"


def deny_words(pattern: BashPattern) -> list[str]:
    """The program and operands a deny rule spells out (`rm`; `git`, `push`), for spotting them in text."""
    p = _pattern_shape(pattern)
    return [w for w in [p.program, *(o or "" for o in p.operands)] if w and STAR not in w]


def _operands_fit(want: list[str | None], have: list[str | None], prefix: bool, anchored: bool) -> bool:
    """The rule's operands among the command's: the same list without a trailing `*`; with
    one, in order among them, the first at the front where it is a subcommand (`anchored`:
    git, whose global options are read, so `git log push` is not `git push`)."""
    if not prefix:
        return len(want) == len(have) and all(word_eq(w or "", h) for w, h in zip(want, have))
    if not want:
        return True
    k = 0
    for n, h in enumerate(have):
        if k < len(want) and word_eq(want[k] or "", h):
            k += 1
        elif anchored and n == 0:
            return False
    return k == len(want)
