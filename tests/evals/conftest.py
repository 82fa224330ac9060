"""The eval harness's tests: say whether the real llama.cpp smoke eval could run."""

from __future__ import annotations


def pytest_terminal_summary(terminalreporter):
    from tests.evals.test_llama_smoke import LLM_PYTHON, llama_missing

    terminalreporter.section("llama.cpp smoke eval (tests/evals)")
    reason = llama_missing()
    terminalreporter.write_line(f"MISSING, the smoke eval was skipped (CI=true fails it): {reason}" if reason
                                else f"llama.cpp via xllamacpp: {LLM_PYTHON}")
