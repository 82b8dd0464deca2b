"""Starting the real app as a server: `streamlit run app.py` (or production's `python -m ui.serve`)
on a free local port, its log in a file.

Shared by the browser and server tests (tests/browser/) and the benchmarks (bench/), so that
neither imports the other: bench/ measures the same server the tests check, and tests/ stays free
to change its own helpers. Never imported by the app (ui/, pages/), nor copied into its container.
"""

from __future__ import annotations

import atexit
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOTS = ROOT / "screenshots"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


MODELS = ("translator", "gpt", "gpt-rope", "gpt-alibi", "gpt-local")


def has_trained_weights(directory: Path | None = None) -> bool:
    """Whether every shipped model has its trained weights (else the app is started with
    ATTN_RANDOM_WEIGHTS=1, which only stands in for the files that are missing)."""
    d = Path(directory) if directory else ROOT / "model" / "weights"
    try:
        from model.registry import NAMES
    except Exception:
        NAMES = MODELS
    return all((d / f"{name}.safetensors").exists() for name in NAMES)


class AppServer:
    """`streamlit run SCRIPT` on a free local port, its output in a log file.

    Development settings on top of the production .streamlit/config.toml: full error details,
    so a test that looks for a traceback would see one if the app let one through.
    """

    def __init__(
        self,
        script: str | Path = "app.py",
        env: dict | None = None,
        args=(),
        log: Path | None = None,
        port: int | None = None,
        cwd: Path = ROOT,
        prefix=(),
        preload: bool = False,
    ):
        """prefix: a command the server runs under, e.g. setpriv's to run it as an unprivileged user.
        preload: start it as production does, `python -m ui.serve` (torch and the default model
        loaded as the server starts), instead of a bare `streamlit run SCRIPT`; a module name: that
        launcher instead (bench/floor_app.py's own)."""
        self.script, self.cwd, self.port, self.prefix = str(script), cwd, port or free_port(), list(prefix)
        self.preload = preload
        self.url = f"http://127.0.0.1:{self.port}"
        # one torch thread per server, as in production (Dockerfile): on a busy machine two
        # spinning OpenMP threads per request made a 0.13 s translation take 2-20 s
        self.env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1"), **(env or {})}
        for k, v in (env or {}).items():  # env value None: unset it
            if v is None:
                self.env.pop(k, None)
        self.args = list(args)
        self.log_path = Path(log) if log else Path(tempfile.mkstemp(prefix="streamlit-", suffix=".log")[1])
        self.proc: subprocess.Popen | None = None

    def start(self, timeout: float = 120) -> "AppServer":
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "w")
        cmd = [
            *self.prefix,
            sys.executable,
            "-m",
            *(
                [self.preload]
                if isinstance(self.preload, str)
                else ["ui.serve"]
                if self.preload
                else ["streamlit", "run", self.script]
            ),
            "--server.headless",
            "true",
            "--server.port",
            str(self.port),
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
            "--client.showErrorDetails",
            "full",
            *self.args,
        ]
        self.proc = subprocess.Popen(
            cmd, cwd=self.cwd, env=self.env, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )
        atexit.register(self.stop)  # a crashed caller must not leave the server running
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        return self
            except OSError:
                pass
            time.sleep(0.25)
        self.stop()
        raise RuntimeError(f"streamlit did not answer /_stcore/health within {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, n: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""

    def rss_bytes(self) -> int:
        """Resident memory of the server process (Linux)."""
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
        return 0

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        if getattr(self, "_log", None):
            self._log.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def app_env() -> dict:
    """Until trained weights exist the app runs on seed-0 random weights (and says so)."""
    return {} if has_trained_weights() else {"ATTN_RANDOM_WEIGHTS": "1"}
