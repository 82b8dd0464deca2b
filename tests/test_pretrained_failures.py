"""A real pretrained model whose load fails (issue 45, item 8: an unwritable cache folder, a
truncated model.safetensors beside an intact stamp) is told in the reader's language, never
Streamlit's error box in the waiting visitors' loading fragment; a damaged folder is converted
again by the next load instead of failing for good."""

import shutil
import time

import pytest

from model.errors import InputError
from model.hf import pretrained
from tests import apptest
from tests.conftest import SMOLLM, smollm_missing


def _wait_for_failure(name: str) -> InputError:
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            pretrained.ready(name, "cpu")
        except InputError as e:
            return e
        time.sleep(0.05)
    raise AssertionError("the load neither failed nor finished")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_failed_background_load_is_a_translated_notice_on_the_page(lang, monkeypatch):
    if smollm_missing():
        pytest.skip(smollm_missing())
    monkeypatch.setenv("ATTN_HF", "local")
    monkeypatch.setattr(pretrained, "_LOADED", {})
    monkeypatch.setattr(pretrained, "_ERRORS", {})

    def broken(name, device=None):
        raise RuntimeError("Error while deserializing header: incomplete metadata, file not fully covered")

    monkeypatch.setattr(pretrained, "load", broken)
    from ui import context

    pretrained.start(SMOLLM, "cpu")
    err = _wait_for_failure(SMOLLM)
    assert err.code == "hf_load_failed"
    assert context.load_finished(SMOLLM, "cpu") is True  # the fragment reruns the page, never raises
    apptest.use_language(lang)
    try:
        at = apptest.open_page("pages/attention.py", SMOLLM, lang=lang)
    finally:
        apptest.restore_language()
    assert not at.exception, at.exception
    said = " ".join(str(w.value) for w in [*at.warning, *at.error])
    assert ("could not be loaded" if lang == "en" else "无法加载") in said, said


@pytest.mark.slow  # loads SmolLM2, then converts it again (10-30 s)
def test_a_truncated_converted_file_beside_its_stamp_is_converted_again_next_time(smollm, tmp_path, monkeypatch):
    """The stamp goes with the failed load, so current() is False and the next load converts."""
    good = pretrained.folder(SMOLLM)
    monkeypatch.setenv(pretrained.CACHE_ENV, str(tmp_path))
    bad = pretrained.folder(SMOLLM)
    assert bad != good
    bad.mkdir(parents=True)
    for f in good.iterdir():
        if f.name == "model.safetensors":
            with open(f, "rb") as src, open(bad / f.name, "wb") as dst:
                dst.write(src.read(1 << 20))  # the first MB: a header that promises more
        elif f.is_file():
            shutil.copy(f, bad / f.name)
    assert pretrained.current(SMOLLM)  # the stamp is intact: before this fix, every load failed
    monkeypatch.setattr(pretrained, "_LOADED", {})
    with pytest.raises(Exception):  # noqa: B017 - safetensors, torch or transformers: whichever reads it first
        pretrained.load(SMOLLM, "cpu")
    assert not pretrained.current(SMOLLM)  # the next load converts again
