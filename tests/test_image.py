"""Issue 33: the image holds what the app reads. No container engine runs here, so the build
context is made as Docker makes it (tests/build_context.py: .dockerignore with Docker's rules),
and the slow test installs it with the Dockerfile's own commands and opens every page from it."""

from __future__ import annotations

import asyncio
import os
import shlex
import subprocess
import sys
import time
import urllib.request

import pytest

from tests import build_context as bc
from tests.browser.helpers import free_port


@pytest.fixture(scope="module")
def reads():
    return bc.app_reads()


# Docker's own examples (docs.docker.com, "Dockerfile reference: .dockerignore file") and
# moby/patternmatcher's rules: [pattern lines], path, ignored?
DOCKER_CASES = [
    (["*/temp*"], "somedir/temporary.txt", True),
    (["*/temp*"], "somedir/temp", True),
    (["*/temp*"], "temp", False),  # "*" is one level: the root's temp is kept
    (["*/*/temp*"], "somedir/subdir/temporary.txt", True),
    (["temp?"], "tempa", True),
    (["temp?"], "temp", False),
    (["temp?"], "a/tempa", False),  # patterns are anchored at the context's root, unlike .gitignore
    (["**/*.go"], "a/b/c.go", True),
    (["**/*.go"], "c.go", True),
    (["**/__pycache__"], "x/y/__pycache__/m.pyc", True),  # a matched parent directory: all below
    (["bench"], "bench/cost.py", True),
    (["bench"], "analysis/bench", False),
    (["/bench/"], "bench/x", True),  # leading "/" and trailing "/" cleaned away
    (["./docs//a/../b"], "docs/b/c", True),
    (["*.md", "!README*.md", "README-secret.md"], "README.md", False),
    (["*.md", "!README*.md", "README-secret.md"], "README-secret.md", True),
    (["*.md", "!README*.md", "README-secret.md"], "CHANGES.md", True),
    (["*.md", "README-secret.md", "!README*.md"], "README-secret.md", False),  # the last match wins
    (["bench", "!bench/keep.json"], "bench/keep.json", False),
    (["bench", "!bench/keep.json"], "bench/other.py", True),
    (["# a comment", "  "], "# a comment", False),
    (["a/**"], "a/b/c", True),
    (["a/**"], "ab", False),
    (["**"], "anything/at/all", True),
    (["[ab].txt"], "b.txt", True),
    (["[ab].txt"], "c.txt", False),
]


@pytest.mark.parametrize("lines, path, expected", DOCKER_CASES)
def test_dockerignore_rules_are_dockers(lines, path, expected):
    assert bc.ignored(path, bc.patterns("\n".join(lines))) is expected


def test_an_exception_reaches_into_an_ignored_folder(tmp_path):
    """A "!" pattern under an ignored folder brings its file back, as Docker does: the walk must
    look inside the folder, not skip it."""
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "keep.json").write_text("{}")
    (tmp_path / "bench" / "drop.py").write_text("")
    (tmp_path / "app.py").write_text("")
    assert bc.context_files(tmp_path, "bench\n!bench/keep.json\n") == ["app.py", "bench/keep.json"]
    assert bc.context_files(tmp_path, "bench\n") == ["app.py"]


def test_the_build_context_holds_every_file_the_app_reads(reads):
    files = bc.context_files()
    assert bc.missing(reads, files) == {}
    # what the list covers: every page of app.py's PAGES (read there, so a new page needs no edit
    # here), 5 models (a weights file and a config each), the tokenizer, the cost page's measured run
    assert reads["pages"] == sorted(f for f, _ in app_pages()) and "pages/cost.py" in reads["pages"]
    assert sum(p.endswith(".safetensors") for p in reads["weights"]) >= 5
    assert "model/weights/tokenizer.model" in reads["weights"]
    assert reads["data"] == ["analysis/data/cost_results.json"]
    assert ".streamlit/config.toml" in files and "app.py" in files
    # what .dockerignore is for: none of these in the image
    for kept_out in (".git", ".venv", "tests/test_image.py", "bench/cost.py", "docs/hosting.md", "screenshots"):
        assert kept_out not in files and not any(f.startswith(kept_out + "/") for f in files), kept_out


def test_the_check_fails_when_a_file_the_app_reads_is_ignored(reads):
    """The test of the test: today's .dockerignore with the cost data where it was before this
    issue (bench/cost_results.json, in the ignored bench/), and a .dockerignore that drops the
    weights, are both caught, with the file named."""
    text = (bc.ROOT / ".dockerignore").read_text()
    before = dict(reads, data=["bench/cost_results.json"])
    files = bc.context_files() + ["bench/cost_results.json"]  # as if it were still on disk there
    assert bc.missing(before, [f for f in files if not bc.ignored(f, bc.patterns(text))]) == {
        "data": ["bench/cost_results.json"]
    }
    gone = bc.missing(reads, bc.context_files(dockerignore=text + "\n*.safetensors\n**/*.safetensors\n"))
    assert set(gone) == {"weights"} and "model/weights/translator.safetensors" in gone["weights"]
    assert "model/weights/tokenizer.model" not in gone["weights"]


def test_the_dockerfile_is_read_as_docker_reads_it():
    ins = bc.dockerfile()
    names = [i.name for i in ins]
    assert names[0] == "FROM" and "CMD" in names and "HEALTHCHECK" in names
    env = bc.env_of(ins)
    # a comment line inside the ENV's continuation does not end it
    assert env["OMP_NUM_THREADS"] == "1" and env["ATTN_HF"] == "0" and env["ATTN_HF_CACHE_TTL"] == "3600"
    pips = [shlex.split(i.args) for i in ins if i.name == "RUN" and i.args.startswith("pip install")]
    assert pips[0][:3] == ["pip", "install", "torch==2.13.0"] and pips[1] == [
        "pip",
        "install",
        "-r",
        "requirements.txt",
    ]
    assert bc.exec_form(next(i.args for i in ins if i.name == "CMD"))[:3] == ["python", "-m", "ui.serve"]
    assert "/_stcore/health" in " ".join(bc.healthcheck(ins))


# -- the slow part: the context installed as the Dockerfile installs it, every page opened --------
# Texts that say a file or measured data is missing (English, the app's default language): none of
# them may show on any page of the image.
MISSING_NOTICES = (
    "model_file_error",
    "cost_no_bench",
    "cost_local_missing",
    "notice_random_weights",
    "error_no_snapshot",
    "error_no_snapshots",
    "ed_model_missing",
)


def _fixed_part(key: str) -> str:
    """The longest piece of the notice's English text between its {placeholders} and markup."""
    import re

    from ui import i18n

    return max(re.split(r"\{[^}]*\}|[`*_]", i18n.TABLE[key]["en"]), key=len).strip()


def _build(dest, log):
    """The Dockerfile run here, instruction by instruction: FROM is a fresh venv (python -m venv, no
    site packages: the base image's Python), ENV sets the environment, WORKDIR and COPY make the app
    folder from the build context, RUN pip ... runs with the venv's pip. Returns (venv python, app
    folder, environment, the CMD and the HEALTHCHECK command)."""
    ins = bc.dockerfile()
    venv, app = dest / "venv", dest / "image"
    app.mkdir()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHON", "ATTN_"))}
    env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '/usr/bin:/bin')}"
    # no network here: pip finds torch 2.13.0 on this machine's disk (its pip.conf find-links); no
    # retries spent on the unreachable PyTorch index (about 10 s of back-off otherwise)
    env["PIP_RETRIES"] = "0"
    # and no bytecode compiled at install (what the image would hold): pip compiles every file of
    # torch one after another (13 s of torch's 18 s here, 2026-12-03); the app compiles what it
    # imports as it starts, and what is tested here is what gets installed and what the pages read
    env["PIP_COMPILE"] = "false"  # pip's --no-compile (PIP_NO_COMPILE=1 still compiles)
    cwd = dest
    skipped = []
    for i in ins:
        if i.name == "ENV":
            env.update(bc.env_of([i]))
        elif i.name == "WORKDIR":
            cwd = app  # the image's /app
        elif i.name == "COPY":
            words = [w for w in shlex.split(i.args) if not w.startswith("--")]  # --chown: the user is ours
            src, target = words[:-1], cwd / words[-1]
            if src == ["."]:
                bc.copy_context(target)
            else:
                context = set(bc.context_files())
                for s in src:
                    assert s in context, f"COPY {s}: not in the build context"
                    (target / s).write_bytes((bc.ROOT / s).read_bytes())
        elif i.name == "RUN" and i.args.startswith("pip install"):
            cmd = [py, "-m", *shlex.split(i.args)]
            t0 = time.time()
            r = subprocess.run(cmd, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT)
            log.write(f"\n== {shlex.join(cmd)}: exit {r.returncode} in {time.time() - t0:.0f} s\n")
            log.flush()
            assert r.returncode == 0, f"RUN {i.args} failed (log {log.name})"
        elif i.name in ("RUN", "USER", "FROM"):
            skipped.append(f"{i.name} {i.args}")  # useradd / USER explorer: the user is this test's
    cmd = bc.exec_form(next(i.args for i in ins if i.name == "CMD"))
    return py, app, env, cmd, bc.healthcheck(ins), skipped


@pytest.mark.slow
def test_the_image_installed_from_its_context_opens_every_page(tmp_path):
    """Issue 33: the context installed into a fresh venv with the Dockerfile's commands (torch from
    the CPU index first, then requirements.txt), started with its CMD; every page opened through
    Streamlit's websocket protocol: no exception, no notice of a missing file or missing data, and
    the Dockerfile's own HEALTHCHECK passes."""
    websockets = pytest.importorskip("websockets")
    log_path = bc.ROOT / "screenshots" / "image-build.log"
    log_path.parent.mkdir(exist_ok=True)
    with open(log_path, "w") as log:
        py, app, env, cmd, health, skipped = _build(tmp_path, log)
    assert not (app / "bench").exists() and (app / "analysis" / "data" / "cost_results.json").exists()
    port = free_port()
    # the CMD and the HEALTHCHECK as written, on a free port and this machine's loopback
    cmd = [py if w == "python" else w.replace("8501", str(port)).replace("0.0.0.0", "127.0.0.1") for w in cmd]
    health = [py if w == "python" else w.replace("8501", str(port)) for w in health]
    env = {**env, "ATTN_ROOMS": f"sqlite:///{tmp_path / 'rooms.sqlite3'}", "HOME": str(tmp_path)}
    server_log = open(bc.ROOT / "screenshots" / "image-server.log", "w")
    proc = subprocess.Popen(cmd, cwd=app, env=env, stdout=server_log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.time() + 180
        while time.time() < deadline:
            assert proc.poll() is None, f"the image's CMD exited {proc.returncode}: see {server_log.name}"
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.5)
        hc = subprocess.run(health, env=env, capture_output=True, timeout=30)
        assert hc.returncode == 0, hc.stderr.decode()

        notices = {k: _fixed_part(k) for k in MISSING_NOTICES}
        pages = app_pages()
        assert sorted(f for f, _ in pages) == bc.app_reads()["pages"]  # every page file is in the navigation
        pages = [path for _, path in pages]
        shown = asyncio.run(_open_pages(websockets, f"127.0.0.1:{port}", pages))
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        server_log.close()
    print(f"image: {len(shown)} pages opened; {', '.join(skipped)} skipped (this test's user runs it)")
    for page, (texts, finished, not_found) in shown.items():
        assert finished and not not_found, (page, finished, not_found)
        body = "\n".join(texts)
        assert "exception {" not in body, (page, body[:3000])
        for key, fixed in notices.items():
            assert fixed not in body, (page, key, fixed)
    # each page drew something of its own: the cost page its measured curve's source line
    assert "bench/cost.py, which writes analysis/data/cost_results.json" in "\n".join(shown["cost"][0])
    assert "Transformer Attention Explorer" in "\n".join(shown[""][0])
    log = (bc.ROOT / "screenshots" / "image-server.log").read_text()
    for sign in ("FileNotFoundError", "No such file", "Traceback"):
        assert sign not in log, log[-3000:]


def app_pages() -> list[tuple[str, str]]:
    """(file, url path) of app.py's PAGES, the first (the default page) at "" as Streamlit serves it:
    its own path ("/home") is a page Streamlit does not find."""
    import ast

    tree = ast.parse((bc.ROOT / "app.py").read_text())
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and getattr(n.targets[0], "id", "") == "PAGES")
    rows = ast.literal_eval(node.value)
    return [(f, "" if i == 0 else path) for i, (f, path, *_) in enumerate(rows)]


async def _open_pages(websockets, host: str, pages: list[str]) -> dict:
    """{page: (every element's text, finished successfully, page not found)}: each page opened in
    its own websocket session, as a browser opening its link does."""
    from google.protobuf import text_format
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    out = {}
    for page in pages:
        async with websockets.connect(
            f"ws://{host}/_stcore/stream", subprotocols=["streamlit"], origin=f"http://{host}", max_size=None
        ) as ws:
            m = BackMsg()
            m.rerun_script.page_name = page
            m.rerun_script.query_string = ""
            await ws.send(m.SerializeToString())
            texts, finished, not_found = [], None, False
            while finished is None:
                msg = ForwardMsg()
                msg.ParseFromString(await asyncio.wait_for(ws.recv(), 300))
                kind = msg.WhichOneof("type")
                if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                    texts.append(text_format.MessageToString(msg.delta.new_element, as_utf8=True))
                elif kind == "page_not_found":
                    not_found = True
                elif kind == "script_finished" and msg.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                    finished = msg.script_finished == ForwardMsg.FINISHED_SUCCESSFULLY  # (a rerun: wait for it)
            out[page] = (texts, finished, not_found)
    return out
