"""`agent-lsp eval` end to end: the real command in a subprocess, the agent in its own processes,
the scripted model over HTTP deciding each reply from the request it gets (runs interleave)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers import no_violations  # noqa: F401 (autouse fixture)
from tests.scripted_model import reply, tool_call

ADD = "def add(a, b):\n    return a - b\n"
ADD_FIXED = "def add(a, b):\n    return a + b\n"
GREET = "def greet(name):\n    return 'Hi ' + name\n"
GREET_FIXED = "def greet(name):\n    return f'Hello, {name}!'\n"
SOLUTIONS = {"fix add": ("calc.py", ADD_FIXED), "make greet": ("greet.py", GREET_FIXED)}


def make_task(suite: Path, name: str, files: dict[str, str], prompt: str, check: str, **extra: object) -> Path:
    d = suite / name
    (d / "repo").mkdir(parents=True)
    for rel, text in files.items():
        (d / "repo" / rel).write_text(text)
    lines = [f"prompt = {json.dumps(prompt)}", f"check = {json.dumps(check)}"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
    (d / "task.toml").write_text("\n".join(lines) + "\n")
    return d


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    s = tmp_path / "suite"
    make_task(s, "add", {"calc.py": ADD}, "fix add in calc.py: it must add",
              "python3 -c 'from calc import add; assert add(2, 3) == 5'", tags=["python"])
    make_task(s, "greet", {"greet.py": GREET}, "make greet say Hello, NAME!",
              "python3 -c \"from greet import greet; assert greet('Ada') == 'Hello, Ada!'\"", max_steps=4)
    return s


def prompt_of(body: dict) -> str:
    return next(m["content"] for m in body["messages"] if m["role"] == "user")


def solver(solve: set[str]):
    """A model that fixes the tasks whose prompt starts with a key of `solve`, and gives up on the rest."""

    def answer(body: dict):
        prompt = prompt_of(body)
        key = next((k for k in SOLUTIONS if prompt.startswith(k)), None)
        last = body["messages"][-1]
        if key in solve and last["role"] == "user":
            path, text = SOLUTIONS[key]
            return tool_call("write_file", {"path": path, "content": text})
        if last["role"] == "tool":
            return reply(f"Fixed {SOLUTIONS[key][0]}.")
        return reply("I cannot do this one.")

    return answer


def run_eval(args: list[str], model, timeout: float = 120, **env: str) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "AGENT_BASE_URL": model.base_url if model else "http://127.0.0.1:9/v1",
                "AGENT_MODEL": "scripted", **env}
    return subprocess.run([sys.executable, "-m", "agent_lsp", "eval", *args], capture_output=True, text=True,
                          timeout=timeout, env=full_env, stdin=subprocess.DEVNULL)


def table_rows(stdout: str) -> dict[str, list[str]]:
    return {ln.split()[0]: ln.split() for ln in stdout.splitlines()[2:] if ln.strip() and not ln.startswith("passed")}


def test_solving_and_non_solving_give_the_right_table_and_json(suite, model, tmp_path):
    model.add(*[solver({"fix add"})] * 10)
    report = tmp_path / "out" / "a.json"
    r = run_eval(["--suite", str(suite), "--json", str(report), "--out", str(tmp_path / "runs")], model)
    assert r.returncode == 0, r.stderr
    rows = table_rows(r.stdout)
    assert rows["add"][:3] == ["add", "pass", "2"], r.stdout
    assert rows["greet"][:3] == ["greet", "FAIL", "1"], r.stdout
    assert "check failed (exit 1)" in r.stdout
    assert "passed 1/2 (50.0%)" in r.stdout
    assert "~" not in r.stdout, "the scripted model sends usage: nothing is estimated"
    progress = [ln for ln in r.stderr.splitlines() if ln.startswith("[")]
    assert progress[0].startswith("[1/2] add#1: pass, 2 steps")
    assert progress[1].startswith("[2/2] greet#1: FAIL (check failed (exit 1)")

    data = json.loads(report.read_text())
    s = data["summary"]
    assert {"passed", "total", "pass_rate", "prompt_tokens", "completion_tokens", "seconds"} <= set(s)
    assert (s["passed"], s["total"], s["pass_rate"]) == (1, 2, 0.5)
    runs = {x["task"]: x for x in data["runs"]}
    keys = {"task", "attempt", "passed", "status", "reason", "steps", "prompt_tokens", "completion_tokens",
            "tokens_estimated", "seconds", "answer", "transcript"}
    assert all(keys <= set(x) for x in data["runs"])
    add, greet = runs["add"], runs["greet"]
    assert (add["passed"], add["status"], add["reason"], add["steps"], add["answer"]) == \
        (True, "done", "check passed", 2, "Fixed calc.py.")
    assert (greet["passed"], greet["status"], greet["steps"], greet["answer"]) == \
        (False, "done", 1, "I cannot do this one.")
    assert greet["reason"].startswith("check failed (exit 1)")
    # tokens are the server's: the scripted model counts len(json(messages)) // 4 per request
    per_task = {"add": 0, "greet": 0}
    for body in model.requests:
        per_task["add" if prompt_of(body).startswith("fix add") else "greet"] += len(json.dumps(body["messages"])) // 4
    assert add["prompt_tokens"] == per_task["add"] and greet["prompt_tokens"] == per_task["greet"]
    assert s["prompt_tokens"] == sum(per_task.values())
    assert add["tokens_estimated"] is False and add["completion_tokens"] > 0
    for x in data["runs"]:
        lines = Path(x["transcript"]).read_text().splitlines()
        assert json.loads(lines[-1])["kind"] == "turn_end"
    assert (Path(add["workspace"]) / "calc.py").read_text() == ADD_FIXED
    assert (suite / "add" / "repo" / "calc.py").read_text() == ADD, "the task itself is never touched"


def test_a_hanging_agent_is_stopped_at_the_timeout_and_the_rest_go_on(suite, model, tmp_path):
    make_task(suite, "hang", {"x.txt": "x\n"}, "hang: run a slow command", "true", timeout=3)

    def answer(body: dict):
        if prompt_of(body).startswith("hang"):
            return tool_call("bash", {"command": "sleep 127"})
        return solver({"fix add", "make greet"})(body)

    model.add(*[answer] * 10)
    t0 = time.monotonic()
    r = run_eval(["--suite", str(suite), "--json", str(tmp_path / "r.json"), "--jobs", "2"], model)
    took = time.monotonic() - t0
    assert r.returncode == 0, r.stderr
    runs = {x["task"]: x for x in json.loads((tmp_path / "r.json").read_text())["runs"]}
    assert runs["hang"]["status"] == "timeout" and runs["hang"]["passed"] is False
    assert runs["hang"]["reason"] == "timed out after 3s"
    assert runs["hang"]["steps"] == 1, "the step it was in when killed, read from its transcript"
    assert runs["hang"]["tokens_estimated"] is True and runs["hang"]["prompt_tokens"] > 0
    assert runs["add"]["passed"] and runs["greet"]["passed"], "the other tasks go on"
    assert took < 40
    assert subprocess.run(["pgrep", "-f", "sleep 127"], capture_output=True).returncode == 1, \
        "the agent's command (in a session of its own) was killed with it"
    assert "hang" in table_rows(r.stdout) and "timed out after 3s" in r.stdout


def test_jobs_2_gives_the_same_results_as_jobs_1(suite, model, tmp_path):
    model.add(*[solver({"fix add"})] * 20)
    outs = []
    for jobs in ("1", "2"):
        report = tmp_path / f"j{jobs}.json"
        r = run_eval(["--suite", str(suite), "--repeat", "2", "--jobs", jobs, "--json", str(report),
                      "--out", str(tmp_path / f"runs{jobs}")], model)
        assert r.returncode == 0, r.stderr
        outs.append(json.loads(report.read_text()))
    figures = ("task", "attempt", "passed", "status", "reason", "steps", "prompt_tokens", "completion_tokens", "answer")
    one, two = ([{k: x[k] for k in figures} for x in o["runs"]] for o in outs)
    assert one == two
    assert [(x["task"], x["attempt"]) for x in outs[0]["runs"]] == [("add", 1), ("add", 2), ("greet", 1), ("greet", 2)]
    assert outs[0]["summary"]["k"] == 2 and outs[0]["summary"]["runs_passed"] == 2


def test_pass_at_k_and_compare(suite, model, tmp_path):
    model.add(*[solver({"fix add"})] * 4)
    a = tmp_path / "a.json"
    assert run_eval(["--suite", str(suite), "--json", str(a)], model).returncode == 0
    model.add(*[solver({"fix add", "make greet"})] * 4)
    b = tmp_path / "b.json"
    assert run_eval(["--suite", str(suite), "--json", str(b)], model).returncode == 0
    r = run_eval(["--compare", str(a), str(b)], None)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    greet = next(ln for ln in lines if "greet" in ln)
    assert greet.startswith("+ ") and "FAIL -> pass" in greet
    add = next(ln for ln in lines if " add " in ln)
    assert add.startswith("  ") and "pass -> pass" in add
    assert "pass rate: 50.0% (1/2) -> 100.0% (2/2)  +50.0 points" in r.stdout
    assert "prompt tokens: " in r.stdout and "completion tokens: " in r.stdout


def test_list_prints_name_tab_directory(suite):
    r = run_eval(["--suite", str(suite), "--list"], None)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines() == [f"add\t{suite / 'add'}", f"greet\t{suite / 'greet'}"]
    r = run_eval(["--list"], None)
    names = [ln.split("\t")[0] for ln in r.stdout.splitlines()]
    assert len(names) >= 12 and "fizzbuzz" in names
    assert all(Path(ln.split("\t")[1], "task.toml").is_file() for ln in r.stdout.splitlines())


@pytest.mark.parametrize("args, message", [
    (["--suite", "/no/such/suite"], "no such suite folder: /no/such/suite"),
    (["--tasks", "nope"], "no task named nope"),
    ([], "no model answers at http://127.0.0.1:9/v1"),
    (["--compare", "/no/a.json", "/no/b.json"], "cannot read /no/a.json"),
])
def test_harness_failures_exit_non_zero_with_one_line(args, message):
    r = run_eval(args, None)
    assert r.returncode == 2
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and message in r.stderr and "Traceback" not in r.stderr


def test_a_bad_task_file_is_refused_before_anything_runs(suite):
    (suite / "greet" / "task.toml").write_text('prompt = "x"\ncheck = "true"\ntimeout = "soon"\n')
    r = run_eval(["--suite", str(suite), "--list"], None)
    assert r.returncode == 2 and "`timeout` must be a positive number" in r.stderr and "greet" in r.stderr


def test_via_lsp_passes_a_task(suite, model, tmp_path):
    """Through agent-lsp serve: the edit is a workspace/applyEdit the client applies, the command an Allow."""
    model.add(tool_call("edit_file", {"path": "calc.py", "old": "a - b", "new": "a + b"}),
              tool_call("bash", {"command": "python3 -c 'import calc; print(calc.add(2, 3))'"}),
              reply("Fixed calc.py."))
    report = tmp_path / "lsp.json"
    r = run_eval(["--suite", str(suite), "--tasks", "add", "--via", "lsp", "--json", str(report)], model)
    assert r.returncode == 0, r.stderr
    run = json.loads(report.read_text())["runs"][0]
    assert (run["passed"], run["status"], run["steps"], run["answer"]) == (True, "done", 3, "Fixed calc.py."), run
    assert run["prompt_tokens"] > 0 and run["tokens_estimated"] is False and Path(run["transcript"]).is_file()
    log = (Path(run["workspace"]).parent / "agent.log").read_text()
    assert "(edit accepted: agent: edit_file calc.py)" in log, "the edit went through workspace/applyEdit"
    assert "(allowed: python3 -c" in log, "the command was asked with window/showMessageRequest"
    assert model.requests[2]["messages"][-1]["content"] == "5\n[exit 0]", "the command ran on the edited file"
    assert "passed 1/1 (100.0%)" in r.stdout


def test_the_api_key_reaches_the_model_and_nothing_else(suite, tmp_path):
    from tests.helpers import KEY
    from tests.scripted_model import ScriptedModel

    with ScriptedModel(require_key=KEY) as model:
        model.add(solver({"fix add"}), solver({"fix add"}),
                  {"status": 400, "body": f'{{"error": {{"message": "bad request from key {KEY}"}}}}'})
        out, report = tmp_path / "runs", tmp_path / "k.json"
        r = run_eval(["--suite", str(suite), "--json", str(report), "--out", str(out)], model, AGENT_API_KEY=KEY)
        assert model.headers[0]["authorization"] == f"Bearer {KEY}"
    assert r.returncode == 0, r.stderr
    runs = {x["task"]: x for x in json.loads(report.read_text())["runs"]}
    assert runs["add"]["passed"] is True
    assert runs["greet"]["status"] == "error" and "HTTP 400" in runs["greet"]["reason"]
    assert "[redacted]" in runs["greet"]["reason"]
    assert runs["greet"]["steps"] == 1 and runs["greet"]["tokens_estimated"] is False, "from the turn_end of an error"
    leaks = [p for p in [report, *out.rglob("*")] if p.is_file() and KEY.encode() in p.read_bytes()]
    assert leaks == [] and KEY not in r.stdout + r.stderr


def test_the_builtin_suite_passes_when_the_model_writes_each_reference_solution(model, tmp_path):
    """The whole harness over the real suite: a model that writes solution/ passes every task."""
    from agent_lsp.evals.task import load_suite
    from tests.scripted_model import call, tool_calls

    tasks = {t.prompt: t for t in load_suite("builtin")}

    def answer(body: dict):
        task = tasks[prompt_of(body)]
        if body["messages"][-1]["role"] == "tool":
            return reply(f"Solved {task.name}.")
        files = sorted(p for p in task.solution.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        return tool_calls(*(call("write_file", {"path": str(p.relative_to(task.solution)), "content": p.read_text()})
                            for p in files))

    model.add(*[answer] * (2 * len(tasks)))
    report = tmp_path / "builtin.json"
    r = run_eval(["--jobs", "2", "--json", str(report)], model, timeout=300)
    assert r.returncode == 0, r.stderr
    data = json.loads(report.read_text())
    failed = [(x["task"], x["reason"]) for x in data["runs"] if not x["passed"]]
    assert failed == []
    assert data["summary"]["passed"] == data["summary"]["total"] == len(tasks)


def test_running_out_of_steps_and_a_failed_setup_are_failed_rows_with_their_reason(tmp_path, model):
    suite = tmp_path / "suite"
    make_task(suite, "loop", {"a.txt": "a\n"}, "loop: read forever", "true", max_steps=2)
    make_task(suite, "nosetup", {"a.txt": "a\n"}, "never asked", "true", setup="echo 'no npm here' >&2; exit 3")

    def answer(body: dict):
        if "tools" not in body:
            return reply("I only read a.txt.")
        return tool_call("read_file", {"path": "a.txt"})

    model.add(*[answer] * 3)
    report = tmp_path / "r.json"
    r = run_eval(["--suite", str(suite), "--json", str(report)], model)
    assert r.returncode == 0, r.stderr
    runs = {x["task"]: x for x in json.loads(report.read_text())["runs"]}
    assert (runs["loop"]["status"], runs["loop"]["passed"], runs["loop"]["steps"]) == ("stepLimit", False, 2)
    assert runs["loop"]["reason"] == "ran out of steps (2)" and runs["loop"]["answer"] == "I only read a.txt."
    assert (runs["nosetup"]["status"], runs["nosetup"]["passed"]) == ("setupFailed", False)
    assert runs["nosetup"]["reason"] == "setup failed (exit 3): no npm here"
    assert len(model.requests) == 3, "the agent never started for the task whose setup failed"
