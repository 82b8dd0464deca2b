"""The room's QR code has a text alternative (issue 50.10): a screen reader says what it opens,
in the reader's language, in the sidebar and in the title row's popover."""

from __future__ import annotations

import pytest

from tests import apptest
from ui.i18n import text_in


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_qr_image_says_what_it_opens(lang, tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from ui import classroom

    monkeypatch.setenv("ATTN_ROOMS", f"sqlite:///{tmp_path / 'rooms.sqlite3'}")
    classroom.store.clear()
    code, token = classroom.store().create()
    apptest.use_language(lang)
    at = AppTest.from_file(str(apptest.app_copy("pages/home.py")), default_timeout=120)
    at.query_params.update(model="gpt", lang=lang)
    at.session_state["_room_code"], at.session_state["_room_token"] = code, token
    at.run()
    apptest.ok(at)
    images = [img for el in at.get("image") for img in el.proto.imgs]
    assert len(images) >= 2, images  # the sidebar's and the popover's
    want = text_in(lang, "room_qr_alt", code=classroom.format_code(code), link=classroom.room_link(code))
    assert code in classroom.room_link(code)
    for img in images:
        assert img.alt == want, img.alt
    classroom.store.clear()
