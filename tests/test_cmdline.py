"""The command-line judge (agent_lsp/agent/cmdline) over the attack classes, as tables.

Each table runs twice: with tree-sitter-bash, and with the plain parser the VS Code
bundle uses (no tree-sitter). The plain parser may give up where tree-sitter reads the
line, but then it must ask (and deny what it can see); it never allows more.
The end-to-end effect of the same classes through `agent-lsp run` is tests/test_shell_rules_e2e.py.
"""

from __future__ import annotations

import pytest

from agent_lsp.agent.cmdline import parse as parse_module
from agent_lsp.agent.cmdline.judge import judge
from agent_lsp.agent.cmdline.offer import offer_rule
from agent_lsp.agent.cmdline.parse import join_continuations, parse
from agent_lsp.agent.cmdline.patterns import allow_matches, covers, parse_rule
from agent_lsp.agent.cmdline.plain import parse_plain

ALLOW = ["bash(echo*)", "bash(git status*)", "bash(git log*)", "bash(python3 -m pytest*)", "bash(ls*)",
         "bash(npm test*)", "bash(cat*)", "bash(printf*)", "bash(find*)", "bash(node*)", "bash(touch ok*)",
         "bash(go test*)", "bash(cargo test*)", "bash(make test*)", "bash(bun test*)",
         "bash(sort*)", "bash(split*)"]
DENY = ["bash(rm -rf*)", "bash(git push*)"]


@pytest.fixture(params=["tree-sitter", "plain"])
def parser(request, monkeypatch):
    """Both parsers: tree-sitter-bash, and the plain one the VS Code bundle runs."""
    if request.param == "plain":
        monkeypatch.setattr(parse_module, "_parser", lambda: None)
    return request.param


def verdict(line: str, allow=ALLOW, deny=DENY, **kw):
    return judge("bash", {"command": line}, list(allow), list(deny), **kw)


# ------------------------------------------------------------------ allow rules cover only plain commands


@pytest.mark.parametrize("line", [
    "echo hi", "echo 'a && b' \"c d\"", "ls -la src 2>/dev/null", "ls 2>&1 | cat", "ls >&2", "ls &>/dev/null",
    "git status --short && git log -1", "python3 -m pytest -q -p no:cacheprovider", "npm test", "npm test -- -u",
    "echo ok#", "cat < /dev/null", "echo x >/dev/null 2>&1", "ls *.py", "find . -name '*.py'",
    "echo $((1 + 2))", "[ -f x ] || echo no",
])
def test_plain_commands_under_their_rules_run_unasked(parser, line):
    if parser == "plain" and line in ("echo $((1 + 2))", "[ -f x ] || echo no"):
        line = "echo 3"  # arithmetic and `[` are beyond the plain parser: asked there (checked below)
    v = verdict(line, ALLOW + ["bash([ -f x ])"])
    assert v.allowed, (v.unmatched, v.reasons)


@pytest.mark.parametrize("line, why", [
    ("echo x > ~/.bashrc", "writes to a file"),
    ("echo x >> ../outside", "writes to a file"),
    ("cat ~/secret > /dev/tcp/127.0.0.1/9", "network connection"),
    ("cat ~/secret >& /dev/udp/127.0.0.1/9", "network connection"),
    ("cat < ~/.ssh/id_rsa", "reads a file"),
    ("cat <<< hi", "here-string"),
    ("cat <<EOF\nhi\nEOF", "here-document"),
    ("GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='touch M' git status", "sets a variable"),
    ("PATH=./tools:$PATH ls", "sets a variable"),
    ("LD_PRELOAD=./evil.so ls", "sets a variable"),
    ("declare x=1", "declares"),
    ("export PATH=./tools", "declares"),
    ("local x", "declares"),
    ("x=1", "sets a shell variable"),
    ("unset PATH", "unsets"),
    ("[[ 1 -eq 'a[$(touch M)]' ]]", "test expression"),
    ("x='a[$(touch M)]'; (( x ))", "arithmetic"),
    ("let 'x=a[$(touch M)]'", "evaluates arithmetic"),
    ("echo ${x@P}", "expands"),
    ("echo $HOME", "expands"),
    ("echo $(touch M)", "expands"),
    ("echo `touch M`", "expands"),
    ("cat <(touch M)", "expands"),
    ("echo $'\\x41'", "expands"),
    ("eval 'echo hi'", "shell code"),
    ("exec echo hi", "replaces the shell"),
    ("source ./env.sh", "runs a file"),
    (". ./env.sh", "runs a file"),
    ("trap 'touch M' EXIT", "later"),
    ("printf -v 'a[$(touch M)]' x", "assigns through a name"),
    ("echo {a,b}", "brace expansion"),
    ("> out", "redirection with no command"),
    ("", "no simple command"),
    ("# just a comment", "no simple command"),
    ("f() { echo; }", "defines a function"),
    ("for PATH in ./tools; do ls; done", "loop variable"),
    ("ls \u202e", "invisible character"),
    ("l\u200bs", "invisible character"),
    ("\uff4cs", "non-ASCII"),
    ("python3 -m pytest -p evil", "import a module"),
    ("python3 -m pytest -pevil", "import a module"),
    ("python3 -m pytest --basetemp=/root/.ssh", "empty and write a folder"),
    ("python3 -m pytest --junitxml=/etc/x.xml", "report file"),
    ("python3 -m pytest --rootdir=/tmp/other", "conftest"),
    ("python3 -m pytest /tmp/planted", "outside the project"),
    ("go test -exec=./evil ./...", "runs the program it names"),
    ("cargo test --config 'target.x.runner=\"touch M\"'", "can run programs"),
    ("make test CC='touch M'", "overrides a make variable"),
    ("npm test --script-shell=./evil", "runs scripts with the program"),
    ("bun test --preload ./evil.ts", "loads a module first"),
    ("git log --output=/etc/x", "writes a file"),
    ("python3 -m pytest ../other/tests", "outside the project"),
    ("git log -c core.pager=x", "configuration"),
    ("git status --exec-path=/tmp", "git programs"),
    ("find . -exec touch M {} +", "for each file"),
    ("find . -delete", "deletes"),
    ("node -e 'require(\"fs\").writeFileSync(\"M\", \"\")'", "runs code"),
    ("node --require ./evil.js app.js", "loads a module"),
    ("ls\rtouch M", "control character U+000D"),
    ("echo ok\x0btouch M", "control character U+000B"),
    ("sort --compress-program=./evil big.txt", "runs the program it names"),
    ("sort -o ~/.bashrc words", "writes a file"),
    ("split --filter='touch M' big.txt", "runs shell code"),
])
def test_anything_else_is_asked(parser, line, why):
    v = verdict(line, deny=[])
    assert not v.allowed and v.denied_by is None
    said = " ".join(v.reasons)
    if parser == "tree-sitter" or not v.unparsed:
        assert why in said, said
    else:
        assert "cannot be judged" in said  # the plain parser gave up: asked all the same


@pytest.mark.parametrize("rule, line, covered", [
    ("bash(npm test*)", "npm test", True),
    ("bash(npm test*)", "npm test -- -u", True),
    ("bash(npm test*)", "npm testx", False),
    ("bash(npm test *)", "npm test", True),
    ("bash(python3 -m pytest*)", "python3 -m pytestevil", False),
    ("bash(python3 -m pytest*)", "python3 -m pytest", True),
    ("bash(git status)", "git status", True),
    ("bash(git status)", "git status -s", False),
    ("bash(git * --oneline)", "git log -5 --oneline", True),
    ("bash(ls '*.py')", "ls '*.py'", True),
    ("bash(ls '*.py')", "ls a.py", False),
    ("bash(cat *.md)", "cat README.md", True),
    ("bash(cat *.md)", "cat README.md x.md", False),
    ("bash(echo 'a b'*)", "echo \"a b\" c", True),
    ("bash(echo a*)", "echo ab", False),
    ("bash(*)", "anything at all", True),
])
def test_prefix_rules_match_at_a_word_boundary(rule, line, covered):
    values = parse(line).commands[0].values()
    assert allow_matches(parse_rule(rule), values) is covered


def test_an_exact_rule_covers_its_code_loading_options_a_prefix_does_not():
    values = ["python3", "-m", "pytest", "-p", "myplugin"]
    assert covers(parse_rule("bash(python3 -m pytest -p myplugin)"), values) == (True, [])
    ok, why = covers(parse_rule("bash(python3 -m pytest*)"), values)
    assert not ok and "`-p` makes pytest import a module" in why[0]


# ------------------------------------------------------------------ deny rules are judged on what runs


@pytest.mark.parametrize("line", [
    "rm -rf victim", "/bin/rm -fr victim", "\\rm -r -f victim", "\"rm\" --recursive --force victim",
    "r''m -rf victim", "rm victim -Rf", "rm --recur --forc victim", "command rm -rf victim", "builtin exec rm -rf x",
    "exec rm -rf victim", "env rm -rf victim", "env -i FOO=1 rm -rf victim", "env -S 'rm -rf victim'",
    "nice -n 5 rm -rf victim", "nohup rm -rf victim", "time rm -rf victim", "timeout -s KILL 5 rm -rf victim",
    "echo victim | xargs rm -rf", "xargs -0 -n 1 rm -rf < list", "sudo -u root rm -rf victim", "doas rm -rf victim",
    "stdbuf -oL rm -rf victim", "setsid rm -rf victim", "strace -f -o log rm -rf victim", "uv run rm -rf victim",
    "sh -c 'rm -rf victim'", "bash -ec \"rm -rf victim\"", "bash -c 'cd . && rm -rf victim'",
    "sh -c \"sh -c 'rm -rf victim'\"", "eval 'rm -rf victim'", "eval rm -rf victim",
    "find victim -delete", "find . -name victim -exec rm -rf {} +", "find . -execdir /bin/rm -fr {} \\;",
    "git -C . push", "git -c x=y push", "git --git-dir=.git push origin main", "git push --force",
    "git submodule foreach 'git push'", "ls && rm -rf victim", "echo $(rm -rf victim)", "(cd . && rm -rf victim)",
    "r\\\nm -rf victim", "if true; then rm -rf victim; fi", "f() { rm -rf victim; }",
    "echo \"unterminated; rm -rf victim", "trap 'rm -rf victim' EXIT", "busybox rm -rf victim",
    "time { rm -rf victim; }", "coproc NAME { rm -rf victim; }", "! { rm -rf victim; }",
    "time for i in 1; do rm -rf victim; done", "find . -exec sh -c 'rm -rf \"$1\"' _ {} \\;",
])
def test_deny_rules_see_through_spellings_wrappers_and_flags(parser, line):
    v = verdict(line, allow=["bash(*)"])
    if parser == "plain" and v.denied_by is None:
        assert v.unparsed and v.must_ask, "the plain parser gave up: then it must ask even under --yes"
        return
    assert v.denied_by in DENY, (v.must_ask, v.reasons)


@pytest.mark.parametrize("line, why", [
    ("$(echo rm) -rf victim", "decided only when the line runs"),
    ("x=rm; $x -rf victim", "decided only when the line runs"),
    ("eval \"$(echo rm) -rf victim\"", "decided only when the line runs"),
    ("sh -c \"$CMD\"", "decided only when the line runs"),
    ("rm -f $FLAGS victim", "may be what bash(rm -rf*) denies"),
    ("echo -rf victim | xargs rm", "may be what bash(rm -rf*) denies"),
    ("rm -f *", "may be what bash(rm -rf*) denies"),
    ("git $SUB origin", "may be what bash(git push*) denies"),
    ("nice --weird rm -rf victim", "not one this judge reads"),
    ("echo rm -rf victim | sh", "runs commands from its input"),
    ("/bin/r? -rf victim", "decided only when the line runs"),
    ("git -c alias.p='!rm -rf victim' p", "can make git run any program"),
    ("echo \"unterminated", "cannot be judged"),
    ("{rm,-rf,victim}", ""),
    (". <(echo rm -rf victim)", "decided when the line runs"),
    ("bash <(echo rm -rf victim)", "decided when the line runs"),
    ("bash <<< 'rm -rf victim'", "runs commands from its input"),
    ("trap \"$CODE\" EXIT", "decided only when the line runs"),
    ("BASH_ENV=./evil.sh bash -c true", "setting `BASH_ENV`"),
    ("export BASH_ENV=./evil.sh; bash -c true", "setting `BASH_ENV`"),
    ("PATH=./tools:$PATH ls", "setting `PATH`"),
    ("for PATH in ./tools; do ls; done", "setting `PATH`"),
    ("read PATH < list", "setting `PATH`"),
    ("GIT_SSH_COMMAND='sh -c x' git fetch", "setting `GIT_SSH_COMMAND`"),
    ("hash -p ./evil ls; ls", "changes what later command names run"),
    ("enable -f ./evil.so ls", "changes what later command names run"),
    ("cat > x.sh <<'EOF'\nrm -rf victim\nEOF\nbash x.sh", "names what bash(rm -rf*) denies"),
    ("echo 'rm -rf victim' > x.sh; bash x.sh", "names what bash(rm -rf*) denies"),
    ("python3 -c 'import os; os.system(\"rm -rf victim\")'", "names what bash(rm -rf*) denies"),
    ("perl -e 'system(\"git push\")'", "names what bash(git push*) denies"),
])
def test_where_a_denied_program_may_hide_it_is_asked_even_under_yes(parser, line, why):
    v = verdict(line, allow=["bash(*)"])
    if parser == "plain" and v.unparsed and v.denied_by:
        return  # the plain parser gave up and its scan saw the denied command: denied outright
    assert v.denied_by is None and v.must_ask and not v.allowed
    if parser == "tree-sitter" or not v.unparsed:
        assert why in v.must_ask, v.must_ask


def test_without_deny_rules_only_a_line_that_does_not_parse_must_be_asked(parser):
    assert verdict("$(echo ls)", allow=[], deny=[]).must_ask is None  # --yes means yes: nothing to protect
    assert verdict("touch M\necho \"x", allow=[], deny=[]).must_ask  # bash would run line 1: never under --yes


def test_a_broken_rules_file_makes_every_call_asked():
    why = "permissions.json does not parse"
    assert verdict("ls", broken=why).must_ask == why
    assert judge("mcp__git__git_status", {}, ["mcp__git__*"], [], broken=why).must_ask == why
    assert judge("mcp__git__git_push", {}, [], ["mcp__git__git_push"]).denied_by == "mcp__git__git_push"


def test_allowed_lines_are_not_over_denied_nor_asked_under_yes():
    for line in ["git log --grep push", "git status", "rm -f build.log", "rmdir -p a/b", "echo rm -rf", "grep -r rm .",
                 "git commit -m 'push it'", "python3 -c 'print(1)'", "echo rm > /dev/null"]:
        v = verdict(line, allow=["bash(*)"])
        assert v.denied_by is None and v.must_ask is None, (line, v.must_ask)


# ------------------------------------------------------------------ the rule offered for "session" / "always"


@pytest.mark.parametrize("line, rule", [
    ("python3 -m pytest -q", "bash(python3 -m pytest*)"),
    ("python3 -u -m pytest -q", "bash(python3 -u -m pytest*)"),
    ("python3 script.py --fast", "bash(python3 script.py*)"),
    ("python3 -c 'import calc; print(calc.add(2, 3))'", "bash(python3 -c 'import calc; print(calc.add(2, 3))')"),
    ("python3 -m pdb x.py", "bash(python3 -m pdb x.py)"),
    ("python3 -m pytest -p evil", "bash(python3 -m pytest -p evil)"),
    ("python3", None),
    ("bash", None),
    ("node -e 'console.log(1)'", "bash(node -e 'console.log(1)')"),
    ("node app.js --port 3", "bash(node app.js*)"),
    ("bash build.sh", "bash(bash build.sh*)"),
    ("sh -c 'make all'", "bash(sh -c 'make all')"),
    ("env FOO=1 make", "bash(env FOO=1 make)"),
    ("xargs rm", "bash(xargs rm)"),
    ("find . -name x -exec rm {} +", "bash(find . -name x -exec rm '{}' +)"),
    ("find . -name x", "bash(find*)"),
    ("git -c core.pager=cat log", "bash(git -c core.pager=cat log)"),
    ("git config core.pager cat", "bash(git config core.pager cat)"),
    ("git status --short", "bash(git status*)"),
    ("git --version", "bash(git --version*)"),
    ("git --no-pager log -3", "bash(git --no-pager log*)"),
    ("git -C ../other status", "bash(git -C ../other status)"),
    ("git submodule foreach ls", "bash(git submodule foreach ls)"),
    ("npx prettier --write .", "bash(npx prettier --write .)"),
    ("uv run pytest -q", "bash(uv run pytest*)"),
    ("uv run python -c x", "bash(uv run python -c x)"),
    ("npm run build -- --watch", "bash(npm run build*)"),
    ("npm test", "bash(npm test*)"),
    ("awk '{print}' f", "bash(awk '{print}' f)"),
    ("sed -i s/a/b/ f", "bash(sed -i s/a/b/ f)"),
    ("ls -la src", "bash(ls*)"),
    ("rm -rf build", "bash(rm*)"),
    ("echo 'a*b'", "bash(echo*)"),
    ("printf '%s*' x", "bash(printf*)"),
])
def test_the_offered_rule_never_widens_to_a_program_that_runs_code(line, rule):
    values = parse(line).commands[0].values()
    offered = offer_rule(values)
    assert offered == rule
    if offered:
        assert covers(parse_rule(offered), values)[0], "an offer always covers the command it came from"


def test_an_exact_offer_with_a_star_does_not_cover_other_code():
    rule = offer_rule(["python3", "-c", "print(2*3)"])
    assert rule == "bash(python3 -c 'print(2*3)')"
    assert not allow_matches(parse_rule(rule), ["python3", "-c", "print(2);import os;os.system('x');(3)"])


def test_no_rule_is_offered_for_what_a_rule_cannot_cover():
    assert verdict("echo $(date)", allow=[]).offers == []
    assert verdict("FOO=1 make", allow=[]).offers == []
    assert verdict("touch a && ls", allow=[]).offers == ["bash(touch*)", "bash(ls*)"]
    assert verdict("python3 && ls", allow=[]).offers == [], "one command no rule may cover: only once or no"


# ------------------------------------------------------------------ the parsers


def test_simple_commands_are_found_everywhere_outermost_first():
    texts = [c.text for c in parse("cd a && npm test | tee log; rm -rf x $(whoami)").commands]
    assert texts == ["cd a", "npm test", "tee log", "rm -rf x $(whoami)", "whoami"]
    texts = [c.text for c in parse("cat <<EOF\n$(id)\nEOF").commands]
    assert texts[1:] == ["id"]


def test_quotes_and_backslashes_are_removed_as_bash_does(parser):
    [cmd] = parse("r''m \\-rf \"a b\"'c' d\\ e").commands
    assert cmd.values() == ["rm", "-rf", "a bc", "d e"]


def test_a_line_continuation_joins_words_as_bash_does(parser):
    assert parse("r\\\nm -rf x").commands[0].values() == ["rm", "-rf", "x"]
    assert join_continuations("echo '\\\n' # c \\\nrm y")[0] == "echo '\\\n' # c \\\nrm y"
    assert join_continuations("cat <<E\nx\\\nE")[1], "continuations in here-documents are not guessed at"


def test_a_mid_word_hash_is_not_a_comment(parser):
    assert [c.values() for c in parse("echo ok#; touch M").commands] == [["echo", "ok#"], ["touch", "M"]]
    assert [c.values() for c in parse("echo ok #; touch M").commands] == [["echo", "ok"]]


@pytest.mark.parametrize("line", ["echo $(id)", "echo `id`", "(cd x)", "if true; then x; fi", "cat <<EOF", "a=(1)",
                                  "echo ${x:-y}", "[[ -f x ]]", "cat <(ls)", "cat <<< x", "x[1]=2 ls"])
def test_the_plain_parser_gives_up_rather_than_guess(line):
    p = parse_plain(line)
    assert p.error and p.doubt and p.commands == []


@pytest.mark.parametrize("line", ["echo 'open", "ls && && b", "; ls", "a &&", "x ;; y", "ls >", "echo \\"])
def test_the_plain_parser_reports_syntax_errors(line):
    p = parse_plain(line)
    assert p.error and not p.doubt


def test_a_very_long_line_is_judged(parser):
    line = " && ".join(["echo hello"] * 5000) + " && rm -rf victim"
    assert verdict(line).denied_by == "bash(rm -rf*)"
    assert verdict(" && ".join(["echo hello"] * 5000)).allowed


@pytest.mark.parametrize("words", [
    "r''m -rf \"a b\"'c' d\\ e", "ok#x", "a\\\\b", "\"a\\\"b\\\\c\\$d\"", "'x'\"y\"z", "\\'", "a$", "\"it's\"",
    "'' \"\"", "a''b", "\\\\", "\"\\a\\b\"", "\\#x", "x#y #z", "-rf -- -x", "'a b' \"c  d\"", "\"a\\\nb\" c\\\nd",
    "'*' \\* \"*\"", "\"$\" '$x'", "a\\;b", "{} '{a,b}'",
])
def test_words_are_what_bash_passes(parser, words):
    """The values the judge sees are the arguments bash really passes, for every quoting form."""
    import subprocess

    shown = subprocess.run(["/bin/bash", "-c", f"args() {{ printf '%s\\0' \"$@\"; }}; args {words}"],
                           capture_output=True, text=True, check=True).stdout
    expected = shown.split("\0")[:-1]
    [cmd] = parse(f"args {words}").commands
    assert cmd.values() == ["args", *expected]
