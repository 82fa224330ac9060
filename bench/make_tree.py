"""A big, deterministic source tree to benchmark searching on.

    .venv/bin/python bench/make_tree.py [--files 20000] [--lines 2000000] [--force]

Generates (seeded, so every run and every machine gets the same bytes) a tree of
plausible source text: Python, TypeScript/JavaScript, Go, Rust, Java, C, Markdown,
JSON and YAML files in many nested folders, plus what makes a real checkout slow to
search naively:

* a ``build/`` folder holding a sizeable share of the files, ignored by ``.gitignore``;
* a ``node_modules/`` folder (ignored by ``.gitignore`` and skipped by the agent anyway);
* a few nested ``.gitignore`` files ignoring ``*.log`` files next to them;
* some small binary files (``assets/*.png``) that every searcher must skip;
* a ``.git`` folder (``git init``), so plain ``rg`` honours ``.gitignore`` like in a checkout.

The tree is cached under ``bench/.data/tree`` (the folder is gitignored) together with a
marker file of the parameters; ``ensure_tree()`` reuses it when the marker matches and
rebuilds it otherwise.

Also importable: ``from make_tree import ensure_tree; root = ensure_tree()``.
Known needles (used by bench_search.py): RARE_LITERAL occurs in a handful of files
(also in ignored ones, so a search that leaks into build/ shows it).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

GENERATOR_VERSION = 3
DATA_DIR = Path(__file__).resolve().parent / ".data"
RARE_LITERAL = "ZANZIBAR_QUOTA_7F3A"


@dataclass(frozen=True)
class TreeParams:
    files: int = 20_000          # all files written, ignored ones included
    lines: int = 2_000_000       # all text lines written, ignored ones included (approximately)
    build_files: int = 4_000     # under build/, ignored by .gitignore
    node_modules_files: int = 1_000
    log_files: int = 100         # *.log files ignored by nested .gitignore files
    binary_files: int = 60       # assets/*.png with NUL bytes
    seed: int = 20240601
    version: int = GENERATOR_VERSION


# ---------------------------------------------------------------- vocabulary

NOUNS = (
    "user account session cache config request response handler buffer index token parser lexer "
    "node tree graph queue worker job task event message channel stream file path record entry "
    "item order invoice payment customer product price metric report logger client server route "
    "model view store state action schema table column query result error option setting plugin "
    "module package layout widget button dialog frame image color font shape point vector matrix "
    "address profile tenant region shard replica snapshot backup policy role permission group "
    "ticket comment review build artifact release version commit branch diff patch hook"
).split()
VERBS = (
    "get set load save parse build render update delete create find fetch send read write open "
    "close start stop handle process validate compute merge split apply reset init flush emit "
    "resolve register convert format encode decode sort filter map reduce check ensure lookup "
    "insert remove clear copy compare scan wait refresh sync publish subscribe notify schedule"
).split()
ADJS = (
    "new old current next previous default local remote pending active raw clean total max min "
    "first last cached shared temp primary secondary stale dirty valid empty full partial"
).split()
WORDS = (
    "the a an of to in for on with by from this that it is are be was were will should must may "
    "can when if then else because while after before each every all some any more less only also "
    "not never always first value list map set key name data time size count limit number string "
    "object function method class type field option default error case note see below above here"
).split()
COMMENTS = (
    "keep this in sync with the server side", "the order matters here", "fast path for the common case",
    "see the design notes", "callers rely on this being idempotent", "do not log the payload",
    "this runs on every request", "retry once on a transient failure", "cheap: the list is short",
    "the lock is held by the caller", "guard against a missing key", "normalise before comparing",
)
MARKERS = ("TODO", "FIXME", "HACK")
DIR_WORDS = (
    "core api auth billing common config data db events handlers http internal io jobs lib "
    "metrics models net orders payments plugins reports search server services storage sync "
    "tasks ui users utils views web workers admin cli client cache queue schema rpc grpc "
    "migrations fixtures integration unit e2e components hooks pages store styles assets docs "
    "guides reference examples tools scripts deploy infra monitoring tracing logging"
).split()

# extension -> relative weight among visible source files
LANGS = {".py": 24, ".ts": 14, ".js": 8, ".go": 12, ".rs": 8, ".java": 8, ".c": 4, ".h": 2,
         ".md": 8, ".json": 5, ".yaml": 4, ".txt": 3}
TOP_DIRS = ("src", "lib", "packages", "services", "internal", "cmd", "tools", "tests", "docs",
            "scripts", "web", "api")


class Gen:
    """Plausible lines of text in several languages, from one seeded Random."""

    def __init__(self, rng: random.Random) -> None:
        self.r = rng

    # -- names
    def noun(self) -> str:
        return self.r.choice(NOUNS)

    def ident(self) -> str:
        r = self.r
        k = r.random()
        if k < 0.45:
            return r.choice(NOUNS)
        if k < 0.8:
            return f"{r.choice(ADJS)}_{r.choice(NOUNS)}"
        return f"{r.choice(NOUNS)}_{r.choice(NOUNS)}"

    def func(self) -> str:
        return f"{self.r.choice(VERBS)}_{self.r.choice(NOUNS)}"

    def camel(self, snake: str) -> str:
        head, *rest = snake.split("_")
        return head + "".join(p.capitalize() for p in rest)

    def cls(self) -> str:
        return self.r.choice(NOUNS).capitalize() + self.r.choice(("Service", "Manager", "Store", "Handler",
                                                                  "Builder", "Client", "Cache", "Repository"))

    def sentence(self, n: int | None = None) -> str:
        n = n or self.r.randint(6, 16)
        words = [self.r.choice(WORDS if self.r.random() < 0.7 else NOUNS) for _ in range(n)]
        return " ".join(words).capitalize() + "."

    def comment(self) -> str:
        r = self.r
        if r.random() < 0.04:
            return f"{r.choice(MARKERS)}: {r.choice(COMMENTS)}"
        return r.choice(COMMENTS) if r.random() < 0.5 else self.sentence(r.randint(4, 10))[:-1]

    # -- one statement in a C-like or Python-like body
    def stmt(self, lang: str, ind: str) -> list[str]:
        r = self.r
        v, f, w = self.ident(), self.func(), self.ident()
        k = r.random()
        cm = "#" if lang == ".py" else "//"
        if lang in (".ts", ".js", ".java"):
            v, f, w = self.camel(v), self.camel(f), self.camel(w)
        let = {".py": "", ".ts": "const ", ".js": "const ", ".go": "", ".rs": "let ", ".java": "var ", ".c": "int "}[lang]
        eq = ":=" if lang == ".go" else "="
        end = "" if lang in (".py", ".go") else ";"
        if k < 0.30:
            return [f"{ind}{let}{v} {eq} {f}({w}){end}"]
        if k < 0.42:
            return [f"{ind}{cm} {self.comment()}"]
        if k < 0.55:
            if lang == ".py":
                return [f"{ind}if {v} is None:", f"{ind}    return {w}"]
            nil = {".go": "nil", ".rs": "None", ".c": "NULL"}.get(lang, "null")
            if lang == ".rs":
                return [f"{ind}if {v}.is_none() {{", f"{ind}    return {w};", f"{ind}}}"]
            return [f"{ind}if ({v} == {nil}) {{" if lang != ".go" else f"{ind}if {v} == {nil} {{",
                    f"{ind}    return {w}{end}", f"{ind}}}"]
        if k < 0.65:
            if lang == ".py":
                return [f"{ind}for item in {v}:", f"{ind}    {f}(item, {w})"]
            if lang == ".go":
                return [f"{ind}for _, item := range {v} {{", f"{ind}    {f}(item, {w})", f"{ind}}}"]
            if lang == ".rs":
                return [f"{ind}for item in {v}.iter() {{", f"{ind}    {f}(item, &{w});", f"{ind}}}"]
            if lang == ".c":
                return [f"{ind}for (size_t i = 0; i < {v}_len; i++) {{", f"{ind}    {f}({v}[i], {w});", f"{ind}}}"]
            return [f"{ind}for (const item of {v}) {{", f"{ind}    {f}(item, {w}){end}", f"{ind}}}"]
        if k < 0.75:
            log = {".py": f'logger.debug("{f}: %s", {v})', ".go": f'log.Printf("{f}: %v", {v})',
                   ".rs": f'debug!("{f}: {{:?}}", {v});', ".c": f'log_debug("{f}: %d", {v});',
                   ".java": f'LOG.debug("{f}: {{}}", {v});'}.get(lang, f'logger.debug("{f}", {v});')
            return [ind + log]
        if k < 0.85:
            return [f"{ind}{v} {eq if lang != '.go' else '='} {w} + {r.randint(1, 4096)}{end}"]
        if k < 0.92:
            if lang == ".py":
                return [f'{ind}raise ValueError(f"invalid {self.noun()}: {{{v}!r}}")']
            if lang == ".go":
                return [f'{ind}return fmt.Errorf("invalid {self.noun()}: %v", {v})']
            if lang == ".rs":
                return [f'{ind}return Err(Error::invalid("{self.noun()}", {v}));']
            if lang == ".c":
                return [f"{ind}return -E{self.noun().upper()};"]
            return [f'{ind}throw new Error("invalid {self.noun()}: " + {v}){end}']
        return [f"{ind}{f}({v}, {w}){end}"]

    def body(self, lang: str, ind: str) -> list[str]:
        out: list[str] = []
        for _ in range(self.r.randint(3, 14)):
            out += self.stmt(lang, ind)
        ret = self.ident() if lang not in (".ts", ".js", ".java") else self.camel(self.ident())
        out.append(f"{ind}return {ret}" + ("" if lang in (".py", ".go") else ";"))
        return out

    # -- whole blocks
    def block(self, lang: str) -> list[str]:
        r = self.r
        f = self.func()
        a, b = self.ident(), self.ident()
        if lang == ".py":
            if r.random() < 0.25:
                c = self.cls()
                out = [f"class {c}:", f'    """{self.sentence()}"""', ""]
                for _ in range(r.randint(1, 4)):
                    out += [f"    def {self.func()}(self, {a}, {b}=None):", f'        """{self.sentence()}"""']
                    out += self.body(lang, "        ") + [""]
                return out
            return [f"def {f}({a}, {b}=None):", f'    """{self.sentence()}"""'] + self.body(lang, "    ") + ["", ""]
        if lang in (".ts", ".js"):
            f, a, b = self.camel(f), self.camel(a), self.camel(b)
            typ = ": unknown" if lang == ".ts" else ""
            head = f"export function {f}({a}{typ}, {b}{typ}) {{" if r.random() < 0.6 else f"export const {f} = async ({a}{typ}, {b}{typ}) => {{"
            return [f"/** {self.sentence()} */", head] + self.body(lang, "  ") + ["}", ""]
        if lang == ".go":
            g = "".join(p.capitalize() for p in f.split("_"))
            return [f"// {g} {self.sentence()[:-1].lower()}.", f"func {g}({self.camel(a)} *{self.cls()}, {self.camel(b)} string) error {{"] + \
                self.body(lang, "\t") + ["}", ""]
        if lang == ".rs":
            return [f"/// {self.sentence()}", f"pub fn {f}({a}: &{self.cls()}, {b}: &str) -> Result<(), Error> {{"] + \
                self.body(lang, "    ") + ["}", ""]
        if lang == ".java":
            return [f"    /** {self.sentence()} */", f"    public Object {self.camel(f)}(Object {self.camel(a)}, String {self.camel(b)}) {{"] + \
                self.body(lang, "        ") + ["    }", ""]
        if lang in (".c", ".h"):
            if lang == ".h":
                return [f"/* {self.sentence()} */", f"int {f}(struct {self.noun()} *{a}, const char *{b});", ""]
            return [f"/* {self.sentence()} */", f"int {f}(struct {self.noun()} *{a}, const char *{b})", "{"] + \
                self.body(".c", "    ") + ["}", ""]
        if lang == ".md":
            k = r.random()
            if k < 0.15:
                return [f"## {self.sentence(r.randint(2, 5))[:-1]}", ""]
            if k < 0.3:
                return [f"- `{f}`: {self.sentence()}" for _ in range(r.randint(2, 6))] + [""]
            if k < 0.4:
                return ["```python", f"{a} = {f}({b})", f"print({a})", "```", ""]
            return [" ".join(self.sentence() for _ in range(r.randint(1, 3))) for _ in range(r.randint(1, 4))] + [""]
        if lang == ".json":
            return [f'  "{self.camel(a)}": {{', f'    "{self.camel(b)}": "{self.func()}",',
                    f'    "limit": {r.randint(1, 10000)},', f'    "enabled": {r.choice(("true", "false"))}', "  },"]
        if lang == ".yaml":
            return [f"{a}:", f"  {b}: {self.func()}", f"  limit: {r.randint(1, 10000)}",
                    f"  # {self.comment()}"]
        # .txt / .log
        return [f"{time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(1.7e9 + r.randint(0, 10**7)))} "
                f"{r.choice(('INFO', 'DEBUG', 'WARN', 'ERROR'))} {f}: {self.sentence()}"]

    def header(self, lang: str) -> list[str]:
        r = self.r
        if lang == ".py":
            return [f'"""{self.sentence()}"""', "", "from __future__ import annotations", "", "import logging",
                    f"from .{self.noun()} import {self.func()}, {self.func()}", "", "logger = logging.getLogger(__name__)",
                    f"{self.ident().upper()} = {r.randint(1, 999)}", "", ""]
        if lang in (".ts", ".js"):
            return [f"import {{ {self.camel(self.func())} }} from './{self.noun()}';",
                    f"import {{ {self.camel(self.func())} }} from '../{self.noun()}/{self.noun()}';", ""]
        if lang == ".go":
            return [f"package {self.noun()}", "", "import (", '\t"fmt"', '\t"log"', ")", ""]
        if lang == ".rs":
            return [f"use crate::{self.noun()}::{{{self.cls()}, Error}};", "use log::debug;", ""]
        if lang == ".java":
            return [f"package com.example.{self.noun()};", "", "import java.util.List;", "",
                    f"public class {self.cls()} {{", ""]
        if lang in (".c", ".h"):
            return [f'#include "{self.noun()}.h"', "#include <stddef.h>", ""]
        if lang == ".md":
            return [f"# {self.sentence(r.randint(2, 5))[:-1]}", ""]
        if lang == ".json":
            return ["{"]
        return []

    def footer(self, lang: str) -> list[str]:
        if lang == ".java":
            return ["}"]
        if lang == ".json":
            return ['  "version": 1', "}"]
        return []

    def file_text(self, lang: str, n_lines: int, needle: str | None = None) -> str:
        lines = self.header(lang)
        foot = self.footer(lang)
        while len(lines) < n_lines - len(foot):
            lines += self.block(lang)
        lines = lines[: max(1, n_lines - len(foot))] + foot
        if needle:
            at = self.r.randrange(len(lines))
            cm = "#" if lang in (".py", ".yaml") else "//"
            lines.insert(at, f"{cm} quota key {needle} (see ops runbook)")
        return "\n".join(lines) + "\n"


# ---------------------------------------------------------------- layout

def _dir_tree(rng: random.Random, top: str, depth: int, out: list[str]) -> None:
    out.append(top)
    if depth >= 5:
        return
    n = rng.choice((0, 1, 2, 2, 3, 3, 4, 5)) if depth > 0 else rng.randint(4, 8)
    for name in rng.sample(DIR_WORDS, n):
        _dir_tree(rng, f"{top}/{name}", depth + 1, out)


def _line_counts(rng: random.Random, n: int, total: int) -> list[int]:
    raw = [min(4000.0, max(4.0, rng.lognormvariate(4.2, 0.9))) for _ in range(n)]
    scale = total / sum(raw)
    return [max(3, round(x * scale)) for x in raw]


def _file_name(rng: random.Random, gen: Gen, ext: str, used: set[str]) -> str:
    while True:
        stem = gen.func() if rng.random() < 0.5 else gen.ident()
        if ext in (".ts", ".js", ".java"):
            stem = gen.camel(stem)
            if ext == ".java":
                stem = stem[0].upper() + stem[1:]
        if ext == ".md":
            stem = stem.upper() if rng.random() < 0.2 else stem
        name = stem + ext
        if name not in used:
            used.add(name)
            return name


def generate(root: Path, p: TreeParams) -> dict[str, int]:
    """Write the tree into `root` (which must not exist). Returns counts by category."""
    rng = random.Random(p.seed)
    gen = Gen(rng)
    root.mkdir(parents=True)
    n_log_dirs = max(1, p.log_files // 20)  # each gets a .gitignore
    visible = p.files - p.build_files - p.node_modules_files - p.log_files - p.binary_files - n_log_dirs - 4
    counts = {"visible": visible, "build": p.build_files, "node_modules": p.node_modules_files,
              "log": p.log_files, "nested_gitignore": n_log_dirs, "binary": p.binary_files, "meta": 4}
    # average lines per text file, the same for every category
    per_file = p.lines / (p.files - p.binary_files)

    dirs: list[str] = []
    for top in TOP_DIRS:
        _dir_tree(rng, top, 0, dirs)
    dir_lang = {d: rng.choices(list(LANGS), weights=list(LANGS.values()))[0] for d in dirs}
    used: dict[str, set[str]] = {}

    def write(rel: str, text: str | bytes) -> None:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")

    # needle placement: a few visible files, and some ignored ones that must not show up
    needle_visible = set(rng.sample(range(visible), 5))
    needle_build = set(rng.sample(range(p.build_files), 3))

    visible_paths: list[tuple[str, str]] = []
    for i, n_lines in enumerate(_line_counts(rng, visible, int(per_file * visible))):
        d = rng.choice(dirs)
        ext = dir_lang[d] if rng.random() < 0.75 else rng.choices(list(LANGS), weights=list(LANGS.values()))[0]
        name = _file_name(rng, gen, ext, used.setdefault(d, set()))
        rel = f"{d}/{name}"
        visible_paths.append((rel, ext))
        write(rel, gen.file_text(ext, n_lines, RARE_LITERAL if i in needle_visible else None))

    # build/: compiled copies of sources (ignored)
    for i, n_lines in enumerate(_line_counts(rng, p.build_files, int(per_file * p.build_files))):
        src, ext = rng.choice(visible_paths)
        out_ext = {".ts": ".js", ".py": ".py", ".go": ".go"}.get(ext, ".js")
        sub = rng.choice(("lib", "dist", "gen", "out/cjs", "out/esm"))
        rel = f"build/{sub}/{Path(src).parent}/{i:05d}_{Path(src).stem}{out_ext}"
        lang = out_ext if out_ext in LANGS else ".js"
        write(rel, gen.file_text(lang, n_lines, RARE_LITERAL if i in needle_build else None))

    # node_modules/: third-party packages (ignored)
    pkgs = sorted({f"{gen.noun()}-{gen.r.choice(VERBS)}" for _ in range(p.node_modules_files // 8)})
    nm_counts = _line_counts(rng, p.node_modules_files, int(per_file * p.node_modules_files))
    for i, n_lines in enumerate(nm_counts):
        pkg = pkgs[i % len(pkgs)]
        if i < len(pkgs):
            write(f"node_modules/{pkg}/package.json",
                  json.dumps({"name": pkg, "version": f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}",
                              "main": "index.js"}, indent=2) + "\n")
            continue
        rel = f"node_modules/{pkg}/lib/{i:04d}_{gen.camel(gen.func())}.js"
        write(rel, gen.file_text(".js", n_lines, RARE_LITERAL if i == len(pkgs) + 1 else None))

    # nested .gitignore files with the *.log files they ignore
    log_dirs = rng.sample([d for d in dirs if d.count("/") >= 1], n_log_dirs)
    for d in log_dirs:
        write(f"{d}/.gitignore", "*.log\ncoverage/\n")
    for i, n_lines in enumerate(_line_counts(rng, p.log_files, int(per_file * p.log_files))):
        d = log_dirs[i % len(log_dirs)]
        write(f"{d}/run-{i:03d}.log", gen.file_text(".txt", n_lines))

    # binary assets
    for i in range(p.binary_files):
        blob = bytes([0x89]) + b"PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + rng.randbytes(rng.randint(500, 6000))
        write(f"assets/img/icon_{i:03d}.png", blob)

    # the 4 meta files
    write(".gitignore", "# build output\nbuild/\nnode_modules/\n*.pyc\n__pycache__/\n.env\n")
    write("README.md", gen.file_text(".md", 120))
    write(".github/workflows/ci.yml", gen.file_text(".yaml", 40))
    write(".editorconfig", "root = true\n\n[*]\nindent_style = space\nindent_size = 4\n")

    # a repository, so that plain `rg` applies .gitignore as it would in a checkout
    if shutil.which("git"):
        subprocess.run(["git", "init", "-q", str(root)], check=True,
                       env={**os.environ, "GIT_TEMPLATE_DIR": ""})
    else:
        (root / ".git").mkdir()
    return counts


def _marker(base: Path) -> Path:
    return base.with_name(base.name + ".params.json")


def ensure_tree(params: TreeParams | None = None, base: Path | None = None, *,
                force: bool = False, quiet: bool = False) -> Path:
    """The tree's root, generating it first unless a matching one is cached."""
    p = params or TreeParams()
    root = base or DATA_DIR / "tree"
    marker = _marker(root)
    want = asdict(p)
    if not force and root.is_dir() and marker.is_file():
        try:
            if json.loads(marker.read_text())["params"] == want:
                return root
        except (ValueError, KeyError):
            pass
    if root.exists():
        shutil.rmtree(root)
    marker.unlink(missing_ok=True)
    t0 = time.perf_counter()
    if not quiet:
        print(f"generating {p.files} files / ~{p.lines} lines under {root} ...", file=sys.stderr, flush=True)
    counts = generate(root, p)
    stats = tree_stats(root)
    marker.write_text(json.dumps({"params": want, "counts": counts, "stats": stats,
                                  "seconds": round(time.perf_counter() - t0, 1)}, indent=2) + "\n")
    if not quiet:
        print(f"done in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
    return root


def tree_stats(root: Path) -> dict[str, int]:
    files = lines = size = 0
    for dirpath, dirnames, filenames in os.walk(root):
        if ".git" in dirnames and Path(dirpath) == root:
            dirnames.remove(".git")
        for name in filenames:
            data = (Path(dirpath) / name).read_bytes()
            files += 1
            size += len(data)
            lines += data.count(b"\n")
    return {"files": files, "lines": lines, "bytes": size}


def describe(root: Path) -> dict:
    return json.loads(_marker(root).read_text())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    d = TreeParams()
    ap.add_argument("--files", type=int, default=d.files)
    ap.add_argument("--lines", type=int, default=d.lines)
    ap.add_argument("--build-files", type=int, default=d.build_files)
    ap.add_argument("--seed", type=int, default=d.seed)
    ap.add_argument("--out", type=Path, default=None, help="where to put the tree (default bench/.data/tree)")
    ap.add_argument("--force", action="store_true", help="regenerate even if a matching tree is cached")
    a = ap.parse_args(argv)
    p = TreeParams(files=a.files, lines=a.lines, build_files=a.build_files, seed=a.seed)
    root = ensure_tree(p, a.out, force=a.force)
    info = describe(root)
    print(root)
    print(json.dumps({"counts": info["counts"], "stats": info["stats"]}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
