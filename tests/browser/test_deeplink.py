"""A teacher's link opened first thing on a freshly started server: the whole app, not the page
file alone (a folder named pages/ beside app.py puts Streamlit in its older multipage mode until
st.navigation runs), and the view the link names, kept across the next click."""

from urllib.parse import parse_qs, urlparse

from .helpers import SCREENSHOTS, AppServer, app_env, click_and_settle, exceptions, goto


def test_deep_link_on_a_fresh_server_keeps_the_view(new_page):
    with AppServer(env=app_env(), log=SCREENSHOTS / "streamlit-deeplink.log") as server:
        page = new_page()
        # an old link: ?step=3 (the page's step by number, ?stage=qkv since) still opens step 3
        goto(page, server.url + "/steps?model=gpt&lang=zh&step=3&text=The%20dog%20bites%20the%20man")
        assert not exceptions(page)
        assert page.locator("h1").first.inner_text() == "逐步计算"
        assert page.locator("section[data-testid='stSidebar'] textarea").input_value() == "The dog bites the man"
        # one click later the link still names the same model, sentence and language
        nxt = page.get_by_role("button", name="下一步").first
        click_and_settle(nxt, page)
        query = parse_qs(urlparse(page.url).query)
        assert query["model"] == ["gpt"] and query["lang"] == ["zh"] and query["stage"] == ["scores"]  # step 4
        assert "step" not in query
        assert query["text"] == ["The dog bites the man"]
        assert not exceptions(page)
