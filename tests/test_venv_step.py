"""scripts/venv, the first step of scripts/test: pip runs where the requirement files or the
installed packages changed since its last successful run, and not otherwise (it read every
requirement and installed package on every run: 9 s of the fast loop at load 1, 2026-12-04). Run on
a copy whose .venv/bin/python records what it is asked instead of installing."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAKE_PYTHON = '#!/bin/sh\necho "$*" >> "$(dirname "$0")/../asked"\n'


def test_pip_runs_only_when_the_requirements_or_the_packages_changed(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "venv", tmp_path / "scripts" / "venv")
    for req in ROOT.glob("requirements*.txt"):
        shutil.copy(req, tmp_path / req.name)
    python = tmp_path / ".venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    packages = tmp_path / ".venv" / "lib" / "python3.11" / "site-packages"
    (packages / "torch-2.13.0.dist-info").mkdir(parents=True)
    asked = tmp_path / ".venv" / "asked"

    def pip_runs() -> list[str]:
        asked.unlink(missing_ok=True)
        subprocess.run([str(tmp_path / "scripts" / "venv")], check=True, capture_output=True, timeout=60)
        return asked.read_text().splitlines() if asked.exists() else []

    first = pip_runs()
    assert (
        len(first) == 2 and "-r requirements-dev.txt" in first[0] and "--no-deps -r requirements-real.txt" in first[1]
    )
    assert pip_runs() == []  # nothing changed: pip not run
    with open(tmp_path / "requirements.txt", "a") as f:
        f.write("tqdm==4.67.1\n")
    assert len(pip_runs()) == 2  # a requirement added
    assert pip_runs() == []
    (packages / "torch-2.13.0.dist-info").rename(packages / "torch-2.12.0.dist-info")
    assert len(pip_runs()) == 2  # another version installed by hand
    shutil.rmtree(packages / "torch-2.12.0.dist-info")
    assert len(pip_runs()) == 2  # a package uninstalled
    assert pip_runs() == []
