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


def test_the_proxy_bounds_a_body_as_streamlit_bounds_an_upload():
    sizes = re.findall(r"client_max_body_size\s+(\d+)m;", NGINX)
    assert sizes == [str(CONFIG["server"]["maxUploadSize"])], sizes


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
