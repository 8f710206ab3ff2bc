"""A one-line progress bar on stderr, shared by ``bench`` and ``selftest``.

On a terminal the bar is redrawn in place and cleared at the end; on any
other stream it writes one line per step (``log_lines=True``, readable in
logs) or nothing at all (``log_lines=False``).  stdout is left to the
results.
"""
from __future__ import annotations

import os
import sys
import time
from typing import Optional, TextIO


class Progress:
    """``total`` steps, each announced by :meth:`step` before it runs."""

    WIDTH = 24

    def __init__(self, total: int, stream: Optional[TextIO] = None, enabled: bool = True, *,
                 name: str = "", log_lines: bool = True) -> None:
        self.total, self.done = total, 0
        self.stream = stream if stream is not None else sys.stderr
        self.tty = enabled and total > 0 and _isatty(self.stream)
        self.enabled = self.tty or (enabled and total > 0 and log_lines)
        self.prefix = f"{name} " if name else ""
        self.start = time.monotonic()

    def step(self, label: str) -> None:
        """Announces the step about to run."""
        if not self.enabled:
            return
        filled = self.WIDTH * self.done // self.total
        bar = "#" * filled + "." * (self.WIDTH - filled)
        elapsed = time.monotonic() - self.start
        line = f"{self.prefix}[{bar}] {self.done + 1:>3}/{self.total} {elapsed:5.0f}s  {label}"
        if self.tty:  # cut to the terminal's width: a wrapped line cannot be redrawn in place
            self.stream.write("\r\x1b[K" + line[:_columns(self.stream) - 1])
        else:
            self.stream.write(line + "\n")
        self.stream.flush()
        self.done += 1

    def close(self) -> None:
        """Clears the bar from a terminal (the results follow on stdout)."""
        if self.tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _columns(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns or 80
    except (AttributeError, ValueError, OSError):
        return 80


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
