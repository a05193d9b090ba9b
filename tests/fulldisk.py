"""A small full disk for tests: a 1 MiB tmpfs (needs root), else the test is skipped."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest


@contextlib.contextmanager
def small_disk(folder: Path, size: str = "1m") -> Iterator[Path]:
    """Mount a tmpfs of ``size`` on ``folder`` for the block (skip the test if it cannot)."""
    folder.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
            capture_output=True,
            text=True,
            check=False,
        )
    except OSError as exc:
        pytest.skip(f"cannot mount a small tmpfs ({exc}): no full-disk test here")
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs ({done.stderr.strip()}): needs root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def fill(folder: Path) -> None:
    """Fill the disk under ``folder`` (a file ``filler``) until no byte is left."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for size in (2**16, 4096, 512, 1):
            block = b"\0" * size
            while True:
                try:
                    if os.write(fd, block) < size:
                        break
                except OSError:
                    break
    finally:
        os.close(fd)


def leftovers(folder: Path) -> list[str]:
    """Temporaries of spdgraph's naming (hidden names) left in ``folder``, recursively."""
    return sorted(
        str(p.relative_to(folder)) for p in folder.rglob(".*") if p.name not in {".spdgraph-lock"}
    )


def read_only(folder: Path) -> None:
    """Remount the small tmpfs at ``folder`` read-only (skip the test if it cannot)."""
    done = subprocess.run(
        ["mount", "-o", "remount,ro", str(folder)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot remount the tmpfs read-only ({done.stderr.strip()})")
