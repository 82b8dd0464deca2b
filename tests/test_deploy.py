"""Issue 33: deploy/nginx.conf read against the app's settings and against docker-compose.yml's
rewrite of it, without starting anything (tests/browser/test_production.py runs it for real)."""

from __future__ import annotations

import re
import tomllib

from tests.build_context import ROOT

NGINX = (ROOT / "deploy" / "nginx.conf").read_text()
CONFIG = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
COMPOSE = (ROOT / "docker-compose.yml").read_text()


def location(prefix: str) -> str:
    """The body of nginx.conf's location block for PREFIX (blocks here hold no nested braces)."""
    m = re.search(r"location\s+(?:\^~|=)?\s*" + re.escape(prefix) + r"\s*\{([^}]*)\}", NGINX)
    assert m, f"no location {prefix} in deploy/nginx.conf"
    return m.group(1)


def size(text: str) -> int:
    """An nginx size ("128k", "1m", "4096") in bytes."""
    n, unit = re.fullmatch(r"(\d+)([kKmMgG]?)", text).groups()
    return int(n) * {"": 1, "k": 2**10, "m": 2**20, "g": 2**30}[unit.lower()]


def body_bounds() -> tuple[int, int]:
    """(every request's bound, the upload route's bound) in bytes, from deploy/nginx.conf."""
    server = re.search(r"\n        client_max_body_size\s+(\w+);", NGINX).group(1)
    upload = re.search(r"client_max_body_size\s+(\w+);", location("/_stcore/upload_file")).group(1)
    return size(server), size(upload)


def test_the_proxy_bounds_a_body_as_streamlit_bounds_an_upload():
    """Every body at server.maxUploadSize (what Streamlit takes); an upload at a lesson file with
    its multipart envelope, which the largest lesson file fits and which is no more than that."""
    every, upload = body_bounds()
    assert every == CONFIG["server"]["maxUploadSize"] * 2**20, every
    assert lesson_max_bytes() + 2048 <= upload <= every, upload


def lesson_max_bytes() -> int:
    """lessons/schema.py's MAX_BYTES, read from the file (importing lessons imports the models)."""
    src = (ROOT / "lessons" / "schema.py").read_text()
    return int(re.search(r"^MAX_BYTES = ([\d_]+)", src, re.M).group(1).replace("_", ""))


def test_the_uploader_route_is_proxied_and_metrics_stays_closed():
    upload = location("/_stcore/upload_file")
    assert "proxy_pass http://attention_explorer;" in upload and "return" not in upload
    assert "return 404;" in location("/_stcore/metrics")


def test_compose_rewrites_lines_that_exist():
    """docker-compose.yml runs deploy/nginx.conf through sed: every line it rewrites must be there,
    or nginx would start with the local ports and logs instead of the replicas' service name."""
    for pattern in re.findall(r"-e '(?:/([^/]+)/d|s#([^#]+)#)", COMPOSE):
        text = (pattern[0] or pattern[1]).replace("\\", "")
        assert text in NGINX, text


def seconds(text: str) -> float:
    """An nginx time ("4s", "500ms", "1m", "60") in seconds."""
    n, unit = re.fullmatch(r"(\d+)(ms|s|m|h)?", text).groups()
    return int(n) * {"ms": 0.001, "s": 1, None: 1, "m": 60, "h": 3600}[unit]


def replica_keep_alive() -> float:
    """How long a replica keeps an idle HTTP connection open: uvicorn's timeout_keep_alive, as
    Streamlit configures uvicorn (it sets none: uvicorn's default)."""
    import inspect

    import uvicorn
    from streamlit.web.server.starlette import starlette_server

    given = starlette_server._get_uvicorn_config_kwargs().get("timeout_keep_alive")
    return given if given is not None else inspect.signature(uvicorn.Config).parameters["timeout_keep_alive"].default


def test_nginx_lets_an_idle_replica_connection_go_before_the_replica_closes_it():
    """nginx keeps idle connections to the replicas (keepalive); one the replica closes first can
    be closed under a request in flight, which nginx then passes to the other replica, splitting a
    browser's session across the two. So nginx's upstream keepalive_timeout (its default: 60 s)
    must be set, and shorter than the replica's own, with a second to spare."""
    upstream = re.search(r"upstream attention_explorer \{([^}]*)\}", NGINX).group(1)
    assert re.search(r"^\s*keepalive \d+;", upstream, re.M), "nginx keeps no idle connections: nothing to check"
    m = re.search(r"^\s*keepalive_timeout (\w+);", upstream, re.M)
    assert m, "the upstream's keepalive_timeout is nginx's default, 60 s: longer than a replica keeps one"
    assert seconds(m.group(1)) <= replica_keep_alive() - 1, (m.group(1), replica_keep_alive())
