"""scripts/venv, the first step of scripts/test: the installers run where the requirement files or the
installed packages changed since its last successful run, and not otherwise (pip read every
requirement and installed package on every run: 9 s of the fast loop at load 1, 2026-12-04); uv
installs with what pip's configuration says, and pip installs where uv cannot. Run on a copy whose
.venv/bin/python (and the uv it installs) records what it is asked instead of installing."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# "-m pip config list" prints the copy's pip-config; installing uv== makes a uv that records its
# calls (and fails where uv-fails exists); every other call is recorded as pip's
FAKE_PYTHON = r"""#!/bin/sh
d="$(cd "$(dirname "$0")/.." && pwd)"
case "$*" in
  "-m pip config list") cat "$d/pip-config" 2>/dev/null; exit 0 ;;
  *" uv=="*) printf '#!/bin/sh\necho "uv $*" >> "%s/asked"\n[ ! -f "%s/uv-fails" ]\n' "$d" "$d" > "$d/bin/uv"
            chmod +x "$d/bin/uv"; exit 0 ;;
esac
echo "pip $*" >> "$d/asked"
"""
PIP_CONFIG = """global.find-links='/opt/wheels'
:env:.extra-index-url='file:///opt/a/simple file:///opt/b/simple'
global.constraint='/etc/constraints.txt'
global.disable-pip-version-check='1'
"""


def venv_copy(tmp_path: Path) -> tuple[Path, Path]:
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
    return tmp_path / ".venv", packages


def installs(tmp_path: Path, venv: Path, **env: str) -> list[str]:
    """What scripts/venv asked the installers this run (one line each: "pip ARGS" or "uv ARGS")."""
    asked = venv / "asked"
    asked.unlink(missing_ok=True)
    subprocess.run(
        [str(tmp_path / "scripts" / "venv")],
        check=True,
        capture_output=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", **env},
    )
    return asked.read_text().splitlines() if asked.exists() else []


def test_the_installers_run_only_when_the_requirements_or_the_packages_changed(tmp_path):
    venv, packages = venv_copy(tmp_path)
    first = installs(tmp_path, venv)
    assert (
        len(first) == 2 and "-r requirements-dev.txt" in first[0] and "--no-deps -r requirements-real.txt" in first[1]
    )
    assert installs(tmp_path, venv) == []  # nothing changed: no installer run
    with open(tmp_path / "requirements.txt", "a") as f:
        f.write("tqdm==4.67.1\n")
    assert len(installs(tmp_path, venv)) == 2  # a requirement added
    assert installs(tmp_path, venv) == []
    (packages / "torch-2.13.0.dist-info").rename(packages / "torch-2.12.0.dist-info")
    assert len(installs(tmp_path, venv)) == 2  # another version installed by hand
    shutil.rmtree(packages / "torch-2.12.0.dist-info")
    assert len(installs(tmp_path, venv)) == 2  # a package uninstalled
    assert installs(tmp_path, venv) == []


def test_uv_installs_from_where_pips_configuration_says_and_pip_where_uv_cannot(tmp_path):
    venv, _ = venv_copy(tmp_path)
    (venv / "pip-config").write_text(PIP_CONFIG)
    pin = re.search(r"^uv==\S+", (ROOT / "requirements-dev.txt").read_text(), re.M)
    assert pin, "requirements-dev.txt pins uv (uv==VERSION)"
    first = installs(tmp_path, venv)
    assert [line.split()[0] for line in first] == ["uv", "uv"], first
    for line in first:  # every source and constraint of pip's configuration, and pip's choice among indexes
        for part in (
            "pip install",
            "--python",
            "--index-strategy unsafe-best-match",
            "--find-links /opt/wheels",
            "--extra-index-url file:///opt/a/simple --extra-index-url file:///opt/b/simple",
            "--constraint /etc/constraints.txt",
        ):
            assert part in line, (part, line)
    assert "-r requirements-dev.txt" in first[0] and "--no-deps -r requirements-real.txt" in first[1]
    (tmp_path / ".venv-requirements.sha256").unlink()
    # a setting of pip's that uv would not read: pip installs, as configured
    (venv / "pip-config").write_text(PIP_CONFIG + "global.trusted-host='pypi.example'\n")
    assert [line.split()[0] for line in installs(tmp_path, venv)] == ["pip", "pip"]
    (tmp_path / ".venv-requirements.sha256").unlink()
    (venv / "pip-config").write_text(PIP_CONFIG)
    (venv / "uv-fails").touch()  # uv tried and failed: pip installs after it
    assert [line.split()[0] for line in installs(tmp_path, venv)] == ["uv", "pip", "uv", "pip"]
    (tmp_path / ".venv-requirements.sha256").unlink()
    (venv / "uv-fails").unlink()
    assert [line.split()[0] for line in installs(tmp_path, venv, ATTN_UV="0")] == ["pip", "pip"]  # asked for pip
