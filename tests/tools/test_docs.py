"""The newcomer's path keeps working: every ``examples/*.py`` runs, and every
```python block of README.md and of each docs/*.md page executes.

The blocks of one Markdown file run in order in one fresh namespace (a later
block may use names an earlier one defined), in a temporary working
directory; one test per file, and a failure names the file and the line of
the failing block's opening fence (the traceback's line numbers are the
file's own).  Only fences whose info string starts with ``python`` (or
``py``, ``python3``) run; ``sh``, ``text``, untagged and other blocks do not.

The files are found in the directory that holds tests/, whatever is there
when the suite is collected.  A copy of ``tests/`` run without the source
tree skips these tests, saying so.  Examples run in a subprocess
(``sys.executable``, cwd a temporary directory) importing the same
simakernels as this process (an installed wheel under QEMU).
"""
from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys
import traceback
from typing import Iterator, List, Tuple

import pytest

from tools.test_cli import run_python

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
RUNNABLE = {"python", "py", "python3"}

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def python_blocks(text: str) -> Iterator[Tuple[int, str]]:
    """(line number of the opening fence, source) of each runnable block, in
    order.  Fences may be indented (inside list items): that indentation is
    removed from the block's lines.  An unclosed fence runs to the end."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if m is None or (m["fence"][0] == "`" and "`" in m["info"]):
            i += 1
            continue
        fence, indent = m["fence"], len(m["indent"].expandtabs(4))
        words = m["info"].strip().split()
        language = words[0].lower() if words else ""
        body: List[str] = []
        j = i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence[0] * len(fence)) and not stripped.strip(fence[0]):
                break
            line = lines[j].expandtabs(4)
            body.append(line[min(indent, len(line) - len(line.lstrip(" "))):])
            j += 1
        if language in RUNNABLE:
            yield i + 1, "\n".join(body) + "\n"
        i = j + 1


def _markdown_files() -> List[pathlib.Path]:
    files = [ROOT / "README.md"] if (ROOT / "README.md").is_file() else []
    return files + sorted((ROOT / "docs").glob("*.md"))


def _params(paths: List[pathlib.Path], what: str) -> list:
    if paths:
        return [pytest.param(p, id=p.relative_to(ROOT).as_posix()) for p in paths]
    reason = f"no {what} under {ROOT}: this copy of tests/ runs without the source tree"
    return [pytest.param(None, id="missing", marks=pytest.mark.skip(reason=reason))]


def _block_frames(exc: BaseException, path: pathlib.Path) -> str:
    """The traceback from the first frame in the Markdown file on."""
    frames = traceback.extract_tb(exc.__traceback__)
    first = next((k for k, f in enumerate(frames) if f.filename == str(path)), 0)
    lines = traceback.format_list(frames[first:]) + traceback.format_exception_only(type(exc), exc)
    return "".join(lines)


@pytest.mark.parametrize("path", _params(_markdown_files(), "README.md or docs/*.md"))
def test_markdown_python_blocks(path, tmp_path, monkeypatch):
    name = path.relative_to(ROOT).as_posix()
    blocks = list(python_blocks(path.read_text(encoding="utf-8")))
    if not blocks:
        pytest.skip(f"{name}: no ```python blocks")
    monkeypatch.chdir(tmp_path)  # blocks that write files write them here
    namespace = {"__name__": "__main__"}
    for line, source in blocks:
        # Padding puts each statement on its own line number of the file.
        code = compile("\n" * line + source, str(path), "exec")
        try:
            exec(code, namespace)
        except (Exception, SystemExit) as exc:
            if isinstance(exc, SystemExit) and exc.code in (None, 0):
                continue
            pytest.fail(f"{name}: the ```python block at line {line} failed "
                        f"({len(blocks)} blocks, run in order in one namespace):\n{_block_frames(exc, path)}",
                        pytrace=False)


@pytest.mark.parametrize("path", _params(sorted(EXAMPLES.glob("*.py")), "examples/*.py"))
def test_example_runs(path, tmp_path):
    docstring = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8")))
    assert docstring and docstring.strip(), f"{path.name}: no module docstring saying what it shows"
    try:
        result = run_python([str(path)], tmp_path)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{path.name} did not finish in {exc.timeout} s:\n{exc.stdout or ''}{exc.stderr or ''}",
                    pytrace=False)
    report = (f"{sys.executable} {path} (cwd {tmp_path}) exited {result.returncode}\n"
              f"--- stdout ---\n{result.stdout}--- stderr ---\n{result.stderr}")
    assert result.returncode == 0, report
    assert result.stdout.strip(), f"{path.name} printed nothing\n{report}"


def test_python_blocks_parser():
    text = "\n".join([
        "# Title",                  # 1
        "```python",                # 2
        "a = 1",                    # 3
        "```",                      # 4
        "```sh",                    # 5
        "make run",                 # 6
        "```",                      # 7
        "* item:",                  # 8
        "  ```python title",        # 9
        "  b = a + 1",              # 10
        "    c = 2",                # 11
        "  ```",                    # 12
        "````text",                 # 13
        "```python",                # 14
        "not run",                  # 15
        "````",                     # 16
        "~~~py",                    # 17
        "d = 3",                    # 18
    ])
    assert list(python_blocks(text)) == [(2, "a = 1\n"), (9, "b = a + 1\n  c = 2\n"), (17, "d = 3\n")]


def test_a_failing_block_is_reported_with_its_line(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n```python\nvalue = 41\n```\n\n"
                    "Text.\n\n```python\nvalue += 1\nassert value == 43, value\n```\n")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(pytest.fail.Exception) as failure:
        test_markdown_python_blocks(page, work, monkeypatch)
    message = str(failure.value)
    assert message.startswith("page.md: the ```python block at line 9 failed (2 blocks")
    assert f'File "{page}", line 11' in message and "AssertionError: 42" in message
